// `server.d/register.json`: declarative registration, strict as 000_* says (version 1, no BOM,
// standard JSON, no unknown top-level keys, each kind an array or null, 1 MiB cap, no fallback
// when invalid), plus per-entry checks: names, duplicates, required fields, paths inside the project.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { readFailureReason, readRegularFile } from '../shared/read-regular-file.js';
import type { SidecarSchemaName } from './sidecar-schemas.js';
import { sidecarValidator } from './sidecar-validators.js';

export const REGISTER_FILE = 'server.d/register.json';
export const MAX_REGISTER_BYTES = 1024 * 1024;
const KINDS = ['tools', 'resources', 'resourceTemplates', 'prompts', 'completions'] as const;
export type RegisterKind = (typeof KINDS)[number];

export type RegisterEntry = Record<string, unknown> & { name?: string; path?: string };

/** Per kind: undefined = discover as usual; an array (possibly empty = kind disabled) = use these. */
export type Registration = Partial<Record<RegisterKind, RegisterEntry[]>>;

/** The entry schema of each kind (sidecar-schemas.ts); resourceTemplates are checked by their reader. */
const ENTRY_SCHEMAS: Record<Exclude<RegisterKind, 'resourceTemplates'>, SidecarSchemaName> = {
  tools: 'registerTools',
  resources: 'registerResources',
  prompts: 'registerPrompts',
  completions: 'registerCompletions',
};

/** Where an entry's `path` is resolved: tools/, resources/, prompts/ or the project root. */
const PATH_BASES: Partial<Record<RegisterKind, string>> = {
  tools: 'tools',
  resources: 'resources',
  prompts: 'prompts',
  completions: '.',
};

function fail(
  message: string,
  hint = `Fix ${REGISTER_FILE}; there is no fallback to discovery while it is invalid.`,
): never {
  throw new StaticMcpError('REGISTER_INVALID', `${REGISTER_FILE}: ${message}`, hint);
}

function checkEntries(kind: RegisterKind, entries: unknown[], projectRoot: string): RegisterEntry[] {
  // 003_* skips an invalid template with a warning instead of refusing the file: the template
  // reader checks each entry and reports the ones it skips (discover-resource-templates.ts).
  if (kind === 'resourceTemplates') return entries as RegisterEntry[];
  const validate = sidecarValidator(ENTRY_SCHEMAS[kind], 'entry');
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const problems = validate(entry);
    if (problems.length > 0) fail(`${kind}[${index}]: ${problems.join('; ')}`);
    const record = entry as RegisterEntry;
    const isList = kind === 'completions' && record.ref !== undefined;
    const identity = isList ? JSON.stringify([record.ref, record.argument]) : String(record.name);
    if (seen.has(identity)) fail(`${kind}[${index}]: duplicate ${isList ? 'completion' : `name "${record.name}"`}`);
    seen.add(identity);
    for (const key of ['path', 'provider'] as const) {
      const value = record[key];
      if (typeof value !== 'string') continue;
      const base = path.resolve(projectRoot, key === 'provider' ? '.' : (PATH_BASES[kind] ?? '.'));
      const resolved = path.resolve(base, value);
      const relative = path.relative(base, resolved);
      if (path.isAbsolute(value) || relative.startsWith('..') || relative === '' || value.includes('\0')) {
        fail(
          `${kind}[${index}].${key} "${value}" leaves ${path.relative(projectRoot, base) || 'the project'}; paths must stay inside it`,
        );
      }
    }
  });
  return entries as RegisterEntry[];
}

/** Reads and checks register.json; returns null when the project has none. Throws when it is invalid. */
export async function readRegistration(projectRoot: string): Promise<Registration | null> {
  const file = path.join(projectRoot, REGISTER_FILE);
  let bytes: Buffer;
  try {
    const stats = await fs.stat(file);
    if (stats.size > MAX_REGISTER_BYTES)
      fail(
        `is ${stats.size} bytes, over the ${MAX_REGISTER_BYTES}-byte limit`,
        'Split large registrations, or let discovery find the files.',
      );
    bytes = await readRegularFile(file);
  } catch (error) {
    if (error instanceof StaticMcpError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return fail(`cannot be read (${readFailureReason(error)})`);
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    fail('starts with a byte-order mark; save it as UTF-8 without BOM');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail('is not valid UTF-8');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail(`is not standard JSON (comments and trailing commas are not allowed): ${(error as Error).message}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return fail('must hold a JSON object');
  const record = data as Record<string, unknown>;
  if (record.version !== 1) fail(`"version" must be 1, found ${JSON.stringify(record.version)}`);
  for (const key of Object.keys(record)) {
    if (key !== 'version' && key !== '_meta' && !(KINDS as readonly string[]).includes(key)) {
      fail(`unknown top-level key "${key}" (allowed: version, ${KINDS.join(', ')}, _meta)`);
    }
  }
  const registration: Registration = {};
  for (const kind of KINDS) {
    const value = record[kind];
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value)) fail(`"${kind}" must be an array or null, found ${typeof value}`);
    registration[kind] = checkEntries(kind, value, projectRoot);
  }
  return registration;
}
