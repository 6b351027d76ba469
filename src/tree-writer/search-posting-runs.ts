// The term postings of the spilling search index writer (search-index-spill-writer.ts): documents'
// postings collect in a bounded run, sorted by term and written to a scratch file when full; the
// run files are k-way merged into term records, each term's postings renumbered by id order.
import { encodeRecord } from '../core/packs/pack-encoding.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { detachedString } from '../core/search/detached-string.js';
import { SpillReader, SpillWriter } from './spill-files.js';
import { ByteArena } from './byte-arena.js';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import { encodeImpactPostings, impactOf } from '../core/search/postings.js';
import type { EncodedRecord, RecordSource } from './search-record-packer.js';

/** A UTF-16 unit where UTF-16 order and UTF-8 order part (compareUtf8). */
const BEYOND_BMP_ORDER = /[\ud800-\uffff]/;

// One decoder for every term read back (making one per term cost more than reading the term).
const termDecoder = new TextDecoder();

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
 * and (term, arrival, tf) in three typed arrays, one slot per distinct term of a document (a
 * document's length is the merge's, by arrival: the same for each of its postings).
 */
export class PostingRun {
  private terms = new Map<string, number>();
  private termIds: Uint32Array;
  private arrivals: Uint32Array;
  private frequencies: Uint32Array;
  /** By key number in a key counter's `dictionary`: its term's number in this run (-1: not yet). */
  private termOfKey: Int32Array = new Int32Array(1024).fill(-1);
  private dictionary: number | undefined;
  used = 0;

  constructor(private capacity: number) {
    this.termIds = new Uint32Array(capacity);
    this.arrivals = new Uint32Array(capacity);
    this.frequencies = new Uint32Array(capacity);
  }

  private grow(needed: number): void {
    if (needed <= this.capacity) return;
    // In place (grown-typed-array.ts): a copy held the old arrays and the new ones at once.
    this.termIds = grownTypedArray(this.termIds, needed);
    this.arrivals = grownTypedArray(this.arrivals, needed);
    this.frequencies = grownTypedArray(this.frequencies, needed);
    this.capacity = this.termIds.length;
  }

  private termIdOf(term: string): number {
    let id = this.terms.get(term);
    if (id === undefined) {
      id = this.terms.size;
      // A copy: the term is a view into its document's text, which the run must not hold.
      this.terms.set(detachedString(term), id);
    }
    return id;
  }

  /**
   * A document's distinct terms (or index keys) with their counts.
   * With the keys' numbers in a key counter's dictionary (search-key-counter.ts), a key is looked
   * up by its number after the first time in a run, not by its string.
   */
  addCounted(
    arrival: number,
    counted: { keys: readonly string[]; counts: readonly number[]; keyIds?: Uint32Array; dictionary?: number },
  ): void {
    const { keys: terms, counts, keyIds } = counted;
    this.grow(this.used + terms.length);
    if (keyIds !== undefined && counted.dictionary !== this.dictionary) {
      this.dictionary = counted.dictionary;
      this.termOfKey.fill(-1);
    }
    for (let index = 0; index < terms.length; index += 1) {
      let id: number;
      if (keyIds === undefined) id = this.termIdOf(terms[index]!);
      else {
        const key = keyIds[index]!;
        if (key >= this.termOfKey.length) this.termOfKey = grownFilled(this.termOfKey, key + 1);
        id = this.termOfKey[key]!;
        if (id < 0) {
          id = this.termIdOf(terms[index]!);
          this.termOfKey[key] = id;
        }
      }
      this.termIds[this.used] = id;
      this.arrivals[this.used] = arrival;
      this.frequencies[this.used] = counts[index]!;
      this.used += 1;
    }
  }

