// Whether a kept term record holds postings of the documents an edit made anew (issue #39, "Edits
// in a second"; search-kept-terms.ts patchTermRecords asks it of every kept record). A record body
// (encodeImpactPostings) starts with a skip table, one entry per block of POSTING_BLOCK_SIZE
// postings: the block's last number (as a difference), its bytes and its best impact. Read through
// it, only the blocks whose range of numbers holds a changed number are decoded: an edit of one
// document decodes about one block of each record instead of every posting of the corpus.
import { POSTING_BLOCK_SIZE, readVarint } from '../core/search/postings.js';

/** The numbers of the documents made anew: marked by number, and sorted for range questions. */
export class ChangedNumbers {
  /** 1 at each changed number. */
  readonly marked: Uint8Array;
  private readonly sorted: Uint32Array;

  /** `numbers`: distinct, each below `documentCount`. */
  constructor(numbers: readonly number[], documentCount: number) {
    this.marked = new Uint8Array(documentCount);
    this.sorted = Uint32Array.from(numbers).sort();
    for (const number of numbers) this.marked[number] = 1;
  }

  /** Whether a changed number lies in [low, high]. */
  anyIn(low: number, high: number): boolean {
    const { sorted } = this;
    let first = 0;
    let past = sorted.length;
    while (first < past) {
      const middle = (first + past) >> 1;
      if (sorted[middle]! < low) first = middle + 1;
      else past = middle;
    }
    return first < sorted.length && sorted[first]! <= high;
  }
}

/** The skip table read last: each block's last number and its bytes (reused from record to record). */
let blockLasts = new Float64Array(64);
let blockBytes = new Float64Array(64);

/** Reads the count and skip table of the body at `cursor.at`, leaving it past the table; returns the block count. */
function readSkipTable(bytes: Uint8Array, cursor: { at: number }): number {
  const count = readVarint(bytes, cursor);
  const blocks = Math.ceil(count / POSTING_BLOCK_SIZE);
  if (blocks > blockLasts.length) {
    blockLasts = new Float64Array(blocks * 2);
    blockBytes = new Float64Array(blocks * 2);
  }
  let last = 0;
  for (let block = 0; block < blocks; block += 1) {
    last += readVarint(bytes, cursor);
    blockLasts[block] = last;
    blockBytes[block] = readVarint(bytes, cursor);
    cursor.at += 1;
  }
  return blocks;
}

/** Whether the record body `bytes[start, end)` holds a posting of a changed number. */
export function holdsChanged(bytes: Uint8Array, start: number, end: number, changed: ChangedNumbers): boolean {
  const cursor = { at: start };
  const blocks = readSkipTable(bytes, cursor);
  const { marked } = changed;
  let blockAt = cursor.at;
  for (let block = 0; block < blocks && blockAt < end; block += 1) {
    const blockEnd = blockAt + blockBytes[block]!;
    // A block's numbers follow the last of the block before it (the first block's start at 0).
    let number = block === 0 ? 0 : blockLasts[block - 1]!;
    if (changed.anyIn(block === 0 ? 0 : number + 1, blockLasts[block]!)) {
      for (cursor.at = blockAt; cursor.at < blockEnd; cursor.at += 1) {
        number += readVarint(bytes, cursor);
        if (marked[number] === 1) return true;
      }
    }
    blockAt = blockEnd;
  }
  return false;
}

/**
 * Whether the record body `bytes[start, end)`'s postings of changed numbers are exactly `adds`
 * (the same numbers with the same impacts, in number order), and its blocks fill it: the patched
 * record is then this one, byte for byte.
 */
export function holdsExactly(
  bytes: Uint8Array,
  start: number,
  end: number,
  changed: ChangedNumbers,
  adds: { numbers: readonly number[]; impacts: readonly number[] },
): boolean {
  const cursor = { at: start };
  const blocks = readSkipTable(bytes, cursor);
  const { marked } = changed;
  let blockAt = cursor.at;
  let matched = 0;
  for (let block = 0; block < blocks; block += 1) {
    const blockEnd = blockAt + blockBytes[block]!;
    let number = block === 0 ? 0 : blockLasts[block - 1]!;
    if (changed.anyIn(block === 0 ? 0 : number + 1, blockLasts[block]!)) {
      for (cursor.at = blockAt; cursor.at < blockEnd; ) {
        number += readVarint(bytes, cursor);
        const impact = bytes[cursor.at++];
        if (marked[number] !== 1) continue;
        if (adds.numbers[matched] !== number || adds.impacts[matched] !== impact) return false;
        matched += 1;
      }
      if (cursor.at !== blockEnd) return false;
    }
    blockAt = blockEnd;
  }
  return matched === adds.numbers.length && blockAt === end;
}

/** Where varintHere reads next (one place, not an object a record: the scan below allocates nothing). */
let here = 0;

function varintHere(bytes: Uint8Array): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[here++] ?? 0;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
  }
}

/** holdsChanged without a view or object made: whether the postings body `bytes[start, …)` holds a changed number. */
function bodyHoldsChanged(bytes: Uint8Array, start: number, changed: ChangedNumbers): boolean {
  here = start;
  const blocks = Math.ceil(varintHere(bytes) / POSTING_BLOCK_SIZE);
  let table = here;
  for (let block = 0; block < blocks; block += 1) {
    varintHere(bytes);
    varintHere(bytes);
    here += 1;
  }
  let blockAt = here;
  let previousLast = 0;
  const { marked } = changed;
  for (let block = 0; block < blocks; block += 1) {
    here = table;
    const last = previousLast + varintHere(bytes);
    const length = varintHere(bytes);
    table = here + 1;
    if (changed.anyIn(block === 0 ? 0 : previousLast + 1, last)) {
      let number = previousLast;
      for (here = blockAt; here < blockAt + length; here += 1) {
        number += varintHere(bytes);
        if (marked[number] === 1) return true;
      }
    }
    blockAt += length;
    previousLast = last;
  }
  return false;
}

/**
 * Walks the first `count` term records of `bytes` (each a varint key length, the key, a varint
 * record length, the record, whose postings body starts `nameAt` bytes and the key's length in):
 * whether any holds a changed number, where the last starts, and where they end.
 */
export function scanTermRecords(
  bytes: Uint8Array,
  count: number,
  nameAt: number,
  changed: ChangedNumbers,
): { holds: boolean; lastAt: number; end: number } {
  let holds = false;
  let lastAt = 0;
  let at = 0;
  for (let record = 0; record < count; record += 1) {
    lastAt = at;
    here = at;
    const keyLength = varintHere(bytes);
    here += keyLength;
    const recordLength = varintHere(bytes);
    at = here + recordLength;
    if (!holds && at <= bytes.length) holds = bodyHoldsChanged(bytes, here + nameAt + keyLength, changed);
  }
  return { holds, lastAt, end: at };
}
