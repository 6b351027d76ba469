// Files under `resources/` → resource definitions with their content, plus `.meta.json` sidecars
// for name, title, description, uri and mimeType, named `<file>.meta.json` or, as mcp-bash names
// them, `<name>.meta.json` (`foo.meta.json` for `foo.md`). Sidecars with `uriTemplate` are templates.
// A file's text is not held: discovery keeps what the listing needs (its parse comes from the
// document cache when its bytes did not change, document-cache.ts), and the tree file is written
// from the file itself (resource-file-content.ts), so memory stays flat in the number of documents.
import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { DocumentCache, type DocumentStats, digestBytes, type ParsedDocument } from './document-cache.js';
import type { ProjectResource } from './project-resource.js';
import { readEitherSidecar, sidecarCandidates } from './read-json-sidecar.js';
import { type WalkedFile, walkFolder } from './walk-folder.js';
import { ResourceRuns } from './resource-runs.js';
import type { WalkedIdentities } from './walked-identities.js';
import { FileResourceStore, type ResourceOverrides } from './file-resource-store.js';
import type { MarkdownSummary } from './markdown-summary.js';
import { plainSummaryOf } from './plain-summary.js';
import { commonMimeTypeFor } from './common-mime-types.js';
import { isTextContent } from '../core/tree/resource-content.js';
import { isHttpUrl } from '../core/search/document-url.js';
import { sidecarValidator } from './sidecar-validators.js';
import type { RegisterEntry } from './register-json.js';
import { readFailureReason, readProjectFileAndStats } from '../shared/read-regular-file.js';

export interface ResourceDiscovery {
  resources: ProjectResource[];
  problems: { relativePath: string; message: string }[];
  /** Worth saying, not failing the build: a sidecar ignored because another one wins. */
  warnings: { relativePath: string; message: string }[];
  /** Markdown documents parsed, and documents whose parse came from the cache (document-cache.ts). */
  documents: { parsed: number; reused: number };
}

const MAX_RESOURCE_DEPTH = 8;
const NO_SIDECAR: { meta?: Record<string, unknown>; problem?: string; notice?: string } = {};
/**
 * mime-type.ts, once a build has a resource: only projects with resources load the MIME database,
 * and only once (an import() a document cost as much as its cached parse).
 */
let mimeTypes: typeof import('./mime-type.js') | undefined;

/** The URI a resource gets when its sidecar names none. */
export function defaultResourceUri(relativePath: string): string {
  return `resource://${relativePath}`;
}

async function readSidecar(
  file: string,
  relativePath: string,
  sharedStems: ReadonlySet<string>,
  projectRoot: string,
  present?: ReadonlySet<string>,
): Promise<{ meta?: Record<string, unknown>; problem?: string; notice?: string }> {
  const sidecar = await readEitherSidecar(
    file,
    relativePath,
    () => sidecarValidator('resourceSidecar', 'meta'),
    projectRoot,
    (meta) => {
      // A stem file with a uriTemplate declares a template, not this file's metadata.
      if (meta.uriTemplate !== undefined) return '';
      if (sharedStems.has(sidecarCandidates(file).stem!))
        return `${sidecarCandidates(relativePath).stem} would describe every file named like it; it is ignored for ${relativePath} (name it ${relativePath}.meta.json)`;
      return undefined;
    },
    present,
  );
  const notice = sidecar.notice !== undefined ? { notice: sidecar.notice } : {};
  if (!sidecar.found) return notice;
  return 'problem' in sidecar ? { problem: sidecar.problem, ...notice } : { meta: sidecar.meta, ...notice };
}

/**
 * mcp-bash-style sidecar paths (`<folder>/<stem>.meta.json`) that more than one file would claim,
 * of those the walk saw (`present`): only a stem sidecar that exists is ever asked about, and
 * without any the files are not even looked at (a path and a pattern a file were ~30% of the
 * discovery of 10,000 documents).
 */
function findSharedStems(files: readonly { file: string }[], present: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  if (present.size === 0) return shared;
  for (const { file } of files) {
    const { stem } = sidecarCandidates(file);
    if (stem === undefined || !present.has(stem)) continue;
    if (seen.has(stem)) shared.add(stem);
    seen.add(stem);
  }
  return shared;
}

