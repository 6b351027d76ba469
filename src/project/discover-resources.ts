// Files under `resources/` → resource definitions with their content, plus `.meta.json` sidecars
// for name, title, description, uri and mimeType, named `<file>.meta.json` or, as mcp-bash names
// them, `<name>.meta.json` (`foo.meta.json` for `foo.md`). Sidecars with `uriTemplate` are templates.
import path from 'node:path';
import { readEitherSidecar, sidecarCandidates } from './read-json-sidecar.js';
import { walkFolder } from './walk-folder.js';
import type { MarkdownSummary } from './markdown-summary.js';
import { isHttpUrl } from '../core/search/document-url.js';
import { compileValidator, type Validator } from '../shared/ajv-validator.js';
import type { RegisterEntry } from './register-json.js';
import { RESOURCE_NAME_SCHEMA, RESOURCE_URI_SCHEMA } from '../core/tree/name-rules.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';

export interface ProjectResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  relativePath: string;
  content: { text: string } | { blob: string };
  size: number;
  /** `_meta` of its definition and of its contents (an MCP App's `_meta.ui`, discover-apps.ts). */
  meta?: Record<string, unknown>;
  /** How problems name it when it is not a file under resources/ (an app's page). */
  shownPath?: string;
  /**
   * The document's own page (issue #39): an absolute http(s) URL, or a path relative to the tree's
   * root (a built site's page). Listed in `_meta` "staticmcp/url", and search's `url`.
   */
  pageUrl?: string;
}

export interface ResourceDiscovery {
  resources: ProjectResource[];
  problems: { relativePath: string; message: string }[];
  /** Worth saying, not failing the build: a sidecar ignored because another one wins. */
  warnings: { relativePath: string; message: string }[];
}

const MAX_RESOURCE_DEPTH = 8;

const sidecarSchema = {
  type: 'object',
  properties: {
    name: RESOURCE_NAME_SCHEMA,
    title: { type: 'string' },
    description: { type: 'string' },
    uri: RESOURCE_URI_SCHEMA,
    uriTemplate: { type: 'string' },
    mimeType: { type: 'string', pattern: '^[^/\\s]+/[^/\\s]+$' },
    url: { type: 'string' },
  },
};
let validateSidecar: Validator | undefined;

/** The URI a resource gets when its sidecar names none. */
export function defaultResourceUri(relativePath: string): string {
  return `resource://${relativePath}`;
}

async function readSidecar(
  file: string,
  relativePath: string,
  sharedStems: ReadonlySet<string>,
  projectRoot: string,
): Promise<{ meta?: Record<string, unknown>; problem?: string; notice?: string }> {
  const sidecar = await readEitherSidecar(
    file,
    relativePath,
    () => (validateSidecar ??= compileValidator(sidecarSchema, 'meta', { trusted: true })),
    projectRoot,
    (meta) => {
      // A stem file with a uriTemplate declares a template, not this file's metadata.
      if (meta.uriTemplate !== undefined) return '';
      if (sharedStems.has(sidecarCandidates(file).stem!))
        return `${sidecarCandidates(relativePath).stem} would describe every file named like it; it is ignored for ${relativePath} (name it ${relativePath}.meta.json)`;
      return undefined;
    },
  );
  const notice = sidecar.notice !== undefined ? { notice: sidecar.notice } : {};
  if (!sidecar.found) return notice;
  return 'problem' in sidecar ? { problem: sidecar.problem, ...notice } : { meta: sidecar.meta, ...notice };
}

/** mcp-bash-style sidecar paths (`<folder>/<stem>.meta.json`) that more than one file would claim. */
function findSharedStems(files: readonly { file: string }[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const { file } of files) {
    const { stem } = sidecarCandidates(file);
    if (stem === undefined) continue;
    if (seen.has(stem)) shared.add(stem);
    seen.add(stem);
  }
  return shared;
}

/** One resource file with its metadata; `meta` fields win over what the content suggests. */
async function loadResource(
  file: string,
  relativePath: string,
  meta: Record<string, unknown> | undefined,
  projectRoot: string,
): Promise<(ProjectResource & { warning?: string }) | { problem: string }> {
  const loaded = await loadResourceFile(file, relativePath, meta, projectRoot);
  return loaded;
}

