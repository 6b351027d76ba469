// Writes a tree's search index (core/search/search-index-format.ts) from its documents: the term,
// title and document records packed into content-addressed packs and indexes below
// packs/search.index/, and the `staticmcp.search` value for mcp.json. Deterministic: documents are
// numbered by id, records sorted by key, file names are content hashes, so the same documents give
// byte-identical files whatever order they came in. Pack and index boundaries are content-defined
// (a record closes its pack once the pack holds half the target and its key's hash hits a mask, or
// when the pack reaches the target), so one edited document renames the packs its terms fall in,
// not every pack after them. Holds the whole corpus in memory (the inverted index, then the
// encoded records): the build uses search-index-spill-writer.ts, which writes the same bytes in
// memory flat with the corpus; this one stays as the reference it is tested against, and for
// indexes made in memory (tests, benches).
import { createHash } from 'node:crypto';
import {
  callKeyOf,
  compareKeys,
  encodeIndex,
  encodePack,
  encodeRecord,
  hexOfBytes,
  type IndexEntryInput,
  INDEX_ENTRY_BYTES,
  KEY_KIND,
  type KeyKind,
  PACK_HEADER_BYTES,
} from '../core/packs/pack-format.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import { averageLengthOf, encodePostings, type Posting } from '../core/search/postings.js';
import {
  DEFAULT_TITLE_BLOCK_SIZE,
  SEARCH_FOLDER,
  SEARCH_INDEX_FORMAT,
  SEARCH_TABLE_INLINE_BYTES,
  titleBlockEntryOf,
  titleBlockKeyOf,
} from '../core/search/search-index-format.js';
import { encodeDocumentBody, type IndexedDocument } from '../core/search/search-results.js';
import { tokenize } from '../core/search/tokenize.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { sipHash13Halves } from '../core/tree/siphash.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { DEFAULT_TARGET_INDEX_BYTES, DEFAULT_TARGET_PACK_BYTES, MAX_PACK_BYTES } from './pack-writer.js';
import {
  MAX_SCALED_INDEX_BYTES,
  MAX_SCALED_PACK_BYTES,
  SEARCH_FILE_LIMITS,
  type SearchPartFileLimits,
  TARGET_STEP_BYTES,
  TERM_INDEX_BYTES,
  TITLE_INDEX_BYTES,
  TITLE_PACK_BYTES,
} from './search-index-targets.js';

/**
 * A document to index: what fetch will return for it (its text read from its call when
 * `textFrom` is "call"). Its id must be a plain tree path.
 */
export type SearchDocument = IndexedDocument;

export interface SearchIndexOptions {
  targetPackBytes?: number;
  /** Target bytes of the title and document indexes (default TITLE_INDEX_BYTES and DEFAULT_TARGET_INDEX_BYTES). */
  targetIndexBytes?: number;
  /** Target bytes of the term indexes (default TERM_INDEX_BYTES). */
  targetTermIndexBytes?: number;
  blockSize?: number;
  /** Rows' JSON above this goes to a table file (default SEARCH_TABLE_INLINE_BYTES). */
  inlineTableBytes?: number;
}

// The writer's targets and bounds live in search-index-targets.ts, which the build's reuse digest
// (builder/search-index-reuse.ts) reads without loading this module.
export { SEARCH_FILE_LIMITS, TERM_INDEX_BYTES } from './search-index-targets.js';

/** The rows of a search table, inline in mcp.json or in its table file. */
export interface SearchIndexRows {
  terms: PackTableRow[];
  titles: PackTableRow[];
  documents: PackTableRow[];
}

/** mcp.json's `staticmcp.search`: the rows inline, or `table` naming the file that holds them. */
export type SearchIndexExtension = {
  format: typeof SEARCH_INDEX_FORMAT;
  documentCount: number;
  tokenCount: number;
  blockSize: number;
} & (SearchIndexRows | { table: string });

