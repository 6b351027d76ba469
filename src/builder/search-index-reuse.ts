// Reusing the previous build's search index (issue #25: "a no-op rebuild does not rebuild the
// index"), the way pack-reuse.ts reuses a tool's packs. After a build that indexed, the project's
// .staticmcp/search-index.json records a digest of what the index was made from, the
// `staticmcp.search` extension it returned, the count of files the lister skipped (for its
// warning), and the identity of each index file in the output folder (inode, size, mtime, sha256).
// The next build's search step (search-index-step.ts) hard-links those files into the new tree and
// returns the recorded extension, without loading the index writer, making its scratch folder or
// reading a document, when the digest is the same and every recorded file is provably untouched.
// The digest covers everything the document lister (core/search/tree-documents.ts) reads: the
// manifest's resource list, the indexed tools' definitions and our extension's entries for them,
// and the files it can read (every file below resources/ and the indexed tools' call files), by
// the sha256 the tree writer already holds for each; plus the generator, the index format, the
// writer's targets and the settings. A prompt, a tool that is not indexed, the server's
// instructions can change without touching it. The index of one digest is byte-identical
// whichever build wrote it (the writer is deterministic and its output depends on nothing else),
// so a reused index is the one a fresh build writes. Why not a digest of the documents themselves:
// deciding from it costs a listing (reading and parsing every document file, ~5% of writing the
// index) on every rebuild, and a second listing on every miss; the file digests cost neither.
// Any doubt (no record, another output folder or generator, an edited record, a file touched,
// removed or swapped, a path outside the index's folder) means "write it again".
import { STEM_KEY_SUFFIX } from '../core/search/stem.js';
import { RESOURCE_LIST_FOLDER } from '../core/tree/resource-list.js';
import type { FileFilter } from '../tree-writer/content-hash.js';
import { LLMS_FILE, LLMS_FULL_FILE } from '../tree-writer/llms-txt.js';
import { createHash } from 'node:crypto';
import { type BigIntStats, promises as fs, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_TITLE_BLOCK_SIZE,
  SEARCH_FOLDER,
  SEARCH_INDEX_FORMAT,
  SEARCH_TABLE_INLINE_BYTES,
} from '../core/search/search-index-format.js';
import { type DocumentSettings, toolOfCallFile } from '../core/search/tree-documents.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { EXTENSION_KEY } from '../core/tree/manifest.js';
import { findTreePathProblem } from '../core/tree/tree-path.js';
import { DEFAULT_TARGET_INDEX_BYTES, DEFAULT_TARGET_PACK_BYTES } from '../tree-writer/pack-writer.js';
import type { SearchIndexExtension } from '../tree-writer/search-index-output.js';
import { isUntouched, type RecordedFile, recordedFileOf } from './recorded-file.js';
import {
  MAX_SCALED_INDEX_BYTES,
  MAX_SCALED_PACK_BYTES,
  SEARCH_FILE_LIMITS,
  TARGET_STEP_BYTES,
  TERM_INDEX_BYTES,
  TERM_PACK_BYTES,
  TITLE_INDEX_BYTES,
  TITLE_PACK_BYTES,
} from '../tree-writer/search-index-targets.js';

const RECORD_FILE = path.join('.staticmcp', 'search-index.json');
/** Where the index writer keeps each document's share between builds (search-kept-documents.ts). */
const KEPT_DOCUMENTS_FILE = path.join('.staticmcp', 'search-documents.bin');

/** The kept documents' file of the project at `projectRoot`. */
export function keptSearchDocumentsFile(projectRoot: string): string {
  return path.join(projectRoot, KEPT_DOCUMENTS_FILE);
}

/** One file of the recorded index, as it was in the output folder after the build. */
type RecordedIndexFile = RecordedFile;

/** What the search step made, or reused, for the record. */
export interface SearchIndexOutcome {
  inputs: string;
  /** Files the lister could not read as documents (the build's warning says how many). */
  skipped: number;
  extension: SearchIndexExtension;
  /** The index's files in the tree, sorted, with their content digests (hex). */
  files: { path: string; sha256: string }[];
  /** Linked from the previous tree (the files then are the recorded ones), not written. */
  reused: boolean;
  /** Each pack's key (part folder and digest of its records' inputs) and path (search-pack-reuse.ts). */
  packKeys?: Record<string, string>;
}

interface SearchIndexRecord {
  outDir: string;
  generator: string;
  inputs: string;
  skipped: number;
  extension: SearchIndexExtension;
  files: RecordedIndexFile[];
  packKeys?: Record<string, string>;
  /** sha256 of the fields above: a record edited by hand is not used. */
  check: string;
}