/** The page a sidecar `url` or front matter `url`/`canonical` gives, or why it is ignored. */
function checkPageUrl(written: string | undefined, from: string): { pageUrl?: string; warning?: string } {
  if (written === undefined) return {};
  if (isHttpUrl(written)) return { pageUrl: new URL(written).href };
  return {
    warning: `its ${from} ${JSON.stringify(written.slice(0, 200))} is not an absolute http(s) URL; ignored (its search url is the landing page's view of it)`,
  };
}

async function loadResourceFile(
  file: string,
  relativePath: string,
  meta: Record<string, unknown> | undefined,
  projectRoot: string,
): Promise<(ProjectResource & { warning?: string }) | { problem: string }> {
  let bytes: Buffer;
  try {
    bytes = await readProjectFile(file, projectRoot);
  } catch (error) {
    return { problem: `cannot be read (${readFailureReason(error)}); skipped` };
  }
  // The MIME database is only loaded by projects that have resources.
  const { isTextContent, mimeTypeFor } = await import('./mime-type.js');
  const mimeType = (meta?.mimeType as string | undefined) ?? mimeTypeFor(file);
  const text = isTextContent(mimeType, bytes) ? bytes.toString('utf8') : undefined;
  const content = text !== undefined ? { text } : { blob: bytes.toString('base64') };
  // remark is loaded only by projects that have Markdown: it costs every other build ~40 ms.
  const summary: MarkdownSummary =
    mimeType === 'text/markdown' && text !== undefined
      ? (await import('./markdown-summary.js')).summarizeMarkdown(text)
      : {};
  const page =
    meta?.url !== undefined
      ? checkPageUrl(meta.url as string, 'sidecar url')
      : checkPageUrl(summary.pageUrl, 'front matter url');
  return {
    ...(page.warning !== undefined ? { warning: page.warning } : {}),
    ...(page.pageUrl !== undefined ? { pageUrl: page.pageUrl } : {}),
    uri: (meta?.uri as string | undefined) ?? defaultResourceUri(relativePath),
    name: (meta?.name as string | undefined) ?? path.basename(file),
    title: (meta?.title as string | undefined) ?? summary.title,
    description: (meta?.description as string | undefined) ?? summary.description ?? relativePath,
    mimeType,
    relativePath,
    content,
    size: bytes.length,
  };
}

function withoutWarning(
  loaded: ProjectResource & { warning?: string },
  relativePath: string,
  warnings: ResourceDiscovery['warnings'],
): ProjectResource {
  const { warning, ...resource } = loaded;
  if (warning !== undefined) warnings.push({ relativePath, message: warning });
  return resource;
}

/**
 * Every file under `resourcesRoot`, or, when server.d/register.json lists resources, exactly
 * those entries (each naming its file by `path` inside resources/).
 */
export async function discoverResources(
  resourcesRoot: string,
  registered?: RegisterEntry[],
  projectRoot = path.dirname(resourcesRoot),
): Promise<ResourceDiscovery> {
  const resources: ProjectResource[] = [];
  const problems: ResourceDiscovery['problems'] = [];
  const warnings: ResourceDiscovery['warnings'] = [];
  if (registered) {
    for (const entry of registered) {
      const loaded = await loadResource(path.join(resourcesRoot, entry.path!), entry.path!, entry, projectRoot);
      if ('problem' in loaded)
        problems.push({
          relativePath: entry.path!,
          message: `(registered in server.d/register.json) ${loaded.problem}`,
        });
      else resources.push(withoutWarning(loaded, entry.path!, warnings));
    }
    return { resources, problems, warnings };
  }

  const { files, notices } = await walkFolder(resourcesRoot, {
    maxDepth: MAX_RESOURCE_DEPTH,
    tooDeepMessage: `is deeper than ${MAX_RESOURCE_DEPTH} levels; skipped`,
  });
  problems.push(...notices);
  const sharedStems = findSharedStems(files);
  for (const { file, relativePath } of files) {
    const { meta, problem, notice } = await readSidecar(file, relativePath, sharedStems, projectRoot);
    if (notice) warnings.push({ relativePath, message: notice });
    if (problem) {
      problems.push({ relativePath, message: problem });
      continue;
    }
    if (meta?.uriTemplate !== undefined) continue;
    const loaded = await loadResource(file, relativePath, meta, projectRoot);
    if ('problem' in loaded) problems.push({ relativePath, message: loaded.problem });
    else resources.push(withoutWarning(loaded, relativePath, warnings));
  }
  return { resources, problems, warnings };
}