/** The page a sidecar `url` or front matter `url`/`canonical` gives, or why it is ignored. */
function checkPageUrl(written: string | undefined, from: string): { pageUrl?: string; warning?: string } {
  if (written === undefined) return {};
  if (isHttpUrl(written)) return { pageUrl: new URL(written).href };
  return {
    warning: `its ${from} ${JSON.stringify(written.slice(0, 200))} is not an absolute http(s) URL; ignored (its search url is the landing page's view of it)`,
  };
}

/** What the build keeps of a resource file's bytes (the one parse, for Markdown). */
async function parseDocument(bytes: Buffer, mimeType: string): Promise<ParsedDocument> {
  const text = isTextContent(mimeType, bytes);
  // remark is loaded only by projects that have Markdown: it costs every other build ~40 ms.
  if (mimeType !== 'text/markdown' || !text) return { text };
  const markdown = bytes.toString('utf8');
  // The parser loads only for a document it must read (plain-summary.ts reads the others).
  return {
    text,
    summary: plainSummaryOf(markdown) ?? (await import('./markdown-summary.js')).summarizeByParse(markdown),
  };
}

/** A file's path from the project's root, `/`-separated. */
function projectPathOf(projectRoot: string, file: string): string {
  return path.relative(projectRoot, file).split(path.sep).join('/');
}

/** A file's identity when it is a regular file (else it is read, and the read says why not). */
function regularFileIdentity(file: string): DocumentStats | undefined {
  const stats = statSync(file, { bigint: true });
  return stats.isFile() ? stats : undefined;
}

/** A document's parse, with the identity and digest of the bytes it was made from. */
interface DocumentRead {
  parsed: ParsedDocument;
  stats: DocumentStats;
  /** The sha256 of its bytes: hex when just read, bytes when the cache knew the file. */
  sha256: string | Uint8Array;
}

/**
 * The file's parse when the cache knows it by its untouched identity (nothing is read now), else
 * undefined: then it is read (readDocument). Where the file leads is checked when it is read to
 * be written (resource-file-content.ts), as for any other file. The identity the up-to-date walk
 * took (a regular file then) saves a stat; else it is taken now.
 */
function untouchedDocument(
  file: FileAt,
  key: string,
  mimeType: string,
  documents: DocumentCache,
  walked: WalkedIdentities | undefined,
): DocumentRead | { problem: string } | undefined {
  let stats: DocumentStats | undefined;
  try {
    stats = walked?.lookup(key) ?? regularFileIdentity(file.file);
  } catch (error) {
    return { problem: `cannot be read (${readFailureReason(error)}); skipped` };
  }
  if (stats === undefined) return undefined;
  const known = documents.lookupUntouched(key, mimeType, stats);
  return known === undefined ? undefined : { parsed: known.parsed, stats, sha256: known.digest };
}

/** The file's parse, read: by its digest, else parsed (the one read). */
async function readDocument(
  file: string,
  /** The file's path from the project's root, `/`-separated: its key in the document cache. */
  key: string,
  mimeType: string,
  projectRoot: string,
  documents: DocumentCache,
): Promise<DocumentRead | { problem: string }> {
  try {
    const read = await readProjectFileAndStats(file, projectRoot);
    const sha256 = digestBytes(read.bytes);
    const known = documents.lookupDigest(key, mimeType, read.stats, sha256);
    if (known) return { parsed: known, stats: read.stats, sha256 };
    const parsed = await parseDocument(read.bytes, mimeType);
    documents.recordParse(key, mimeType, read.stats, sha256, parsed);
    return { parsed, stats: read.stats, sha256 };
  } catch (error) {
    return { problem: `cannot be read (${readFailureReason(error)}); skipped` };
  }
}

type LoadedResource = { resource: ProjectResource; warnings: readonly string[] } | { problem: string };

/**
 * Where a resource file is: its absolute path is made only when the file is stat-ed or read (a
 * walked file's is joined when asked, and a document the cache knows by its walked identity needs
 * none).
 */
interface FileAt {
  readonly file: string;
}

/**
 * A resource file with its metadata; `meta` fields win over what the content suggests. Without a
 * promise or a read when the cache knows the file by its identity (every document but the edited
 * ones in an edit build: two promises a document were a good part of such a build's discovery).
 * Needs the MIME database loaded, unless the name's type is a common one (common-mime-types.ts).
 */
