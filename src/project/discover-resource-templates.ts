// Resource templates (003_*): `resources/*.meta.json` with a `uriTemplate` (and no `uri`), merged
// with register.json entries (registered wins on a shared name). An invalid entry is skipped and
// reported as a problem that says why (the build still writes the rest, and exits 1 so CI notices).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ResourceTemplateDefinition } from '../core/tree/manifest.js';
import { parseUriTemplate } from '../core/tree/uri-template.js';
import type { ValueListSpec } from './config.js';
import type { RegisterEntry } from './register-json.js';
import { OUTSIDE_PROJECT, readFailureReason, readProjectFile } from '../shared/read-regular-file.js';

export interface ProjectResourceTemplate {
  definition: ResourceTemplateDefinition;
  /** Script (relative to the project root) that prints an instance's content; variables as arguments. */
  provider?: string;
  /** Value lists for the variables; with a provider, every combination is precomputed. */
  values?: Record<string, ValueListSpec>;
}

export interface TemplateDiscovery {
  templates: ProjectResourceTemplate[];
  /** Entries that were skipped (or lost their provider), each with why. */
  problems: { relativePath: string; message: string }[];
}

function toTemplate(
  entry: unknown,
  where: string,
  problems: TemplateDiscovery['problems'],
): ProjectResourceTemplate | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    problems.push({ relativePath: where, message: 'must be an object with "name" and "uriTemplate"; skipped' });
    return undefined;
  }
  const meta = entry as Record<string, unknown>;
  if (meta.uri !== undefined) {
    problems.push({
      relativePath: where,
      message: 'sets both "uri" and "uriTemplate"; skipped (a resource has one or the other)',
    });
    return undefined;
  }
  if (typeof meta.uriTemplate !== 'string' || typeof meta.name !== 'string' || meta.name === '') {
    problems.push({ relativePath: where, message: '"uriTemplate" and "name" must be non-empty strings; skipped' });
    return undefined;
  }
  try {
    parseUriTemplate(meta.uriTemplate);
  } catch (error) {
    problems.push({ relativePath: where, message: `uriTemplate ${(error as Error).message}; skipped` });
    return undefined;
  }
  const definition: ResourceTemplateDefinition = { uriTemplate: meta.uriTemplate, name: meta.name };
  for (const key of ['title', 'description', 'mimeType'] as const) {
    if (typeof meta[key] === 'string') definition[key] = meta[key] as string;
  }
  if (meta.annotations && typeof meta.annotations === 'object')
    definition.annotations = meta.annotations as Record<string, unknown>;
  let provider: string | undefined;
  if (typeof meta.provider === 'string') {
    provider = projectRelativePath(meta.provider);
    if (provider === undefined) {
      // The tree records the provider's path: an absolute one would publish where the project lives.
      problems.push({
        relativePath: where,
        message: `provider "${meta.provider}" is not a path inside the project (relative to its root, without ".."); the template is served without a provider`,
      });
    }
  }
  return {
    definition,
    ...(provider !== undefined ? { provider } : {}),
    ...(meta.values && typeof meta.values === 'object' ? { values: meta.values as Record<string, ValueListSpec> } : {}),
  };
}

/** `value` as a normalised `/`-separated path inside the project, or undefined when it leaves it. */
function projectRelativePath(value: string): string | undefined {
  if (value === '' || value.includes('\0') || value.includes('\\') || path.posix.isAbsolute(value)) return undefined;
  const normalised = path.posix.normalize(value);
  return normalised === '.' || normalised === '..' || normalised.startsWith('../') ? undefined : normalised;
}

export async function discoverResourceTemplates(
  resourcesRoot: string,
  /** The resources' names, asked for only when there is a template (one string a document). */
  resourceNames: () => ReadonlySet<string>,
  registered?: RegisterEntry[],
  projectRoot = path.dirname(resourcesRoot),
): Promise<TemplateDiscovery> {
  const problems: TemplateDiscovery['problems'] = [];
  const byName = new Map<string, ProjectResourceTemplate>();
  let names: string[] = [];
  try {
    names = (await fs.readdir(resourcesRoot))
      .filter((name) => name.endsWith('.meta.json') && !name.startsWith('.'))
      .sort();
  } catch {
    // No resources folder: nothing to discover.
  }
  for (const name of names) {
    let meta: unknown;
    try {
      // Confined like every published file: a template's fields end up in mcp.json.
      meta = JSON.parse((await readProjectFile(path.join(resourcesRoot, name), projectRoot)).toString('utf8'));
    } catch (error) {
      // One leading out of the project may describe no resource file, so it is reported here.
      if ((error as NodeJS.ErrnoException).code === OUTSIDE_PROJECT)
        problems.push({ relativePath: `resources/${name}`, message: `cannot be read (${readFailureReason(error)})` });
      continue; // Any other broken sidecar is reported with its resource.
    }
    if (!meta || typeof meta !== 'object' || (meta as Record<string, unknown>).uriTemplate === undefined) continue;
    const template = toTemplate(meta as Record<string, unknown>, `resources/${name}`, problems);
    if (!template) continue;
    if (byName.has(template.definition.name)) {
      problems.push({
        relativePath: `resources/${name}`,
        message: `another template is already named "${template.definition.name}"; skipped`,
      });
      continue;
    }
    byName.set(template.definition.name, template);
  }
  // Registered entries override discovered ones of the same name; among themselves the first wins.
  const registeredNames = new Set<string>();
  for (const [index, entry] of (registered ?? []).entries()) {
    const where = `server.d/register.json resourceTemplates[${index}]`;
    const template = toTemplate(entry, where, problems);
    if (!template) continue;
    if (registeredNames.has(template.definition.name)) {
      problems.push({
        relativePath: where,
        message: `an earlier entry is already named "${template.definition.name}"; skipped`,
      });
      continue;
    }
    registeredNames.add(template.definition.name);
    byName.set(template.definition.name, template);
  }
  const templates: ProjectResourceTemplate[] = [];
  const taken = byName.size === 0 ? new Set<string>() : resourceNames();
  for (const template of byName.values()) {
    if (taken.has(template.definition.name)) {
      problems.push({
        relativePath: template.definition.name,
        message: 'a resource already has this name; the template was skipped',
      });
      continue;
    }
    templates.push(template);
  }
  templates.sort((left, right) =>
    left.definition.name < right.definition.name ? -1 : left.definition.name > right.definition.name ? 1 : 0,
  );
  return { templates, problems };
}