  /**
   * Writes the run to `file` by term (UTF-8 order), each term's postings (arrival, tf) in arrival
   * order; empties it.
   */
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
      }
    }
    writer.close();
    this.terms = new Map();
    this.termOfKey.fill(-1);
    this.used = 0;
  }

  /**
   * Lets the run's arrays go (up to 16 bytes a posting of its capacity) once its last postings
   * are written: the merge and the packing after it would otherwise hold them to the end.
   */
  release(): void {
    this.terms = new Map();
    this.termIds = releaseGrown(this.termIds);
    this.arrivals = releaseGrown(this.arrivals);
    this.frequencies = releaseGrown(this.frequencies);
    this.termOfKey = new Int32Array(0);
    this.capacity = 0;
    this.used = 0;
  }
}

/** `array` copied into one of at least `length` (twice its length or more), the new part -1. */
function grownFilled(array: Int32Array, length: number): Int32Array {
  const larger = new Int32Array(Math.max(length, array.length * 2)).fill(-1);
  larger.set(array);
  return larger;
}

/**
 * One run file's terms in order, each with its postings as (arrival, tf) pairs: `postings`' first
 * `values` numbers, valid until the next term but one (two buffers take turns, so the merge can
 * hold one term's postings of every run while each run's cursor moves on).
 */
class RunCursor {
  term = '';
  postings = new Uint32Array(256);
  values = 0;
  private spare = new Uint32Array(256);
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
    const values = this.reader.readVarint() * 2;
    let postings = this.spare;
    if (postings.length < values) postings = new Uint32Array(Math.max(values, postings.length * 2));
    this.spare = this.postings;
    this.postings = postings;
    this.values = values;
    for (let index = 0; index < values; index += 1) postings[index] = this.reader.readVarint();
    return true;
  }
}

/**
 * The term records, by merging the runs (a binary heap of cursors by term): each term's postings
 * from every run, renumbered and sorted by document number, encoded as postings.ts does with the
 * documents' lengths `lengthOf` (by arrival). Written to `file` first: the pack boundaries need
 * the records' average size before the first pack.
 */
export function mergeRuns(
  runFiles: readonly string[],
  numberOf: Uint32Array,
  lengthOf: ArrayLike<number>,
  file: string,
  averageLength: number,
  /** Told each record as it is written (views valid only during the call). */
  onRecord?: (key: Uint8Array, encoded: Uint8Array) => void,
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
  // One term's postings from each run that has it (reused from term to term).
  const parts: Uint32Array[] = [];
  const partValues: number[] = [];
  while (heap.length > 0) {
    const term = heap[0]!.term;
    let partCount = 0;
    while (heap.length > 0 && heap[0]!.term === term) {
      const cursor = heap[0]!;
      parts[partCount] = cursor.postings;
      partValues[partCount] = cursor.values;
      partCount += 1;
      if (cursor.next()) siftDown();
      else popFront();
    }
    const body = encodeTermPostings(parts, partValues, partCount, numberOf, lengthOf, averageLength);
    const key = utf8Bytes(term);
    const encoded = encodeRecord({ names: [term], body });
    writer.appendVarint(key.length);
    writer.append(key);
    writer.appendVarint(encoded.length);
    writer.append(encoded);
    onRecord?.(key, encoded);
    count += 1;
    totalBytes += encoded.length;
    keyBytes += key.length;
  }
  writer.close();
  return termRecordSource(file, { count, totalBytes, keyBytes });
}

/**
 * The term records a terms file holds (key and encoded record, by key: mergeRuns writes one, and
 * search-kept-terms.ts a patched one), as the packer reads them.
 */