function loadResource(
  file: FileAt,
  relativePath: string,
  meta: Record<string, unknown> | undefined,
  store: FileResourceStore,
  documents: DocumentCache,
  walked: WalkedIdentities | undefined,
  /** `file` from the project's root, `/`-separated. */
  key: string,
  /** A path ending in the file's own name, which its MIME type is told by. */
  typedName: string,
): LoadedResource | Promise<LoadedResource> {
  const mimeType =
    (meta?.mimeType as string | undefined) ?? commonMimeTypeFor(typedName) ?? mimeTypes!.mimeTypeFor(typedName);
  return (
    loadUntouchedResource(file, relativePath, mimeType, meta, store, documents, walked, key) ??
    loadReadResource(file, relativePath, mimeType, meta, store, documents, key)
  );
}

/** loadResource when the cache knows the file by its identity; undefined when the file must be read. */
function loadUntouchedResource(
  file: FileAt,
  relativePath: string,
  mimeType: string,
  meta: Record<string, unknown> | undefined,
  store: FileResourceStore,
  documents: DocumentCache,
  walked: WalkedIdentities | undefined,
  key: string,
): LoadedResource | undefined {
  const known = untouchedDocument(file, key, mimeType, documents, walked);
  if (known === undefined || 'problem' in known) return known;
  return addResource(store, relativePath, mimeType, meta, known);
}

async function loadReadResource(
  file: FileAt,
  relativePath: string,
  mimeType: string,
  meta: Record<string, unknown> | undefined,
  store: FileResourceStore,
  documents: DocumentCache,
  key: string,
): Promise<LoadedResource> {
  const read = await readDocument(file.file, key, mimeType, store.projectRoot, documents);
  return 'problem' in read ? read : addResource(store, relativePath, mimeType, meta, read);
}

const NO_WARNINGS: readonly string[] = [];
const NO_PAGE: { pageUrl?: string; warning?: string } = {};

function addResource(
  store: FileResourceStore,
  relativePath: string,
  mimeType: string,
  meta: Record<string, unknown> | undefined,
  read: DocumentRead,
): LoadedResource {
  const summary: MarkdownSummary | undefined = read.parsed.summary;
  const page =
    meta?.url !== undefined
      ? checkPageUrl(meta.url as string, 'sidecar url')
      : summary?.pageUrl === undefined
        ? NO_PAGE
        : checkPageUrl(summary.pageUrl, 'front matter url');
  const problem = summary?.frontMatterProblem;
  const warnings =
    problem === undefined && page.warning === undefined
      ? NO_WARNINGS
      : [problem, page.warning].filter((warning) => warning !== undefined);
  const resource = store.add({
    relativePath,
    mimeType,
    text: read.parsed.text,
    stats: read.stats,
    sha256: read.sha256,
    title: summary?.title,
    description: summary?.description,
    pageUrl: page.pageUrl,
    overrides: meta && overridesOf(meta),
  });
  return { resource, warnings };
}

/** The listing fields a sidecar or registration sets (undefined: none). */
function overridesOf(meta: Record<string, unknown>): ResourceOverrides | undefined {
  const overrides: ResourceOverrides = {};
  for (const key of ['uri', 'name', 'title', 'description'] as const)
    if (typeof meta[key] === 'string') overrides[key] = meta[key];
  return Object.keys(overrides).length > 0 ? overrides : undefined;
}

function withoutWarnings(
  loaded: { resource: ProjectResource; warnings: readonly string[] },
  relativePath: string,
  warnings: ResourceDiscovery['warnings'],
): ProjectResource {
  for (const message of loaded.warnings) warnings.push({ relativePath, message });
  return loaded.resource;
}

/**
 * Every file under `resourcesRoot`, or, when server.d/register.json lists resources, exactly
 * those entries (each naming its file by `path` inside resources/).
 */
