// The search index writer for corpora of any size (issue #25): the same files, byte for byte, as
// writeSearchIndex (test/helpers/in-memory-search-index.ts, which holds the whole corpus in memory), in memory flat
// with the corpus. Documents stream in (any order, once each); what they leave in memory is their
// id and four numbers. Their postings (term, arrival, tf, docLength) collect in a bounded run that
// is sorted by term and written to `scratchFolder` when full; the runs are k-way merged into the
// term records (each term's postings renumbered by id order and sorted), which go to a scratch
// file and are then packed in one pass. Titles and fetch bodies go to two scratch files as they
// arrive and are read back by offset in block and key order. Files are handed to `writeFile` as
// each pack or index closes, never held together. The caller owns `scratchFolder` (the build puts
// it beside its output folder, swap-folders.ts, and removes it; interrupted-write.ts removes the
// one a killed build left).
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import {
  encodedRecordBytes,
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
import {
  DEFAULT_TITLE_BLOCK_SIZE,
  SEARCH_FOLDER,
  sharedIdPrefixLength,
  titleBlockKeyOf,
} from '../core/search/search-index-format.js';
import { encodeDocumentBody } from '../core/search/search-results.js';
import { tokenize } from '../core/search/tokenize.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { sipHash13Halves } from '../core/tree/siphash.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { DEFAULT_TARGET_INDEX_BYTES, DEFAULT_TARGET_PACK_BYTES, MAX_PACK_BYTES } from './pack-writer.js';
import {
  compareStrings,
  contentName,
  searchExtensionOf,
  type SearchDocument,
  type SearchIndexExtension,
  type SearchIndexOptions,
} from './search-index-output.js';
import { boundaryHash, fitPartBoundaries, type PartTotals, type VisitRecordSizes } from './search-part-boundaries.js';
import {
  SEARCH_FILE_LIMITS,
  type SearchPartFileLimits,
  TERM_INDEX_BYTES,
  TITLE_INDEX_BYTES,
  TITLE_PACK_BYTES,
} from './search-index-targets.js';
import { readAt, SpillReader, SpillWriter } from './spill-files.js';
import { averageLengthOf, encodeImpactPostings, impactOf } from '../core/search/postings.js';

/** A UTF-16 unit where UTF-16 order and UTF-8 order part (compareUtf8). */
const BEYOND_BMP_ORDER = /[\ud800-\uffff]/;

// One decoder for every term read back (making one per term cost more than reading the term).
const termDecoder = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** Postings a run holds before it is sorted and written out: 64 MiB of typed arrays, plus its terms. */
export const DEFAULT_RUN_POSTINGS = 4_000_000;

export interface SpillingSearchIndexOptions extends SearchIndexOptions {
  /** An empty or absent folder of the caller's, for the scratch files. */
  scratchFolder: string;
  /** Postings per sorted run (DEFAULT_RUN_POSTINGS); a tiny one forces many runs (tests). */
  runPostings?: number;
}

/** Writes one index file (a tree path below packs/search.index/). */
export type WriteIndexFile = (treePath: string, bytes: Uint8Array) => Promise<void>;

/** A record on its way into a pack: its key, its own name, its encoded bytes. */
interface EncodedRecord {
  key: Uint8Array;
  name: string;
  encoded: Uint8Array;
}

/** Records sorted by key, with the totals that place content-defined boundaries. */
interface RecordSource extends PartTotals {
  records: () => Iterable<EncodedRecord>;
  /** Each record's key and encoded bytes, in the same order, without encoding the records. */
  visitSizes: VisitRecordSizes;
}

/**
 * Writes the index of `documents` through `writeFile` and returns mcp.json's `staticmcp.search`.
 * Throws as writeSearchIndex does: an id that is not a plain tree path or repeats, a document
 * past MAX_PACK_BYTES.
 */
export async function writeSearchIndexSpilling(
  documents: AsyncIterable<SearchDocument> | Iterable<SearchDocument>,
  options: SpillingSearchIndexOptions,
  writeFile: WriteIndexFile,
): Promise<SearchIndexExtension> {
  const targets = {
    targetPackBytes: options.targetPackBytes ?? DEFAULT_TARGET_PACK_BYTES,
    targetIndexBytes: options.targetIndexBytes ?? DEFAULT_TARGET_INDEX_BYTES,
  };
  const blockSize = options.blockSize ?? DEFAULT_TITLE_BLOCK_SIZE;
  const runLimit = Math.max(1, options.runPostings ?? DEFAULT_RUN_POSTINGS);
  const scratch = options.scratchFolder;
  mkdirSync(scratch, { recursive: true });

  // By arrival: the id, where its title item and fetch body sit in their scratch files, its key.
  const ids: string[] = [];
  const titleAt: number[] = [];
  const titleLength: number[] = [];
  const bodyAt: number[] = [];
  const bodyLength: number[] = [];
  const keyHigh: number[] = [];
  const keyLow: number[] = [];
  const titleSpill = new SpillWriter(path.join(scratch, 'titles'));
  const bodySpill = new SpillWriter(path.join(scratch, 'bodies'));
  const runFiles: string[] = [];
  const run = new PostingRun(Math.min(runLimit, 1 << 16));
  let tokenCount = 0;

  const flushRun = (): void => {
    if (run.used === 0) return;
    const file = path.join(scratch, `run-${runFiles.length}`);
    run.writeSorted(file);
    runFiles.push(file);
  };

  try {
    for await (const document of documents) {
      assertPlainTreePath(document.id, 'A search document id');
      const arrival = ids.length;
      ids.push(document.id);
      // Title and text are one column, as in writeSearchIndex.
      const terms = tokenize(`${document.title}\n${document.text}`);
      tokenCount += terms.length;
      if (run.used > 0 && run.used + terms.length > runLimit) flushRun();
      run.addDocument(arrival, terms);
      // An entry's title and url, as they end its title block entry (the id's part depends on its neighbour).
      const titleItem = Buffer.from(JSON.stringify([document.title, document.url]).slice(1, -1), 'utf8');
      titleAt.push(titleSpill.bytes);
      titleLength.push(titleItem.length);
      titleSpill.append(titleItem);
      const body = Buffer.from(encodeDocumentBody(document), 'utf8');
      bodyAt.push(bodySpill.bytes);
      bodyLength.push(body.length);
      bodySpill.append(body);
      const [high, low] = sipHash13Halves(Buffer.from(document.id, 'utf8'));
      keyHigh.push(high);
      keyLow.push(low);
    }
    flushRun();
  } finally {
    titleSpill.close();
    bodySpill.close();
  }

  // Numbers are positions in id order (UTF-8), as writeSearchIndex numbers them.
  const count = ids.length;
  const byNumber = Uint32Array.from({ length: count }, (_, arrival) => arrival).sort((left, right) =>
    compareUtf8(ids[left]!, ids[right]!),
  );
  const numberOf = new Uint32Array(count);
  byNumber.forEach((arrival, number) => {
    numberOf[arrival] = number;
    if (number > 0 && ids[byNumber[number - 1]!] === ids[arrival])
      throw new Error(`two search documents have the id ${ids[arrival]}`);
  });

  const terms = await packRecords(
    `${SEARCH_FOLDER}terms/`,
    KEY_KIND.term,
    mergeRuns(runFiles, numberOf, path.join(scratch, 'terms'), averageLengthOf({ documentCount: count, tokenCount })),
    { ...targets, targetIndexBytes: options.targetTermIndexBytes ?? TERM_INDEX_BYTES },
    SEARCH_FILE_LIMITS.terms,
    writeFile,
  );
  const titlesFd = openSync(titleSpill.file, 'r');
  const bodiesFd = openSync(bodySpill.file, 'r');
  try {
    const titles = await packRecords(
      `${SEARCH_FOLDER}titles/`,
      KEY_KIND.term,
      titleRecords(byNumber, blockSize, ids, titleLength, (arrival) =>
        readAt(titlesFd, titleAt[arrival]!, titleLength[arrival]!),
      ),
      {
        targetPackBytes: options.targetPackBytes ?? TITLE_PACK_BYTES,
        targetIndexBytes: options.targetIndexBytes ?? TITLE_INDEX_BYTES,
      },
      SEARCH_FILE_LIMITS.titles,
      writeFile,
    );
    const stored = await packRecords(
      `${SEARCH_FOLDER}documents/`,
      KEY_KIND.call,
      documentRecords(ids, keyHigh, keyLow, bodyLength, (arrival) =>
        readAt(bodiesFd, bodyAt[arrival]!, bodyLength[arrival]!),
      ),
      targets,
      SEARCH_FILE_LIMITS.documents,
      writeFile,
    );
    const rows = { terms, titles, documents: stored };
    const { extension, tableFile } = searchExtensionOf(count, tokenCount, blockSize, rows, options);
    if (tableFile !== undefined) await writeFile(tableFile.path, tableFile.bytes);
    return extension;
  } finally {
    closeSync(titlesFd);
    closeSync(bodiesFd);
  }
}

/**
 * Compares strings by their UTF-8 bytes (= code points) without encoding them: UTF-16 order
 * differs only where a surrogate meets a unit ≥ U+E000, so surrogates are moved above those.
 */
export function compareUtf8(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    let a = left.charCodeAt(index);
    let b = right.charCodeAt(index);
    if (a === b) continue;
    if (a >= 0xd800) a += a >= 0xe000 ? -0x800 : 0x2000;
    if (b >= 0xd800) b += b >= 0xe000 ? -0x800 : 0x2000;
    return a - b;
  }
  return left.length - right.length;
}