/** The recorded index found reusable: its files are still in the output folder, untouched. */
export interface ReusableSearchIndex {
  outDir: string;
  inputs: string;
  skipped: number;
  extension: SearchIndexExtension;
  files: readonly RecordedIndexFile[];
  /** Pack keys naming only files of `files` (search-pack-reuse.ts). */
  packKeys?: Readonly<Record<string, string>>;
}

/**
 * Everything of the writer and the settings that the index bytes depend on besides the
 * documents: the generator (name and version: the lister and the writer's code), the index format,
 * the writer's targets and the bounds its scaling keeps (the build uses the defaults; the scaled
 * targets follow from the documents), and the document settings.
 */
export function searchWriterIdentity(generator: string, settings: unknown): string {
  return JSON.stringify([
    generator,
    SEARCH_INDEX_FORMAT,
    // How stem keys are made: an index of another form is not reused.
    STEM_KEY_SUFFIX,
    DEFAULT_TARGET_PACK_BYTES,
    DEFAULT_TARGET_INDEX_BYTES,
    TERM_INDEX_BYTES,
    TERM_PACK_BYTES,
    SEARCH_FILE_LIMITS,
    TITLE_PACK_BYTES,
    TITLE_INDEX_BYTES,
    TARGET_STEP_BYTES,
    MAX_SCALED_PACK_BYTES,
    MAX_SCALED_INDEX_BYTES,
    DEFAULT_TITLE_BLOCK_SIZE,
    SEARCH_TABLE_INLINE_BYTES,
    settings,
  ]);
}

/** What of the manifest the lister reads: the resource list, and the indexed tools' definitions and extension entries. */
function listedManifestParts(manifest: JsonObject, indexed: (tool: string) => boolean): unknown {
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  const extension = isObject(manifest[EXTENSION_KEY]) ? manifest[EXTENSION_KEY] : {};
  const tools = Array.isArray(capabilities.tools) ? capabilities.tools : [];
  const extensionTools = isObject(extension.tools) ? extension.tools : {};
  return {
    resources: capabilities.resources ?? null,
    tools: tools.filter((tool) => !isObject(tool) || typeof tool.name !== 'string' || indexed(tool.name)),
    extension: {
      ...extension,
      tools: Object.fromEntries(Object.entries(extensionTools).filter(([name]) => indexed(name))),
    },
  };
}

/** Whether the lister may read `treePath`: a file below resources/ (or a resource list part), or a call file of an indexed tool. */
export function isDocumentFile(settings: DocumentSettings): FileFilter {
  const acceptedPrefixes = ['resources/', RESOURCE_LIST_FOLDER];
  const accepts = (treePath: string) => {
    if (acceptedPrefixes.some((prefix) => treePath.startsWith(prefix))) return true;
    const tool = toolOfCallFile(treePath);
    return tool !== undefined && Object.hasOwn(settings.tools, tool);
  };
  // The tree hash takes a path with one of these prefixes on its bytes (content-hash.ts hashSlotsBy).
  const identity = `documents\0${JSON.stringify([acceptedPrefixes, Object.keys(settings.tools).sort()])}`;
  return Object.assign(accepts, { acceptedPrefixes, identity });
}

/**
 * The digest of the index's inputs: the writer's identity, what of `manifest` the lister reads, and
 * `documentFilesHash`, the tree hash of the files isDocumentFile accepts (TreeWriter.hashWritten).
 */
export function searchInputsDigest(
  writerIdentity: string,
  manifest: JsonObject,
  settings: DocumentSettings,
  documentFilesHash: string,
): string {
  const indexed = (tool: string) => Object.hasOwn(settings.tools, tool);
  return createHash('sha256')
    .update(
      `inputs\0${writerIdentity}\0${JSON.stringify(listedManifestParts(manifest, indexed))}\0${documentFilesHash}`,
    )
    .digest('hex');
}

/** The tree paths the extension names (its rows' indexes, or its table file and title pack rows' file). */
function pathsNamedBy(extension: SearchIndexExtension): string[] | undefined {
  if ('table' in extension) {
    if (typeof extension.table !== 'string') return undefined;
    const { titlePackFile } = extension;
    if (titlePackFile !== undefined && typeof titlePackFile !== 'string') return undefined;
    return titlePackFile === undefined ? [extension.table] : [extension.table, titlePackFile];
  }
  const named: string[] = [];
  for (const kind of ['terms', 'titles', 'documents'] as const) {
    const rows = (extension as unknown as Record<string, unknown>)[kind];
    if (!Array.isArray(rows)) return undefined;
    for (const row of rows) {
      if (typeof row !== 'object' || row === null || typeof (row as { index?: unknown }).index !== 'string')
        return undefined;
      named.push((row as { index: string }).index);
    }
  }
  return named;
}

