// One kept term record patched for the documents an edit made anew (issue #39, "Edits in a
// second"): a record holding a changed document's number loses that posting, each key of a
// changed document's text gains one, every other record is the previous one as it is. Shared by
// the patch of the whole kept records file (search-kept-terms.ts patchTermRecords) and the patch
// of the pack ranges an edit touches (search-terms-edit.ts). A record is encodeImpactPostings of
// its numbers and impacts, as a from-scratch merge makes it, so the index is byte for byte the same.
import { encodeRecord } from '../core/packs/pack-encoding.js';
import { encodeImpactPostings, impactOf, POSTING_BLOCK_SIZE, readVarint } from '../core/search/postings.js';
import { crc32 } from 'node:zlib';
import { RECORD_HEADER_BYTES } from '../core/packs/pack-format.js';
import { ChangedNumbers, holdsChanged, holdsExactly } from './search-changed-postings.js';

/** A document whose share was made anew (not taken from the kept documents): its number and terms. */
export interface ChangedDocument {
  number: number;
  keys: readonly string[];
  counts: readonly number[];
  tokenCount: number;
}

/** A record's name bytes start after its 14-byte header and the name's 2-byte length (one name). */
export const RECORD_NAME_AT = 16;

/** Where a record's CRC-32 of the bytes after its header lies (encodeRecordInto). */
const RECORD_CHECKSUM_AT = 10;

/** Told each record patched or kept: its key, its encoded bytes (views valid only during the call), its previous position (-1: made anew). */
export type EmitTermRecord = (key: Uint8Array, encoded: Uint8Array, origin: number) => void;

/** A key a changed document gains a posting under, with its UTF-8 bytes. */
export interface AddedKey {
  key: string;
  bytes: Buffer;
}

/** Reads a postings body's count and moves past its skip table (per block of 128: two varints and a byte). */
function readCountPastSkips(body: Uint8Array, cursor: { at: number }): number {
  const count = readVarint(body, cursor);
  for (let block = 0; block < Math.ceil(count / POSTING_BLOCK_SIZE); block += 1) {
    readVarint(body, cursor);
    readVarint(body, cursor);
    cursor.at += 1;
  }
  return count;
}

/**
 * Postings decoded and merged, reused from record to record: a patched list of a word in every
 * one of 100,000 documents was four JavaScript arrays of 100,000 numbers each, in V8's
 * large-object space, and an edit patches every word of the edited document.
 */
let oldNumbers = new Uint32Array(1024);
let oldImpacts = new Uint8Array(1024);
let mergedNumbers = new Uint32Array(1024);
let mergedImpacts = new Uint8Array(1024);

/** Decodes a record body's postings (encodeImpactPostings's layout) into oldNumbers and oldImpacts; returns their count. */
function decodePostings(body: Uint8Array): number {
  const cursor = { at: 0 };
  const count = readCountPastSkips(body, cursor);
  if (count > oldNumbers.length) {
    oldNumbers = new Uint32Array(count * 2);
    oldImpacts = new Uint8Array(count * 2);
  }
  let number = 0;
  for (let index = 0; index < count; index += 1) {
    number += readVarint(body, cursor);
    oldNumbers[index] = number;
    oldImpacts[index] = body[cursor.at++]!;
  }
  if (cursor.at !== body.length) throw new RangeError('a kept term record does not parse');
  return count;
}

/**
 * The patch of the previous records, told them in key order: `addedKeys` (sorted by their bytes)
 * are the keys the changed documents gain postings under; `next` is the first not yet met.
 */
export class TermRecordPatch {
  readonly changedNumbers: ChangedNumbers;
  readonly addedKeys: AddedKey[];
  private readonly added = new Map<string, { numbers: number[]; impacts: number[] }>();
  next = 0;

  constructor(changed: readonly ChangedDocument[], documentCount: number, averageLength: number) {
    this.changedNumbers = new ChangedNumbers(
      changed.map((document) => document.number),
      documentCount,
    );
    for (const document of [...changed].sort((left, right) => left.number - right.number)) {
      document.keys.forEach((key, position) => {
        const postings = this.added.get(key) ?? { numbers: [], impacts: [] };
        if (postings.numbers.length === 0) this.added.set(key, postings);
        postings.numbers.push(document.number);
        postings.impacts.push(impactOf(document.counts[position]!, document.tokenCount, averageLength));
      });
    }
    // Keys the previous records lack come in between them, in the records' (UTF-8 byte) order.
    this.addedKeys = [...this.added.keys()].map((key) => ({ key, bytes: Buffer.from(key, 'utf8') }));
    this.addedKeys.sort((left, right) => Buffer.compare(left.bytes, right.bytes));
  }

  /** Emits the added keys before position `end` of addedKeys not yet met (each a record of its own). */
  emitAddedUpTo(end: number, emit: EmitTermRecord): void {
    while (this.next < end) {
      const entry = this.addedKeys[this.next++]!;
      const postings = this.added.get(entry.key)!;
      emitPostings(entry.bytes, entry.key, postings.numbers, postings.impacts, emit);
    }
  }