/**
 * The postings of the documents since the last run was written: a dictionary of this run's terms,
 * and (term, arrival, tf, docLength) in four typed arrays, one slot per distinct term of a
 * document; a term's slot for the current document is found through `lastArrival`/`slotOf`, so
 * a token costs one dictionary lookup.
 */
class PostingRun {
  private terms = new Map<string, number>();
  private termIds: Uint32Array;
  private arrivals: Uint32Array;
  private frequencies: Uint32Array;
  private lengths: Uint32Array;
  private lastArrival = new Int32Array(1024).fill(-1);
  private slotOf = new Uint32Array(1024);
  used = 0;

  constructor(private capacity: number) {
    this.termIds = new Uint32Array(capacity);
    this.arrivals = new Uint32Array(capacity);
    this.frequencies = new Uint32Array(capacity);
    this.lengths = new Uint32Array(capacity);
  }

  private grow(needed: number): void {
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, this.capacity * 2);
    const larger = (array: Uint32Array) => {
      const copy = new Uint32Array(capacity);
      copy.set(array.subarray(0, this.used));
      return copy;
    };
    this.termIds = larger(this.termIds);
    this.arrivals = larger(this.arrivals);
    this.frequencies = larger(this.frequencies);
    this.lengths = larger(this.lengths);
    this.capacity = capacity;
  }

  private termIdOf(term: string): number {
    let id = this.terms.get(term);
    if (id === undefined) {
      id = this.terms.size;
      this.terms.set(term, id);
      if (id >= this.lastArrival.length) {
        const last = new Int32Array(this.lastArrival.length * 2).fill(-1);
        last.set(this.lastArrival);
        this.lastArrival = last;
        const slots = new Uint32Array(this.slotOf.length * 2);
        slots.set(this.slotOf);
        this.slotOf = slots;
      }
    }
    return id;
  }

  addDocument(arrival: number, terms: readonly string[]): void {
    this.grow(this.used + terms.length);
    const first = this.used;
    for (const term of terms) {
      const id = this.termIdOf(term);
      if (this.lastArrival[id] === arrival) {
        this.frequencies[this.slotOf[id]!]! += 1;
        continue;
      }
      this.lastArrival[id] = arrival;
      this.slotOf[id] = this.used;
      this.termIds[this.used] = id;
      this.arrivals[this.used] = arrival;
      this.frequencies[this.used] = 1;
      this.used += 1;
    }
    this.lengths.fill(terms.length, first, this.used);
  }

  /** Writes the run to `file` by term (UTF-8 order), each term's postings in arrival order; empties it. */
  writeSorted(file: string): void {
    const terms = [...this.terms.keys()];
    // The native sort (UTF-16 order) is UTF-8 order too unless a term holds a unit ≥ U+D800.
    if (terms.some((term) => BEYOND_BMP_ORDER.test(term))) terms.sort(compareUtf8);
    else terms.sort();
    // A counting sort of the postings by their term's rank: stable, so arrivals stay in order.
    const rankOf = new Uint32Array(terms.length);
    terms.forEach((term, rank) => {
      rankOf[this.terms.get(term)!] = rank;
    });
    const start = new Uint32Array(terms.length + 1);
    for (let slot = 0; slot < this.used; slot += 1) start[rankOf[this.termIds[slot]!]! + 1]! += 1;
    for (let rank = 0; rank < terms.length; rank += 1) start[rank + 1]! += start[rank]!;
    const order = new Uint32Array(this.used);
    const next = start.slice(0, terms.length);
    for (let slot = 0; slot < this.used; slot += 1) order[next[rankOf[this.termIds[slot]!]!]!++] = slot;
    const writer = new SpillWriter(file);
    for (let rank = 0; rank < terms.length; rank += 1) {
      const termBytes = Buffer.from(terms[rank]!, 'utf8');
      writer.appendVarint(termBytes.length);
      writer.append(termBytes);
      writer.appendVarint(start[rank + 1]! - start[rank]!);
      for (let at = start[rank]!; at < start[rank + 1]!; at += 1) {
        const slot = order[at]!;
        writer.appendVarint(this.arrivals[slot]!);
        writer.appendVarint(this.frequencies[slot]!);
        writer.appendVarint(this.lengths[slot]!);
      }
    }
    writer.close();
    this.terms = new Map();
    this.lastArrival.fill(-1);
    this.used = 0;
  }
}

