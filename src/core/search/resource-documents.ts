// The search documents of a tree's resources (tree-documents.ts lists them first, then the calls),
// handed on in batches: each document an async generator yields is promises made and settled, and
// an edit build lists every unchanged document of a large project. A run of list entries
// (RUN_END_BITS) whose documents the build's kept sources vouch for as a whole (KeptSources.takeListRun:
// the same entries, as far as a document is made of them, and files with the same digests, as the
// previous build's documents at consecutive arrivals) is listed with each document's source digest
// from the previous build's edit state: no source key is spelled or hashed, nor looked up, a
// document. Runs are cut within a list part, not made of whole parts: an edit changes its entry's
// part (its size), and only its own run then goes the slow way. Portable: it reads through
// `TreeDocumentFiles`.
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
/**
 * A list run ends after an entry whose file digest's first byte is 0 in these bits (one entry in
 * 64 on average): where runs end follows the entries, not their positions, so an entry added or
 * removed misses its own run, not every later one of its part. An edit lists the other entries of
 * its run one at a time; each run is a key and a lookup, and a few bytes in the edit state.
 */
const RUN_END_BITS = 63;
/** The most entries a list run holds (runs end there too, whatever the digests). */
export const LIST_RUN_MAX_ENTRIES = 256;

/** Where the run that starts at entry `start` of `count` ends (RUN_END_BITS), its file digests in `fileDigests`. */
function runEndOf(start: number, count: number, fileDigests: Uint8Array): number {
  let end = start + 1;
  while (
    end < count &&
    end - start < LIST_RUN_MAX_ENTRIES &&
    (fileDigests[DIGEST_BYTES * (end - 1)]! & RUN_END_BITS) !== 0
  )
    end += 1;
  return end;
}

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

/**
 * What a list entry's document is made of besides the build's context and its file: its URI (its
 * id), title, declared media type and page; each length-prefixed, so run texts that differ hash apart.
 */
function runTextOf(uri: string, title: string, mimeType: string, resource: JsonObject): string {
  const declared = isObject(resource._meta) ? resource._meta[DOCUMENT_URL_META_KEY] : undefined;
  const page = typeof declared === 'string' ? declared : '';
  return `${uri.length},${uri}${title.length},${title}${mimeType.length},${mimeType}${page.length},${page}`;
}

/** The run text of `listed[start, end)` under `context` (each entry's is runTextOf's). */
function runTextOfEntries(context: string, listed: readonly ListedResource[], start: number, end: number): string {
  let text = `${context}\0`;
  for (let position = start; position < end; position += 1) {
    const { uri, title, declaredMime, resource } = listed[position]!;
    text += runTextOf(uri, title, declaredMime!, resource);
  }
  return text;
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
  const pageOf = (resource: JsonObject, id: string) =>
    urlOf(settings, id, site, isObject(resource._meta) ? resource._meta[DOCUMENT_URL_META_KEY] : undefined);
  /** Documents handed on so far: the index writer's arrival of the next one. */
  let arrivals = 0;
  let batch: IndexedDocument[] = [];
  let batchText = 0;
  // The inline list, then the parts our extension names (core/tree/resource-list.ts).
  for await (const entries of resourceEntryLists(manifest, readList, onSkip)) {
    let runnable = keptSources?.takeListRun !== undefined;
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
    /** The run the next entries belong to: its text, its entries [start, end), and its first arrival. */
    let run = { text: '', digests: new Uint8Array(0), start: 0, end: 0, first: 0, kept: false };
    let sourceAt: ((position: number) => Uint8Array) | undefined;
    for (let position = 0; position < listed.length; position += 1) {
      if (position === run.end) {
        const end = runnable ? runEndOf(position, listed.length, fileDigests!) : listed.length;
        // Spelled as its run starts, not for the whole part first: a part's texts outlived young collections.
        const text = runnable ? runTextOfEntries(context, listed, position, end) : '';
        const digests = runnable
          ? fileDigests!.subarray(DIGEST_BYTES * position, DIGEST_BYTES * end)
          : new Uint8Array(0);
        run = { text, digests, start: position, end, first: arrivals, kept: runnable };
        sourceAt = runnable ? keptSources!.takeListRun!(text, digests, end - position) : undefined;
      }
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
              sourceAt(position - run.start),
            );
      if (document !== undefined) {
        if (run.kept && !hasSourceKey(document)) run.kept = false;
        batch.push(document);
        arrivals += 1;
        batchText += textUnitsOf(document);
      } else run.kept = false;
      // Every entry of the run made a kept document, at arrivals [first, arrivals): the next build's run.
      // The same text and digests as takeListRun's: their digests are made once.
      if (position + 1 === run.end && run.kept)
        keptSources!.noteListRun?.(run.text, run.digests, run.first, run.end - run.start);
      if (batch.length >= BATCH_DOCUMENTS || batchText >= BATCH_TEXT_UNITS) {
        yield batch;
        batch = [];
        batchText = 0;
      }
    }
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
