// Resource templates (003_*): `resources/*.meta.json` with a `uriTemplate` (and no `uri`), merged
// with register.json entries (registered wins on a shared name). Invalid entries are skipped
// with a warning that says why; they never stop the build.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ResourceTemplateDefinition } from '../tree/manifest.js';
import { parseUriTemplate } from '../tree/uri-template.js';
import type { ValueListSpec } from './config.js';
import type { RegisterEntry } from './register-json.js';
import { readRegularFile } from '../read-regular-file.js';

export interface ProjectResourceTemplate {
  definition: ResourceTemplateDefinition;
  /** Script (relative to the project root) that prints an instance's content; variables as arguments. */
  provider?: string;
  /** Value lists for the variables; with a provider, every combination is precomputed. */
  values?: Record<string, ValueListSpec>;
}

export interface TemplateDiscovery {
  templates: ProjectResourceTemplate[];
  warnings: { relativePath: string; message: string }[];
}

function toTemplate(
  meta: Record<string, unknown>,
  where: string,
  warnings: TemplateDiscovery['warnings'],
): ProjectResourceTemplate | undefined {
  if (meta.uri !== undefined) {
    warnings.push({
      relativePath: where,
      message: 'sets both "uri" and "uriTemplate"; skipped (a resource has one or the other)',
    });
    return undefined;
  }
  if (typeof meta.uriTemplate !== 'string' || typeof meta.name !== 'string' || meta.name === '') {
    warnings.push({ relativePath: where, message: '"uriTemplate" and "name" must be non-empty strings; skipped' });
    return undefined;
  }
  try {
    parseUriTemplate(meta.uriTemplate);
  } catch (error) {
    warnings.push({ relativePath: where, message: `uriTemplate ${(error as Error).message}; skipped` });
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
      warnings.push({
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
  resourceNames: ReadonlySet<string>,
  registered?: RegisterEntry[],
): Promise<TemplateDiscovery> {
  const warnings: TemplateDiscovery['warnings'] = [];
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
      meta = JSON.parse(await readRegularFile(path.join(resourcesRoot, name), 'utf8'));
    } catch {
      continue; // A broken sidecar is reported with its resource.
    }
    if (!meta || typeof meta !== 'object' || (meta as Record<string, unknown>).uriTemplate === undefined) continue;
    const template = toTemplate(meta as Record<string, unknown>, `resources/${name}`, warnings);
    if (!template) continue;
    if (byName.has(template.definition.name)) {
      warnings.push({
        relativePath: `resources/${name}`,
        message: `another template is already named "${template.definition.name}"; skipped`,
      });
      continue;
    }
    byName.set(template.definition.name, template);
  }
  for (const [index, entry] of (registered ?? []).entries()) {
    const template = toTemplate(entry, `server.d/register.json resourceTemplates[${index}]`, warnings);
    if (template) byName.set(template.definition.name, template);
  }
  const templates: ProjectResourceTemplate[] = [];
  for (const template of byName.values()) {
    if (resourceNames.has(template.definition.name)) {
      warnings.push({
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
  return { templates, warnings };
}