/** One run file's terms in order, each with its postings as (arrival, tf, docLength) triples. */
class RunCursor {
  term = '';
  postings: number[] = [];
  private readonly reader: SpillReader;

  constructor(file: string) {
    // Many runs are open at once: a small buffer each.
    this.reader = new SpillReader(file, 64 * 1024);
  }

  /** Moves to the next term; false (and closed) at the end. */
  next(): boolean {
    if (this.reader.atEnd()) {
      this.reader.close();
      return false;
    }
    this.term = termDecoder.decode(this.reader.readBytes(this.reader.readVarint()));
    const values = this.reader.readVarint() * 3;
    this.postings = new Array<number>(values);
    for (let index = 0; index < values; index += 1) this.postings[index] = this.reader.readVarint();
    return true;
  }
}

/**
 * The term records, by merging the runs (a binary heap of cursors by term): each term's postings
 * from every run, renumbered and sorted by document number, encoded as postings.ts does. Written
 * to `file` first: the pack boundaries need the records' average size before the first pack.
 */
function mergeRuns(
  runFiles: readonly string[],
  numberOf: Uint32Array,
  file: string,
  averageLength: number,
): RecordSource {
  const heap: RunCursor[] = [];
  const less = (a: RunCursor, b: RunCursor) => compareUtf8(a.term, b.term) < 0;
  const push = (cursor: RunCursor) => {
    heap.push(cursor);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!less(heap[at]!, heap[parent]!)) break;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  };
  const siftDown = () => {
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let smallest = at;
      if (left < heap.length && less(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && less(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === at) return;
      [heap[at], heap[smallest]] = [heap[smallest]!, heap[at]!];
      at = smallest;
    }
  };
  const popFront = () => {
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      siftDown();
    }
  };
  for (const runFile of runFiles) {
    const cursor = new RunCursor(runFile);
    if (cursor.next()) push(cursor);
  }

  const writer = new SpillWriter(file);
  let count = 0;
  let totalBytes = 0;
  let keyBytes = 0;
  while (heap.length > 0) {
    const term = heap[0]!.term;
    const parts: number[][] = [];
    while (heap.length > 0 && heap[0]!.term === term) {
      const cursor = heap[0]!;
      parts.push(cursor.postings);
      if (cursor.next()) siftDown();
      else popFront();
    }
    const key = utf8Bytes(term);
    const encoded = encodeRecord({ names: [term], body: encodeTermPostings(parts, numberOf, averageLength) });
    writer.appendVarint(key.length);
    writer.append(key);
    writer.appendVarint(encoded.length);
    writer.append(encoded);
    count += 1;
    totalBytes += encoded.length;
    keyBytes += key.length;
  }
  writer.close();
  return {
    count,
    totalBytes,
    keyBytes,
    visitSizes: (visit) => {
      const reader = new SpillReader(file);
      try {
        while (!reader.atEnd()) {
          const key = reader.readBytes(reader.readVarint());
          const recordBytes = reader.readVarint();
          reader.readBytes(recordBytes);
          visit(key, recordBytes);
        }
      } finally {
        reader.close();
      }
    },
    records: function* () {
      const reader = new SpillReader(file);
      try {
        while (!reader.atEnd()) {
          const key = reader.readBytes(reader.readVarint());
          const encoded = reader.readBytes(reader.readVarint());
          yield { key, name: termDecoder.decode(key), encoded };
        }
      } finally {
        reader.close();
      }
    },
  };
}