  /**
   * Emits the added keys below `keyBytes`, then the previous record `encoded` under it (at
   * `position`), patched: as it is when no changed document touches it.
   */
  record(keyBytes: Uint8Array, encoded: Uint8Array, position: number, emit: EmitTermRecord): void {
    const { addedKeys } = this;
    while (this.next < addedKeys.length && Buffer.compare(addedKeys[this.next]!.bytes, keyBytes) < 0)
      this.emitAddedUpTo(this.next + 1, emit);
    // The added keys come in the records' order: this record's key, if added, is the next one.
    const addedKey =
      this.next < addedKeys.length && addedKeys[this.next]!.bytes.equals(keyBytes) ? addedKeys[this.next]! : undefined;
    const adds = addedKey && this.added.get(addedKey.key);
    if (adds !== undefined) this.next += 1;
    const bodyStart = RECORD_NAME_AT + keyBytes.length;
    if (
      adds === undefined
        ? !holdsChanged(encoded, bodyStart, encoded.length, this.changedNumbers)
        : holdsExactly(encoded, bodyStart, encoded.length, this.changedNumbers, adds)
    ) {
      emit(keyBytes, encoded, position);
      return;
    }
    const inPlace = adds && withImpactsReplaced(encoded, bodyStart, this.changedNumbers, adds);
    if (inPlace !== undefined) {
      emit(keyBytes, inPlace, -1);
      return;
    }
    const term = addedKey?.key ?? Buffer.from(keyBytes).toString('utf8');
    const oldCount = decodePostings(encoded.subarray(bodyStart));
    let addAt = 0;
    const addNumbers = adds?.numbers ?? [];
    if (oldCount + addNumbers.length > mergedNumbers.length) {
      mergedNumbers = new Uint32Array((oldCount + addNumbers.length) * 2);
      mergedImpacts = new Uint8Array(mergedNumbers.length);
    }
    const { marked } = this.changedNumbers;
    let merged = 0;
    for (let index = 0; index <= oldCount; index += 1) {
      const number = index < oldCount ? oldNumbers[index]! : Number.POSITIVE_INFINITY;
      while (addAt < addNumbers.length && addNumbers[addAt]! < number) {
        mergedNumbers[merged] = addNumbers[addAt]!;
        mergedImpacts[merged++] = adds!.impacts[addAt]!;
        addAt += 1;
      }
      if (index === oldCount || marked[number] === 1) continue;
      mergedNumbers[merged] = number;
      mergedImpacts[merged++] = oldImpacts[index]!;
    }
    emitPostings(keyBytes, term, mergedNumbers.subarray(0, merged), mergedImpacts.subarray(0, merged), emit);
  }
}

/** Each skip table entry's impact byte (its place in the record), reused from record to record. */
let impactPlaces = new Float64Array(64);

/**
 * The record `encoded` (its postings body at `bodyStart`) with the impacts of the changed numbers
 * replaced by those of `adds`, when its changed numbers are exactly those of `adds` (a document
 * whose text changed but still holds the word): the postings and block lengths stay, so only
 * those impact bytes, their blocks' best impacts and the record's CRC-32 change, and the record
 * is what encodeImpactPostings makes of the merged postings without decoding the others.
 * Undefined when a number is added or taken away.
 */
function withImpactsReplaced(
  encoded: Uint8Array,
  bodyStart: number,
  changed: ChangedNumbers,
  adds: { numbers: readonly number[]; impacts: readonly number[] },
): Uint8Array | undefined {
  const cursor = { at: bodyStart };
  const count = readVarint(encoded, cursor);
  const blocks = Math.ceil(count / POSTING_BLOCK_SIZE);
  if (blocks > impactPlaces.length) impactPlaces = new Float64Array(blocks * 2);
  const lasts: number[] = [];
  const lengths: number[] = [];
  let last = 0;
  for (let block = 0; block < blocks; block += 1) {
    last += readVarint(encoded, cursor);
    lasts.push(last);
    lengths.push(readVarint(encoded, cursor));
    impactPlaces[block] = cursor.at++;
  }
  const { marked } = changed;
  let copy: Uint8Array | undefined;
  let matched = 0;
  let blockAt = cursor.at;
  for (let block = 0; block < blocks; block += 1) {
    const blockEnd = blockAt + lengths[block]!;
    let number = block === 0 ? 0 : lasts[block - 1]!;
    if (changed.anyIn(block === 0 ? 0 : number + 1, lasts[block]!)) {
      copy ??= encoded.slice();
      let best = 0;
      for (cursor.at = blockAt; cursor.at < blockEnd; ) {
        number += readVarint(encoded, cursor);
        const impactAt = cursor.at++;
        if (marked[number] === 1) {
          if (adds.numbers[matched] !== number) return undefined;
          copy[impactAt] = adds.impacts[matched++]!;
        }
        if (copy[impactAt]! > best) best = copy[impactAt]!;
      }
      copy[impactPlaces[block]!] = best;
    }
    blockAt = blockEnd;
  }
  if (copy === undefined || matched !== adds.numbers.length) return undefined;
  new DataView(copy.buffer, copy.byteOffset, copy.byteLength).setUint32(
    RECORD_CHECKSUM_AT,
    crc32(copy.subarray(RECORD_HEADER_BYTES)),
  );
  return copy;
}

function emitPostings(
  key: Uint8Array,
  term: string,
  numbers: ArrayLike<number>,
  impacts: ArrayLike<number>,
  emit: EmitTermRecord,
): void {
  if (numbers.length > 0) emit(key, encodeRecord({ names: [term], body: encodeImpactPostings(numbers, impacts) }), -1);
}