function checkOf(record: Omit<SearchIndexRecord, 'check'>): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        record.outDir,
        record.generator,
        record.inputs,
        record.skipped,
        record.extension,
        record.files,
        ...(record.packKeys === undefined ? [] : [record.packKeys]),
      ]),
    )
    .digest('hex');
}

/** The files the index step writes: the index's, and llms.txt and llms-full.txt made beside it. */
function isIndexOutputFile(treePath: string): boolean {
  return treePath.startsWith(SEARCH_FOLDER) || treePath === LLMS_FILE || treePath === LLMS_FULL_FILE;
}

/**
 * The previous build's index of `outDir` (resolved) when its record is intact, names only files
 * below packs/search.index/, and each of them is still there untouched (same inode, size, mtime);
 * otherwise undefined. Never throws.
 */
export async function readReusableSearchIndex(
  projectRoot: string,
  outDir: string,
  generator: string,
): Promise<ReusableSearchIndex | undefined> {
  let record: SearchIndexRecord;
  try {
    record = JSON.parse(await fs.readFile(path.join(projectRoot, RECORD_FILE), 'utf8')) as SearchIndexRecord;
  } catch {
    return undefined;
  }
  try {
    if (typeof record !== 'object' || record === null) return undefined;
    if (record.outDir !== outDir || record.generator !== generator) return undefined;
    if (typeof record.inputs !== 'string') return undefined;
    if (!Number.isSafeInteger(record.skipped) || record.skipped < 0) return undefined;
    if (typeof record.extension !== 'object' || record.extension === null || !Array.isArray(record.files))
      return undefined;
    if (record.check !== checkOf(record)) return undefined;
    const paths = new Set<string>();
    for (const file of record.files) {
      if (typeof file?.path !== 'string' || typeof file.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(file.sha256))
        return undefined;
      // The record is the project's own file, but it must never put a file from elsewhere into the tree.
      if (findTreePathProblem(file.path) !== undefined || !isIndexOutputFile(file.path)) return undefined;
      if (!isUntouched(path.join(outDir, file.path), file)) return undefined;
      paths.add(file.path);
    }
    const named = pathsNamedBy(record.extension);
    if (named === undefined || named.length === 0 || !named.every((named) => paths.has(named))) return undefined;
    const { inputs, skipped, extension, files } = record;
    const packKeys = packKeysOf(record.packKeys, paths);
    return { outDir, inputs, skipped, extension, files, ...(packKeys ? { packKeys } : {}) };
  } catch {
    return undefined;
  }
}

/** The record's pack keys that name a file of `paths` (a key of another shape, or naming another file, is left out). */
function packKeysOf(packKeys: unknown, paths: ReadonlySet<string>): Record<string, string> | undefined {
  if (typeof packKeys !== 'object' || packKeys === null) return undefined;
  const kept: Record<string, string> = {};
  for (const [key, packPath] of Object.entries(packKeys))
    if (typeof packPath === 'string' && paths.has(packPath) && /^[a-z./-]+[0-9a-f]{64}$/.test(key))
      kept[key] = packPath;
  return kept;
}

/**
 * Records the index now in `outDir` (after the swap, or after a build that found the tree
 * unchanged), each file's identity taken from the output folder; undefined (no index): the record
 * goes. `verifyContent`: the files in the output folder were not put there by this build (it found
 * the tree unchanged and wrote the index anew), so each is read and compared with its digest first.
 */
export async function recordSearchIndex(
  projectRoot: string,
  outDir: string,
  generator: string,
  outcome: SearchIndexOutcome | undefined,
  verifyContent: boolean,
): Promise<void> {
  const file = path.join(projectRoot, RECORD_FILE);
  const forget = () => fs.rm(file, { force: true });
  if (outcome === undefined) return forget();
  const files: RecordedIndexFile[] = [];
  for (const written of outcome.files) {
    let stats: BigIntStats;
    try {
      const absolute = path.join(outDir, written.path);
      stats = lstatSync(absolute, { bigint: true });
      if (
        !stats.isFile() ||
        (verifyContent && createHash('sha256').update(readFileSync(absolute)).digest('hex') !== written.sha256)
      )
        return forget();
    } catch {
      // Gone already (something else wrote the folder): nothing to reuse.
      return forget();
    }
    files.push(recordedFileOf(written.path, written.sha256, stats));
  }
  const { inputs, skipped, extension, packKeys } = outcome;
  const fields = { outDir, generator, inputs, skipped, extension, files, ...(packKeys ? { packKeys } : {}) };
  const record: SearchIndexRecord = { ...fields, check: checkOf(fields) };
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(record));
  await fs.rename(temp, file);
}