export async function discoverResources(
  resourcesRoot: string,
  registered?: RegisterEntry[],
  projectRoot = path.dirname(resourcesRoot),
  documents = DocumentCache.none(),
  /** The up-to-date walk's identities of the project's files (paths from projectRoot). */
  walked?: WalkedIdentities,
): Promise<ResourceDiscovery> {
  const resources: ProjectResource[] = [];
  const problems: ResourceDiscovery['problems'] = [];
  const warnings: ResourceDiscovery['warnings'] = [];
  const store = new FileResourceStore(resourcesRoot, projectRoot, documents.previousDocuments);
  const context = { resources, problems, warnings, store, documents, walked, projectRoot };
  // Each file's read, when it is written, checks it stays inside the project: against one realpath.
  store.realProjectRoot = await fs.realpath(projectRoot).catch(() => undefined);
  const counts = () => ({ parsed: documents.parsedCount, reused: documents.reusedCount });
  if (registered) {
    mimeTypes ??= await import('./mime-type.js');
    for (const entry of registered) {
      const file = path.join(resourcesRoot, entry.path!);
      const loaded = await loadResource(
        { file },
        entry.path!,
        entry,
        store,
        documents,
        walked,
        projectPathOf(projectRoot, file),
        file,
      );
      if ('problem' in loaded)
        problems.push({
          relativePath: entry.path!,
          message: `(registered in server.d/register.json) ${loaded.problem}`,
        });
      else resources.push(withoutWarnings(loaded, entry.path!, warnings));
    }
    return { resources, problems, warnings, documents: counts() };
  }

  const { files, notices, sidecars } = await walkFolder(resourcesRoot, {
    maxDepth: MAX_RESOURCE_DEPTH,
    tooDeepMessage: `is deeper than ${MAX_RESOURCE_DEPTH} levels; skipped`,
  });
  problems.push(...notices);
  const sharedStems = findSharedStems(files, sidecars);
  // A walked file's key is its folder's and its own relative path (one path.relative a build, not a file).
  const folderKey = projectPathOf(projectRoot, resourcesRoot);
  const keyPrefix = folderKey === '' ? '' : `${folderKey}/`;
  // Runs of untouched files are taken whole (resource-runs.ts): only where no sidecar can change one.
  const runs = await ResourceRuns.open(projectRoot, documents, walked, keyPrefix, sidecars.size === 0);
  try {
    await loadWalkedResources(files, { ...context, keyPrefix, runs, sharedStems, sidecars });
    runs?.save();
  } catch (error) {
    runs?.discard();
    throw error;
  }
  return { resources, problems, warnings, documents: counts() };
}

/** What loading the walked files shares. */
interface WalkedContext {
  resources: ProjectResource[];
  problems: ResourceDiscovery['problems'];
  warnings: ResourceDiscovery['warnings'];
  store: FileResourceStore;
  documents: DocumentCache;
  walked: WalkedIdentities | undefined;
  projectRoot: string;
  keyPrefix: string;
  runs: ResourceRuns | undefined;
  sharedStems: ReadonlySet<string>;
  sidecars: ReadonlySet<string>;
}

/** Each walked file as a resource (or a problem), in the walk's order: a saved run at once, else one by one. */
async function loadWalkedResources(files: readonly WalkedFile[], context: WalkedContext): Promise<void> {
  const { resources, problems, warnings, store, documents, walked, projectRoot, keyPrefix, runs } = context;
  const { sharedStems, sidecars } = context;
  for (let index = 0; index < files.length; ) {
    const taken = runs === undefined ? 0 : runs.take(files, index, store, resources);
    if (taken > 0) {
      index += taken;
      continue;
    }
    const walkedFile = files[index]!;
    index += 1;
    const { relativePath } = walkedFile;
    // No sidecar beside any file (the walk saw them all): none to look for, file by file.
    const { meta, problem, notice } =
      sidecars.size === 0
        ? NO_SIDECAR
        : await readSidecar(walkedFile.file, relativePath, sharedStems, projectRoot, sidecars);
    if (notice) warnings.push({ relativePath, message: notice });
    if (problem) {
      problems.push({ relativePath, message: problem });
      continue;
    }
    if (meta?.uriTemplate !== undefined) continue;
    // The database loads only for a name whose type it alone knows (common-mime-types.ts).
    if (commonMimeTypeFor(relativePath) === undefined) mimeTypes ??= await import('./mime-type.js');
    // The walked path ends in the file's name as its absolute path does: its MIME type is the same.
    const pending = loadResource(
      walkedFile,
      relativePath,
      meta,
      store,
      documents,
      walked,
      `${keyPrefix}${relativePath}`,
      relativePath,
    );
    const loaded = pending instanceof Promise ? await pending : pending;
    runs?.note(relativePath, loaded);
    if ('problem' in loaded) problems.push({ relativePath, message: loaded.problem });
    else resources.push(withoutWarnings(loaded, relativePath, warnings));
  }
}
