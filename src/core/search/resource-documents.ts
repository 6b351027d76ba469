// The search documents of a tree's resources (tree-documents.ts lists them first, then the calls),
// handed on in batches: each document an async generator yields is promises made and settled, and
// an edit build lists every unchanged document of a large project. A list part whose entries the
// build's kept sources vouch for as a whole (KeptSources.takeListRun: the same part bytes, and
// files with the same digests, as the previous build's documents at consecutive arrivals) is listed
// with each document's source digest from the previous build's edit state: no source key is
// spelled or hashed, nor looked up, a document. Portable: it reads through `TreeDocumentFiles`.
import { isObject, type JsonObject } from '../tree/json-object.js';
import { isAppResource } from '../tree/mcp-apps.js';
import { isSkillUri } from '../tree/skills.js';
import { EXTENSION_KEY, isOurExtension } from '../tree/manifest.js';
import { resourceFilePaths } from '../tree/resource-key.js';
import { resourceEntryLists } from '../tree/resource-list.js';
import { callKeyOf, KEY_KIND } from '../packs/pack-format.js';
import { DEFAULT_PACK_CACHE_LIMITS, PackReader } from '../packs/pack-reader.js';
import { RESOURCE_PACK_GROUP } from '../packs/pack-table.js';
import type { IndexedDocument } from './search-results.js';
import { ListedUris } from './listed-uris.js';
import { DOCUMENT_URL_META_KEY, documentViewUrl, MOVED_LANDING_FILE } from './document-url.js';
import {
  KeptResourceDocument,
  keptResourceDocument,
  parseJson,
  resourceText,
  sourceKeyOf,
} from './resource-document-source.js';
import type { DocumentSettings, TreeDocumentFiles } from './tree-document-files.js';

/**
 * Documents a batch holds at most, and the text (UTF-16 units) of the documents read for it: a
 * read document waits in its batch across collections of the young generation, and a batch of
 * much text got its documents promoted to the old one, raising a first build's peak.
 */
const BATCH_DOCUMENTS = 256;
const BATCH_TEXT_UNITS = 1 << 13;
const DIGEST_BYTES = 32;

/** Whether the tree is ours (it has the landing page's document view), and where that page is. */
export interface ViewSite {
  ours: boolean;
  landingFile: string;
}

export function viewSiteOf(files: TreeDocumentFiles): ViewSite {
  const extension = isObject(files.manifest[EXTENSION_KEY]) ? files.manifest[EXTENSION_KEY] : undefined;
  return { ours: isOurExtension(extension), landingFile: files.has(MOVED_LANDING_FILE) ? MOVED_LANDING_FILE : '' };
}

export function urlOf(settings: DocumentSettings, id: string, site: ViewSite, page?: unknown): string {
  if (typeof page === 'string' && page !== '') return page;
  if (site.ours) return documentViewUrl(id, site.landingFile);
  return settings.publicUrl ? `${settings.publicUrl}/${id}` : '';
}