/** postings.ts's encoding of the (arrival, tf, docLength) triples of `parts`, by document number. */
function encodeTermPostings(parts: readonly number[][], numberOf: Uint32Array, averageLength: number): Uint8Array {
  let total = 0;
  for (const part of parts) total += part.length / 3;
  const numbers = new Uint32Array(total);
  const impacts = new Uint8Array(total);
  let at = 0;
  let sorted = true;
  for (const part of parts) {
    for (let index = 0; index < part.length; index += 3) {
      numbers[at] = numberOf[part[index]!]!;
      impacts[at] = impactOf(part[index + 1]!, part[index + 2]!, averageLength);
      if (at > 0 && numbers[at]! < numbers[at - 1]!) sorted = false;
      at += 1;
    }
  }
  let order: Uint32Array | undefined;
  if (!sorted)
    order = Uint32Array.from({ length: total }, (_, index) => index).sort((a, b) => numbers[a]! - numbers[b]!);
  return encodeImpactPostings(numbers, impacts, order);
}

/**
 * The title blocks: JSON `[[shared, rest of id, title, url], …]` of `blockSize` consecutive
 * numbers each, byte for byte what writeSearchIndex writes; `tailLength`/`readTail` give each
 * entry's `"title","url"`.
 */
function titleRecords(
  byNumber: Uint32Array,
  blockSize: number,
  ids: readonly string[],
  tailLength: readonly number[],
  readTail: (arrival: number) => Uint8Array,
): RecordSource {
  const blockCount = Math.ceil(byNumber.length / blockSize);
  /** Each entry's `[shared,"rest of id",` in the block. */
  const headsOf = (block: number): string[] => {
    const heads: string[] = [];
    let previousId = '';
    const end = Math.min(byNumber.length, (block + 1) * blockSize);
    for (let number = block * blockSize; number < end; number += 1) {
      const id = ids[byNumber[number]!]!;
      const shared = sharedIdPrefixLength(previousId, id);
      heads.push(`[${shared},${JSON.stringify(id.slice(shared))},`);
      previousId = id;
    }
    return heads;
  };
  const bodyLengthOf = (block: number, heads = headsOf(block)) => {
    // "[" + items joined by "," + "]", each item head + tail + "]": exactly JSON.stringify of the block.
    let length = 2 + (heads.length - 1);
    heads.forEach((head, index) => {
      length += Buffer.byteLength(head) + tailLength[byNumber[block * blockSize + index]!]! + 1;
    });
    return length;
  };
  let totalBytes = 0;
  let keyBytes = 0;
  for (let block = 0; block < blockCount; block += 1) {
    const name = utf8Bytes(titleBlockKeyOf(block));
    totalBytes += encodedRecordBytes([name], bodyLengthOf(block));
    keyBytes += name.length;
  }
  return {
    count: blockCount,
    totalBytes,
    keyBytes,
    visitSizes: (visit) => {
      for (let block = 0; block < blockCount; block += 1) {
        const name = utf8Bytes(titleBlockKeyOf(block));
        visit(name, encodedRecordBytes([name], bodyLengthOf(block)));
      }
    },
    records: function* () {
      for (let block = 0; block < blockCount; block += 1) {
        const heads = headsOf(block);
        const body = new Uint8Array(bodyLengthOf(block, heads));
        body[0] = 0x5b; // [
        let at = 1;
        heads.forEach((head, index) => {
          if (index > 0) body[at++] = 0x2c; // ,
          at += utf8Encoder.encodeInto(head, body.subarray(at)).written;
          const tail = readTail(byNumber[block * blockSize + index]!);
          body.set(tail, at);
          at += tail.length;
          body[at++] = 0x5d; // ]
        });
        body[at] = 0x5d; // ]
        const name = titleBlockKeyOf(block);
        yield { key: utf8Bytes(name), name, encoded: encodeRecord({ names: [name], body }) };
      }
    },
  };
}