export interface SearchIndexOutput {
  /** Tree path → bytes, sorted by path. */
  files: { path: string; bytes: Uint8Array }[];
  extension: SearchIndexExtension;
}

export interface KeyedRecord {
  key: Uint8Array;
  name: string;
  body: Uint8Array;
}

/** The index of `documents`. Throws when an id is not a plain tree path or repeats, or a document passes MAX_PACK_BYTES. */
export function writeSearchIndex(
  documents: readonly SearchDocument[],
  options: SearchIndexOptions = {},
): SearchIndexOutput {
  const targetPackBytes = options.targetPackBytes ?? DEFAULT_TARGET_PACK_BYTES;
  const targetIndexBytes = options.targetIndexBytes ?? DEFAULT_TARGET_INDEX_BYTES;
  const targetTermIndexBytes = options.targetTermIndexBytes ?? TERM_INDEX_BYTES;
  const blockSize = options.blockSize ?? DEFAULT_TITLE_BLOCK_SIZE;
  const numbered = documents.map((document) => {
    assertPlainTreePath(document.id, 'A search document id');
    return { document, idBytes: utf8Bytes(document.id) };
  });
  numbered.sort((left, right) => compareKeys(left.idBytes, right.idBytes));
  for (let position = 1; position < numbered.length; position += 1) {
    if (numbered[position - 1]!.document.id === numbered[position]!.document.id)
      throw new Error(`two search documents have the id ${numbered[position]!.document.id}`);
  }

  // The inverted index: term → its postings in document order (documents are visited in order).
  const postingsOf = new Map<string, Posting[]>();
  let tokenCount = 0;
  numbered.forEach(({ document }, number) => {
    // Title and text are one column: no title boost, as the FTS5 comparison assumes.
    const terms = tokenize(`${document.title}\n${document.text}`);
    tokenCount += terms.length;
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    for (const [term, termFrequency] of frequencies) {
      let list = postingsOf.get(term);
      if (list === undefined) {
        list = [];
        postingsOf.set(term, list);
      }
      list.push({ document: number, termFrequency, documentLength: terms.length });
    }
  });
  const averageLength = averageLengthOf({ documentCount: numbered.length, tokenCount });
  const termRecords: KeyedRecord[] = [...postingsOf].map(([term, postings]) => ({
    key: utf8Bytes(term),
    name: term,
    body: encodePostings(postings, averageLength),
  }));
  termRecords.sort((left, right) => compareKeys(left.key, right.key));

  const titleRecords: KeyedRecord[] = [];
  for (let start = 0; start < numbered.length; start += blockSize) {
    let previousId = '';
    const block = numbered.slice(start, start + blockSize).map(({ document }) => {
      const entry = titleBlockEntryOf(previousId, document);
      previousId = document.id;
      return entry;
    });
    const name = titleBlockKeyOf(start / blockSize);
    titleRecords.push({ key: utf8Bytes(name), name, body: utf8Bytes(JSON.stringify(block)) });
  }

  const documentRecords: KeyedRecord[] = numbered.map(({ document }) => ({
    key: callKeyOf(document.id),
    name: document.id,
    body: utf8Bytes(encodeDocumentBody(document)),
  }));
  documentRecords.sort((left, right) => compareKeys(left.key, right.key) || compareStrings(left.name, right.name));

  const targets = { targetPackBytes, targetIndexBytes };
  const terms = packSortedRecords(
    `${SEARCH_FOLDER}terms/`,
    KEY_KIND.term,
    termRecords,
    { targetPackBytes, targetIndexBytes: targetTermIndexBytes },
    SEARCH_FILE_LIMITS.terms,
  );
  const titles = packSortedRecords(
    `${SEARCH_FOLDER}titles/`,
    KEY_KIND.term,
    titleRecords,
    {
      targetPackBytes: options.targetPackBytes ?? TITLE_PACK_BYTES,
      targetIndexBytes: options.targetIndexBytes ?? TITLE_INDEX_BYTES,
    },
    SEARCH_FILE_LIMITS.titles,
  );
  const stored = packSortedRecords(
    `${SEARCH_FOLDER}documents/`,
    KEY_KIND.call,
    documentRecords,
    targets,
    SEARCH_FILE_LIMITS.documents,
  );
  const files = [...terms.files, ...titles.files, ...stored.files];
  const rows: SearchIndexRows = { terms: terms.rows, titles: titles.rows, documents: stored.rows };
  const { extension, tableFile } = searchExtensionOf(numbered.length, tokenCount, blockSize, rows, options);
  if (tableFile !== undefined) files.push(tableFile);
  files.sort((left, right) => compareStrings(left.path, right.path));
  return { files, extension };
}

