// The term postings of the spilling search index writer (search-index-spill-writer.ts): documents'
// postings collect in a bounded run, sorted by term and written to a scratch file when full; the
// run files are k-way merged into term records, each term's postings renumbered by id order.
import { encodeRecord } from '../core/packs/pack-encoding.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { detachedString } from '../core/search/detached-string.js';
import { SpillReader, SpillWriter } from './spill-files.js';
import { encodeImpactPostings, impactOf } from '../core/search/postings.js';
import type { RecordSource } from './search-record-packer.js';

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
 * and (term, arrival, tf, docLength) in four typed arrays, one slot per distinct term of a
 * document; a term's slot for the current document is found through `lastArrival`/`slotOf`, so
 * a token costs one dictionary lookup.
 */
export class PostingRun {
  private terms = new Map<string, number>();
  private termIds: Uint32Array;
  private arrivals: Uint32Array;
  private frequencies: Uint32Array;
  private lengths: Uint32Array;
  private lastArrival = new Int32Array(1024).fill(-1);
  private slotOf = new Uint32Array(1024);
  /** By key number in a key counter's `dictionary`: its term's number in this run (-1: not yet). */
  private termOfKey: Int32Array = new Int32Array(1024).fill(-1);
  private dictionary: number | undefined;
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
      // A copy: the term is a view into its document's text, which the run must not hold.
      this.terms.set(detachedString(term), id);
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

  /** A document's terms (or index keys), its length as BM25 counts it `documentLength`. */
  addDocument(arrival: number, terms: readonly string[], documentLength = terms.length): void {
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
    this.lengths.fill(documentLength, first, this.used);
  }

  /**
   * A document's distinct terms (or index keys) with their counts, its length `documentLength`.
   * With the keys' numbers in a key counter's dictionary (search-key-counter.ts), a key is looked
   * up by its number after the first time in a run, not by its string.
   */
  addCounted(
    arrival: number,
    counted: { keys: readonly string[]; counts: readonly number[]; keyIds?: Uint32Array; dictionary?: number },
    documentLength: number,
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
      this.lengths[this.used] = documentLength;
      this.used += 1;
    }
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
    this.termOfKey.fill(-1);
    this.used = 0;
  }

  /**
   * Lets the run's arrays go (up to 16 bytes a posting of its capacity) once its last postings
   * are written: the merge and the packing after it would otherwise hold them to the end.
   */
  release(): void {
    this.terms = new Map();
    this.termIds = new Uint32Array(0);
    this.arrivals = new Uint32Array(0);
    this.frequencies = new Uint32Array(0);
    this.lengths = new Uint32Array(0);
    this.lastArrival = new Int32Array(0);
    this.slotOf = new Uint32Array(0);
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
export function mergeRuns(
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
  return termRecordSource(file, { count, totalBytes, keyBytes });
}

/**
 * The term records a terms file holds (key and encoded record, by key: mergeRuns writes one, and
 * search-kept-terms.ts a patched one), as the packer reads them.
 */
export function termRecordSource(
  file: string,
  totals: { count: number; totalBytes: number; keyBytes: number },
): RecordSource {
  return {
    ...totals,
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

let scratchNumbers = new Uint32Array(1024);
let scratchImpacts = new Uint8Array(1024);

/** postings.ts's encoding of the (arrival, tf, docLength) triples of `parts`, by document number. */
function encodeTermPostings(parts: readonly number[][], numberOf: Uint32Array, averageLength: number): Uint8Array {
  let total = 0;
  for (const part of parts) total += part.length / 3;
  // Reused from term to term (a pair of new arrays per term was much of the merge's garbage).
  if (total > scratchNumbers.length) {
    scratchNumbers = new Uint32Array(Math.max(total, scratchNumbers.length * 2));
    scratchImpacts = new Uint8Array(scratchNumbers.length);
  }
  const numbers = scratchNumbers.subarray(0, total);
  const impacts = scratchImpacts.subarray(0, total);
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