export async function readOrSkip(
  files: TreeDocumentFiles,
  treePath: string,
  onSkip: (treePath: string, reason: string) => void,
): Promise<Uint8Array | undefined> {
  try {
    return await files.read(treePath);
  } catch (error) {
    onSkip(treePath, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

/**
 * A resource file from the tree's resource packs (`staticmcp index` over a packed tree: the build
 * and merge index before they pack); null when the packs do not hold it either, undefined when
 * they cannot be read (told to onSkip).
 */
async function readPackedResource(
  files: TreeDocumentFiles,
  treePath: string,
  onSkip: (treePath: string, reason: string) => void,
): Promise<Uint8Array | null | undefined> {
  const rows = files.packs?.get(RESOURCE_PACK_GROUP);
  if (rows === undefined || files.packFiles === undefined) return null;
  let reader = packReaders.get(files);
  if (!reader) {
    reader = new PackReader(files.packFiles, DEFAULT_PACK_CACHE_LIMITS);
    packReaders.set(files, reader);
  }
  const found = await reader.lookup(rows, KEY_KIND.call, callKeyOf(treePath), treePath).catch((error: unknown) => ({
    status: 'refused' as const,
    reason: error instanceof Error ? error.message : String(error),
  }));
  if (found.status === 'ok') return found.body;
  if (found.status === 'missing') return null;
  onSkip(treePath, found.reason);
  return undefined;
}

/** One pack reader per tree being listed (its index cache shared by the tree's resources). */
const packReaders = new WeakMap<TreeDocumentFiles, PackReader>();

/** A list entry to make a document of: what its manifest entry says. */
interface ListedResource {
  resource: JsonObject;
  uri: string;
  title: string;
  declaredMime: string | undefined;
  candidates: readonly string[];
}

/** Whether a document carries a source key (a kept one spells it only when asked). */
function hasSourceKey(document: IndexedDocument): boolean {
  return document instanceof KeptResourceDocument || document.sourceKey !== undefined;
}

/** The text a batch holds of a document: none for a kept one (read only when asked for). */
function textUnitsOf(document: IndexedDocument): number {
  return document instanceof KeptResourceDocument ? 0 : document.text.length;
}

/**
 * The documents of the tree's resources, in batches, in list order. Skipped files are told to
 * `onSkip` (path, why).
 */
export async function* resourceDocumentBatches(
  files: TreeDocumentFiles,
  settings: DocumentSettings,
  onSkip: (treePath: string, reason: string) => void,
): AsyncGenerator<IndexedDocument[]> {
  const { manifest, keptSources } = files;
  const extension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : undefined;
  const ours = isOurExtension(extension);
  const stateResources = isObject(extension?.stateResources) ? extension.stateResources : {};
  // Asked once: the tree's files do not change while its documents are listed.
  const site = viewSiteOf(files);
  // What a list entry's document is made of besides the entry and its file: a run is kept under it.
  const context = JSON.stringify([ours, site.landingFile, settings.publicUrl ?? null]);
  const readList = async (treePath: string): Promise<unknown> => {
    const bytes = files.has(treePath) ? await files.read(treePath) : undefined;
    return bytes === undefined ? undefined : (parseJson(bytes)?.value ?? null);
  };
  // The URIs listed so far (a repeated one is skipped): the last one while they ascend (listed-uris.ts).
  const seen = new ListedUris(() => resourceEntryLists(manifest, readList));
  // The part whose entries come next: resourceEntryLists reads a part, then hands on its entries.
  let part: string | undefined;
  const readPart = (treePath: string): Promise<unknown> => {
    part = treePath;
    return readList(treePath);
  };
  const pageOf = (resource: JsonObject, id: string) =>
    urlOf(settings, id, site, isObject(resource._meta) ? resource._meta[DOCUMENT_URL_META_KEY] : undefined);
  /** Documents handed on so far: the index writer's arrival of the next one. */
  let arrivals = 0;
  let batch: IndexedDocument[] = [];
  let batchText = 0;
  // The inline list, then the parts our extension names (core/tree/resource-list.ts).
  for await (const entries of resourceEntryLists(manifest, readPart, onSkip)) {
    // Runs are kept of parts alone: the inline list sits in mcp.json, which changes every build.
    let runnable = part !== undefined && keptSources?.takeListRun !== undefined;
    const fileDigests = runnable ? new Uint8Array(DIGEST_BYTES * entries.length) : undefined;
    const listed: ListedResource[] = [];
    for (const resource of entries) {
      if (!isObject(resource) || typeof resource.uri !== 'string') {
        runnable = false;
        continue;
      }
      const added = seen.add(resource.uri);
      if (!(typeof added === 'boolean' ? added : await added)) {
        runnable = false;
        continue;
      }
      const { uri } = resource;
      // Read live from the project: no file to index. An MCP App's page is a UI, not a document.
      // A skill's files are instructions an agent loads through the Skills extension, not documents.
      if (Object.hasOwn(stateResources, uri) || isAppResource(resource) || isSkillUri(uri)) {
        runnable = false;
        continue;
      }
      const declaredMime = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
      const title =
        typeof resource.title === 'string' ? resource.title : typeof resource.name === 'string' ? resource.name : uri;
      const candidates = resourceFilePaths(uri, ours);
      if (runnable) {
        const id = candidates[0];
        // Copied at once: a digest is a view of the writer's, valid until the next one is read.
        const digest = declaredMime !== undefined && id !== undefined ? keptSources!.digestOf(id) : undefined;
        if (digest?.length === DIGEST_BYTES) fileDigests!.set(digest, DIGEST_BYTES * listed.length);
        else runnable = false;
      }
      listed.push({ resource, uri, title, declaredMime, candidates });
    }
    const sourceAt = runnable ? keptSources!.takeListRun!(part!, context, fileDigests!, listed.length) : undefined;
    const first = arrivals;
    let allKept = runnable;
    for (let position = 0; position < listed.length; position += 1) {
      const item = listed[position]!;
      const document =
        sourceAt === undefined
          ? await resourceDocument(files, item, pageOf, onSkip)
          : new KeptResourceDocument(
              keptSources!,
              item.candidates[0]!,
              item.title,
              pageOf(item.resource, item.candidates[0]!),
              item.uri,
              item.declaredMime!,
              { digests: fileDigests!, at: DIGEST_BYTES * position },
              sourceAt(position),
            );
      if (document === undefined) {
        allKept = false;
        continue;
      }
      if (allKept && !hasSourceKey(document)) allKept = false;
      batch.push(document);
      arrivals += 1;
      batchText += textUnitsOf(document);
      if (batch.length >= BATCH_DOCUMENTS || batchText >= BATCH_TEXT_UNITS) {
        yield batch;
        batch = [];
        batchText = 0;
      }
    }
    // Every entry made a kept document, at arrivals [first, arrivals): the next build's run.
    if (allKept) keptSources!.noteListRun?.(part!, context, fileDigests!, first, listed.length);
  }
  if (batch.length > 0) yield batch;
}

/** The document of one list entry, from the kept sources or its file; undefined when it has none (told to onSkip). */
async function resourceDocument(
  files: TreeDocumentFiles,
  item: ListedResource,
  pageOf: (resource: JsonObject, id: string) => string,
  onSkip: (treePath: string, reason: string) => void,
): Promise<IndexedDocument | undefined> {
  const { resource, uri, title, declaredMime, candidates } = item;
  // keptResourceDocument asks for the first candidate's digest, which only a file the tree has has.
  if (files.keptSources !== undefined && candidates[0] !== undefined) {
    const kept = keptResourceDocument(files.keptSources, candidates, {
      uri,
      title,
      url: (id) => pageOf(resource, id),
      mimeType: declaredMime,
    });
    if (kept !== undefined) return kept;
  }
  let found: { id: string; bytes: Uint8Array } | undefined;
  for (const candidate of candidates) {
    const bytes = files.has(candidate)
      ? await readOrSkip(files, candidate, onSkip)
      : await readPackedResource(files, candidate, onSkip);
    if (bytes === null) continue;
    if (bytes !== undefined) found = { id: candidate, bytes };
    break;
  }
  if (found === undefined) {
    onSkip(candidates.at(-1) ?? uri, `the file of the resource ${uri} is not in the tree`);
    return undefined;
  }
  const read = resourceText(found.bytes, uri, declaredMime);
  if (read === undefined) {
    onSkip(found.id, 'is not JSON');
    return undefined;
  }
  // Binary resources are not documents.
  if (read.text === undefined) return undefined;
  const { contents } = read;
  const mimeType = declaredMime ?? (typeof contents[0]?.mimeType === 'string' ? contents[0].mimeType : undefined);
  const url = pageOf(resource, found.id);
  const digest = files.keptSources?.digestOf(found.id);
  return {
    id: found.id,
    title,
    text: read.text,
    url,
    metadata: { uri, ...(mimeType !== undefined ? { mimeType } : {}) },
    // Kept under it for the next build, which then need not read the file.
    ...(mimeType !== undefined && declaredMime !== undefined && digest !== undefined && found.id === candidates[0]
      ? { sourceKey: sourceKeyOf(found.id, title, url, uri, mimeType, digest) }
      : {}),
  };
}