/** mcp.json's `staticmcp.search` for the rows, and the table file holding them when they are too long to inline. */
export function searchExtensionOf(
  documentCount: number,
  tokenCount: number,
  blockSize: number,
  rows: SearchIndexRows,
  options: Pick<SearchIndexOptions, 'inlineTableBytes'>,
): { extension: SearchIndexExtension; tableFile?: { path: string; bytes: Uint8Array } } {
  const counts = { format: SEARCH_INDEX_FORMAT, documentCount, tokenCount, blockSize } as const;
  const rowsBytes = utf8Bytes(JSON.stringify(rows));
  if (rowsBytes.length <= (options.inlineTableBytes ?? SEARCH_TABLE_INLINE_BYTES))
    return { extension: { ...counts, ...rows } };
  const table = `${SEARCH_FOLDER}${contentName(rowsBytes)}.table.json`;
  return { extension: { ...counts, table }, tableFile: { path: table, bytes: rowsBytes } };
}

export function contentName(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

export function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A key's own hash (low half of SipHash-1-3): where content-defined boundaries fall. */
export function boundaryHash(key: Uint8Array): number {
  return sipHash13Halves(key)[1];
}

/**
 * The power-of-two divisor that makes a boundary hit about every (target / 2) bytes of items of
 * `averageBytes`; a power of two, so a small edit that moves the average a little leaves it be.
 */
export function boundaryDivisor(target: number, averageBytes: number): number {
  const wanted = target / 2 / Math.max(1, averageBytes);
  return wanted <= 1 ? 1 : 2 ** Math.round(Math.log2(wanted));
}

/** A part's record counts and bytes: where its boundaries fall depends on them. */
export interface PartTotals {
  count: number;
  /** Encoded records' bytes. */
  totalBytes: number;
  keyBytes: number;
}

/** Walks a part's records in key order: each key and its encoded record's bytes. */
export type VisitRecordSizes = (visit: (key: Uint8Array, recordBytes: number) => void) => void;

/** Where a part's packs and indexes close: both writers (here and the spilling one) cut by it. */
export interface PartBoundaries {
  /** Whether a pack of `size` bytes closes after the record whose key hashed to `hash`. */
  closesPack(size: number, hash: number): boolean;
  /** The same for an index of `size` entry bytes (an index may reach twice its target). */
  closesIndex(size: number, hash: number): boolean;
}

function boundariesAt(targetPackBytes: number, targetIndexBytes: number, totals: PartTotals): PartBoundaries {
  const packDivisor = boundaryDivisor(targetPackBytes, totals.totalBytes / totals.count);
  const indexDivisor = boundaryDivisor(targetIndexBytes, INDEX_ENTRY_BYTES + totals.keyBytes / totals.count);
  return {
    closesPack: (size, hash) => size >= targetPackBytes || (size >= targetPackBytes / 2 && hash % packDivisor === 0),
    closesIndex: (size, hash) =>
      size >= targetIndexBytes * 2 || (size >= targetIndexBytes / 2 && hash % indexDivisor === 0),
  };
}

/**
 * The least targets, from `targets` up in steps, at which the part's records make at most
 * `limits` packs and indexes, found by counting what a target would make (a pass over the record
 * sizes per target tried, bisecting between the base and the ceiling). Fewer, larger files than
 * needed cost every query on a host that ignores byte ranges (it streams a term's pack up to its
 * record): bounding the count by "every file but the last holds half its target" made the
 * 650,000-document term packs ~740 KB where smaller ones fit the limit. That bound is the ceiling,
 * taken without counting. Counts fall as targets grow, nearly always: where they do not, the
 * target chosen still fits, as every target chosen was counted or is the ceiling.
 */
export function fitPartBoundaries(
  targets: { targetPackBytes: number; targetIndexBytes: number },
  totals: PartTotals,
  limits: SearchPartFileLimits,
  visitSizes: VisitRecordSizes,
): PartBoundaries {
  const indexBytes = totals.count * INDEX_ENTRY_BYTES + totals.keyBytes;
  const pack = new TargetSearch(targets.targetPackBytes, totals.totalBytes, limits.maxPacks, MAX_SCALED_PACK_BYTES);
  const index = new TargetSearch(targets.targetIndexBytes, indexBytes, limits.maxIndexes, MAX_SCALED_INDEX_BYTES);
  while (!pack.found || !index.found) {
    const files = countFiles(boundariesAt(pack.trying, index.trying, totals), visitSizes);
    pack.learn(files.packs);
    index.learn(files.indexes);
  }
  return boundariesAt(pack.target, index.target, totals);
}

/**
 * Bisects the steps from `base` (or TARGET_STEP_BYTES when smaller) to the ceiling that surely
 * fits `bytes` in `maxFiles` files (every file but the last holds half its target), within `max`.
 */
class TargetSearch {
  private readonly step: number;
  /** Step counts: `low` is not known to fit (or is the base, untried), `high` fits. */
  private low = 0;
  private high: number;
  private lowTried = false;

  constructor(
    private readonly base: number,
    bytes: number,
    private readonly maxFiles: number,
    private readonly max: number,
  ) {
    this.step = Math.min(base, TARGET_STEP_BYTES);
    const needed = Math.ceil((2 * bytes) / maxFiles);
    this.high = needed <= base ? 0 : Math.ceil((Math.min(needed, max) - base) / this.step);
  }

  get found(): boolean {
    return this.high - this.low <= (this.lowTried ? 1 : 0);
  }

  /** The target the next count is for (any, once found). */
  get trying(): number {
    return this.targetOf(this.lowTried ? (this.low + this.high) >> 1 : this.low);
  }

  get target(): number {
    return this.targetOf(this.high);
  }

  learn(files: number): void {
    if (this.found) return;
    const tried = this.lowTried ? (this.low + this.high) >> 1 : this.low;
    if (files <= this.maxFiles) this.high = tried;
    else this.low = tried;
    this.lowTried = true;
  }

  private targetOf(steps: number): number {
    return Math.max(this.base, Math.min(this.max, this.base + steps * this.step));
  }
}

/** The packs and indexes the part's records make with `boundaries`. */
function countFiles(boundaries: PartBoundaries, visitSizes: VisitRecordSizes): { packs: number; indexes: number } {
  let packs = 0;
  let indexes = 0;
  let packSize = PACK_HEADER_BYTES;
  let indexSize = 0;
  visitSizes((key, recordBytes) => {
    const hash = boundaryHash(key);
    packSize += recordBytes;
    if (boundaries.closesPack(packSize, hash)) {
      packs += 1;
      packSize = PACK_HEADER_BYTES;
    }
    indexSize += INDEX_ENTRY_BYTES + key.length;
    if (boundaries.closesIndex(indexSize, hash)) {
      indexes += 1;
      indexSize = 0;
    }
  });
  return {
    packs: packs + (packSize > PACK_HEADER_BYTES ? 1 : 0),
    indexes: indexes + (indexSize > 0 ? 1 : 0),
  };
}

/**
 * Packs and indexes of records already sorted by key (one name each), below `folder`: packs of
 * whole records, indexes over contiguous key ranges, both cut at content-defined boundaries.
 */
export function packSortedRecords(
  folder: string,
  keyKind: KeyKind,
  records: readonly KeyedRecord[],
  givenTargets: { targetPackBytes: number; targetIndexBytes: number },
  limits: SearchPartFileLimits,
): { files: { path: string; bytes: Uint8Array }[]; rows: PackTableRow[] } {
  if (records.length === 0) return { files: [], rows: [] };
  const encoded = records.map((record) => encodeRecord({ names: [record.name], body: record.body }));
  let totalBytes = 0;
  for (const bytes of encoded) totalBytes += bytes.length;
  let keyBytes = 0;
  for (const record of records) keyBytes += record.key.length;
  const boundaries = fitPartBoundaries(
    givenTargets,
    { count: records.length, totalBytes, keyBytes },
    limits,
    (visit) => {
      for (let position = 0; position < records.length; position += 1)
        visit(records[position]!.key, encoded[position]!.length);
    },
  );
  const files: { path: string; bytes: Uint8Array }[] = [];
  const entries: { pack: { path: string; length: number }; offset: number; length: number }[] = [];

  let start = 0;
  while (start < records.length) {
    let end = start;
    let size = PACK_HEADER_BYTES;
    while (end < records.length) {
      size += encoded[end]!.length;
      end += 1;
      if (boundaries.closesPack(size, boundaryHash(records[end - 1]!.key))) break;
    }
    const packBytes = encodePack(encoded.slice(start, end));
    if (packBytes.length > MAX_PACK_BYTES) {
      throw new StaticMcpError(
        'PACK_TOO_LARGE',
        `The search record ${records[start]!.name} would make a pack of ${packBytes.length} bytes, more than the ${MAX_PACK_BYTES} a host accepts in one file`,
        'Leave that document out of the search index, or make it smaller.',
      );
    }
    const pack = { path: `${folder}${contentName(packBytes)}.pack`, length: packBytes.length };
    files.push({ path: pack.path, bytes: packBytes });
    let offset = PACK_HEADER_BYTES;
    for (let position = start; position < end; position += 1) {
      const length = encoded[position]!.length;
      entries.push({ pack, offset, length });
      offset += length;
    }
    start = end;
  }

  const rows: PackTableRow[] = [];
  start = 0;
  while (start < records.length) {
    let end = start;
    let size = 0;
    while (end < records.length) {
      size += INDEX_ENTRY_BYTES + records[end]!.key.length;
      end += 1;
      if (boundaries.closesIndex(size, boundaryHash(records[end - 1]!.key))) break;
    }
    const packPaths = [...new Set(entries.slice(start, end).map((entry) => entry.pack.path))].sort(compareStrings);
    const packNumber = new Map(packPaths.map((path, position) => [path, position]));
    const packs = packPaths.map((path) => ({
      path,
      length: entries.slice(start, end).find((entry) => entry.pack.path === path)!.pack.length,
    }));
    const indexEntries: IndexEntryInput[] = [];
    for (let position = start; position < end; position += 1) {
      const entry = entries[position]!;
      indexEntries.push({
        key: records[position]!.key,
        pack: packNumber.get(entry.pack.path)!,
        recordOffset: entry.offset,
        recordLength: entry.length,
      });
    }
    const indexBytes = encodeIndex(keyKind, packs, indexEntries);
    const indexPath = `${folder}${contentName(indexBytes)}.idx`;
    files.push({ path: indexPath, bytes: indexBytes });
    rows.push({ first: hexOfBytes(records[start]!.key), index: indexPath });
    start = end;
  }
  return { files, rows };
}