/** The fetch records, by call key (SipHash of the id) then id, as writeSearchIndex sorts them. */
function documentRecords(
  ids: readonly string[],
  keyHigh: readonly number[],
  keyLow: readonly number[],
  bodyLength: readonly number[],
  readBody: (arrival: number) => Uint8Array,
): RecordSource {
  const order = Uint32Array.from({ length: ids.length }, (_, arrival) => arrival).sort(
    (a, b) => keyHigh[a]! - keyHigh[b]! || keyLow[a]! - keyLow[b]! || compareStrings(ids[a]!, ids[b]!),
  );
  let totalBytes = 0;
  for (let arrival = 0; arrival < ids.length; arrival += 1)
    totalBytes += encodedRecordBytes([utf8Bytes(ids[arrival]!)], bodyLength[arrival]!);
  const keyOf = (arrival: number) => {
    const key = new Uint8Array(8);
    const view = new DataView(key.buffer);
    view.setUint32(0, keyHigh[arrival]!);
    view.setUint32(4, keyLow[arrival]!);
    return key;
  };
  return {
    count: ids.length,
    totalBytes,
    keyBytes: 8 * ids.length,
    visitSizes: (visit) => {
      for (const arrival of order)
        visit(keyOf(arrival), encodedRecordBytes([utf8Bytes(ids[arrival]!)], bodyLength[arrival]!));
    },
    records: function* () {
      for (const arrival of order) {
        const name = ids[arrival]!;
        yield { key: keyOf(arrival), name, encoded: encodeRecord({ names: [name], body: readBody(arrival) }) };
      }
    },
  };
}