export function termRecordSource(
  file: string,
  totals: { count: number; totalBytes: number; keyBytes: number },
  /** Each record's position in the previous build's records plus one when it is that record unchanged, else 0 (patchTermRecords). */
  origins?: Uint32Array,
): RecordSource {
  return {
    ...totals,
    // Both walks read the whole file (~31 MB at 100,000 Markdown documents) and keep no record:
    // a copy of each was that much garbage a walk, its large lists mmapped one by one by malloc.
    visitSizes: (visit) => {
      const reader = new SpillReader(file);
      try {
        while (!reader.atEnd()) {
          const key = reader.readBytes(reader.readVarint());
          const recordBytes = reader.readVarint();
          reader.skip(recordBytes);
          visit(key, recordBytes);
        }
      } finally {
        reader.close();
      }
    },
    visitRecords: (visit) => {
      const reader = new SpillReader(file);
      // The key is copied out of the reader's buffer, which reading the record's length may move.
      let key = new Uint8Array(64);
      try {
        while (!reader.atEnd()) {
          const keyLength = reader.readVarint();
          if (keyLength > key.length) key = new Uint8Array(keyLength * 2);
          key.set(reader.readView(keyLength));
          const encoded = reader.readView(reader.readVarint());
          visit(key.subarray(0, keyLength), encoded);
        }
      } finally {
        reader.close();
      }
    },
    records: function* () {
      const reader = new SpillReader(file);
      const arena = new ByteArena();
      let position = 0;
      let runStart = 0;
      try {
        while (!reader.atEnd()) {
          const key = arena.copy(reader.readView(reader.readVarint()));
          const encoded = arena.copy(reader.readView(reader.readVarint()));
          const record = new TermRecord(key, encoded, position);
          const origin = (origins?.[position] ?? 0) - 1;
          if (origin >= 0) {
            // A run: records copied one after the other from consecutive previous positions.
            if (position === 0 || origins![position - 1] !== origin) runStart = position;
            record.previous = origin;
            record.runStart = runStart;
          }
          position += 1;
          yield record;
        }
      } finally {
        reader.close();
      }
    },
  };
}

/**
 * A term record as the packer reads it: its name (the term) and where it was copied from are made
 * only if asked for (of a pack's first and last records).
 */
class TermRecord implements EncodedRecord {
  /** Its position in the previous records when copied from there unchanged (else -1), and its run's start. */
  previous = -1;
  runStart = 0;

  constructor(
    readonly key: Uint8Array,
    readonly encoded: Uint8Array,
    readonly position: number,
  ) {}

  get name(): string {
    return termDecoder.decode(this.key);
  }

  get copied(): EncodedRecord['copied'] {
    return this.previous < 0 ? undefined : { previous: this.previous, runStart: this.runStart };
  }
}

let scratchNumbers = new Uint32Array(1024);
let scratchImpacts = new Uint8Array(1024);

/**
 * postings.ts's encoding of the (arrival, tf) pairs of the first `partCount` parts (each part's
 * first `partValues` numbers), by document number.
 */
function encodeTermPostings(
  parts: readonly Uint32Array[],
  partValues: readonly number[],
  partCount: number,
  numberOf: Uint32Array,
  lengthOf: ArrayLike<number>,
  averageLength: number,
): Uint8Array {
  let total = 0;
  for (let part = 0; part < partCount; part += 1) total += partValues[part]! / 2;
  // Reused from term to term (a pair of new arrays per term was much of the merge's garbage).
  if (total > scratchNumbers.length) {
    scratchNumbers = new Uint32Array(Math.max(total, scratchNumbers.length * 2));
    scratchImpacts = new Uint8Array(scratchNumbers.length);
  }
  const numbers = scratchNumbers.subarray(0, total);
  const impacts = scratchImpacts.subarray(0, total);
  let at = 0;
  let sorted = true;
  for (let partAt = 0; partAt < partCount; partAt += 1) {
    const part = parts[partAt]!;
    const values = partValues[partAt]!;
    for (let index = 0; index < values; index += 2) {
      const arrival = part[index]!;
      numbers[at] = numberOf[arrival]!;
      impacts[at] = impactOf(part[index + 1]!, lengthOf[arrival]!, averageLength);
      if (at > 0 && numbers[at]! < numbers[at - 1]!) sorted = false;
      at += 1;
    }
  }
  let order: Uint32Array | undefined;
  if (!sorted)
    order = Uint32Array.from({ length: total }, (_, index) => index).sort((a, b) => numbers[a]! - numbers[b]!);
  return encodeImpactPostings(numbers, impacts, order);
}