interface OpenPack {
  records: Uint8Array[];
  size: number;
  firstName: string;
  /** Filled when the pack closes. */
  file: { path: string; length: number };
}

interface IndexEntryPending {
  key: Uint8Array;
  pack: OpenPack['file'];
  offset: number;
  length: number;
}

/**
 * packSortedRecords (test/helpers/in-memory-search-index.ts) in one pass over a stream: the same content-defined
 * pack and index boundaries, the same files and rows. An index closes before the pack of its last
 * records may; it waits (its entries only) until that pack has its name.
 */
async function packRecords(
  folder: string,
  keyKind: KeyKind,
  source: RecordSource,
  givenTargets: { targetPackBytes: number; targetIndexBytes: number },
  limits: SearchPartFileLimits,
  writeFile: WriteIndexFile,
): Promise<PackTableRow[]> {
  if (source.count === 0) return [];
  const boundaries = fitPartBoundaries(givenTargets, source, limits, source.visitSizes);
  const rows: PackTableRow[] = [];
  let pack: OpenPack | undefined;
  let index: IndexEntryPending[] = [];
  let indexSize = 0;
  const waiting: IndexEntryPending[][] = [];

  const closePack = async (open: OpenPack) => {
    const packBytes = encodePack(open.records);
    if (packBytes.length > MAX_PACK_BYTES) {
      throw new StaticMcpError(
        'PACK_TOO_LARGE',
        `The search record ${open.firstName} would make a pack of ${packBytes.length} bytes, more than the ${MAX_PACK_BYTES} a host accepts in one file`,
        'Leave that document out of the search index, or make it smaller.',
      );
    }
    open.file.path = `${folder}${contentName(packBytes)}.pack`;
    open.file.length = packBytes.length;
    await writeFile(open.file.path, packBytes);
  };
  const writeWaitingIndexes = async () => {
    while (waiting.length > 0 && waiting[0]!.at(-1)!.pack.path !== '') {
      const entries = waiting.shift()!;
      const packs = [...new Map(entries.map((entry) => [entry.pack.path, entry.pack])).values()].sort((a, b) =>
        compareStrings(a.path, b.path),
      );
      const packNumber = new Map(packs.map((file, position) => [file.path, position]));
      const indexEntries: IndexEntryInput[] = entries.map((entry) => ({
        key: entry.key,
        pack: packNumber.get(entry.pack.path)!,
        recordOffset: entry.offset,
        recordLength: entry.length,
      }));
      const indexBytes = encodeIndex(
        keyKind,
        packs.map((file) => ({ path: file.path, length: file.length })),
        indexEntries,
      );
      const indexPath = `${folder}${contentName(indexBytes)}.idx`;
      await writeFile(indexPath, indexBytes);
      rows.push({ first: hexOfBytes(entries[0]!.key), index: indexPath });
    }
  };

  for (const record of source.records()) {
    if (pack === undefined)
      pack = { records: [], size: PACK_HEADER_BYTES, firstName: record.name, file: { path: '', length: 0 } };
    index.push({ key: record.key, pack: pack.file, offset: pack.size, length: record.encoded.length });
    pack.records.push(record.encoded);
    pack.size += record.encoded.length;
    indexSize += INDEX_ENTRY_BYTES + record.key.length;
    const hash = boundaryHash(record.key);
    if (boundaries.closesPack(pack.size, hash)) {
      await closePack(pack);
      pack = undefined;
    }
    if (boundaries.closesIndex(indexSize, hash)) {
      waiting.push(index);
      index = [];
      indexSize = 0;
    }
    await writeWaitingIndexes();
  }
  if (pack !== undefined) await closePack(pack);
  if (index.length > 0) waiting.push(index);
  await writeWaitingIndexes();
  return rows;
}
