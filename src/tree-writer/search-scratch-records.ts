// The title block (each followed by its documents' excerpt sources) and fetch records of the spilling
// search index writer (search-index-spill-writer.ts), read back from its scratch files by offset
// in block and key order: byte for byte what the in-memory reference writer makes.
import { encodedRecordBytes, encodeRecord } from '../core/packs/pack-encoding.js';
import { RECORD_HEADER_BYTES } from '../core/packs/pack-format.js';
import { excerptSourceKeyOf } from '../core/search/excerpt-source.js';
import { sharedIdPrefixLength, titleBlockKeyOf } from '../core/search/search-index-format.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { compareStrings } from './search-index-output.js';
import type { EncodedRecord, RecordPlace, RecordSource } from './search-record-packer.js';

/** The documents' ids by arrival: an array, or the spill writer's UTF-8 arena (string-arena.ts). */
export interface IdList {
  readonly length: number;
  at(arrival: number): string | undefined;
  /** Its UTF-8 length, when the list knows it without making the string. */
  byteLengthAt?(arrival: number): number;
  /** Its UTF-8 bytes (a view valid until the list changes), when the list holds them so. */
  bytesAt?(arrival: number): Uint8Array;
  /** Whether every id is printable ASCII that JSON writes as it is, when the list knows. */
  holdsOnlyPlainJson?(): boolean;
}

function idByteLength(ids: IdList, arrival: number): number {
  return ids.byteLengthAt?.(arrival) ?? Buffer.byteLength(ids.at(arrival)!);
}

const utf8Encoder = new TextEncoder();

/**
 * The title blocks: JSON `[[shared, rest of id, title, url, source record bytes], …]` of
 * `blockSize` consecutive numbers each, each followed in its pack by its documents' excerpt
 * source records (`sourceLength` 0: none), byte for byte what writeSearchIndex writes;
 * `tailLength`/`readTail` give each entry's `"title","url"`, `readSource` a source's bytes;
 * `isDocumentSource` says which sources are their documents' fetch records too (named by the id too).
 * `digestOf`, when given, is each document's entry digest (what its title entry and excerpt source
 * are made from, search-index-spill-writer.ts): each block then comes as a deferred record
 * (search-record-packer.ts) keyed by its documents' ids, lengths and digests, so a pack made from
 * the same entries as one of the previous build's is linked without reading or encoding them.
 */
export function titleRecords(
  byNumber: Uint32Array,
  blockSize: number,
  ids: IdList,
  tailLength: ArrayLike<number>,
  readTail: (arrival: number) => Uint8Array,
  sourceLength: ArrayLike<number>,
  readSource: (arrival: number) => Uint8Array,
  isDocumentSource: (arrival: number) => boolean,
  digestOf?: (arrival: number) => Uint8Array,
): RecordSource {
  const blockCount = Math.ceil(byNumber.length / blockSize);
  const endOf = (block: number) => Math.min(byNumber.length, (block + 1) * blockSize);
  /** A source record's bytes (0: none). */
  const sourceNames = (number: number) => {
    const key = excerptSourceKeyOf(number, blockSize);
    const arrival = byNumber[number]!;
    return isDocumentSource(arrival) ? [key, ids.at(arrival)!] : [key];
  };
  // encodedRecordBytes of its names, counted without encoding them: the key is ASCII. Counted
  // once a number: the block lengths, the sizes and the records each ask for every one, and an
  // id's length is a walk in its coded block (search-document-ids.ts).
  const sourceBytesByNumber = new Float64Array(byNumber.length);
  for (let number = 0; number < byNumber.length; number += 1) {
    const arrival = byNumber[number]!;
    const length = sourceLength[arrival]!;
    if (length === 0) continue;
    const keyBytes = 2 + excerptSourceKeyLength(number, blockSize);
    const idBytes = isDocumentSource(arrival) ? 2 + idByteLength(ids, arrival) : 0;
    sourceBytesByNumber[number] = RECORD_HEADER_BYTES + keyBytes + idBytes + length;
  }
  const sourceRecordBytes = (number: number) => sourceBytesByNumber[number]!;
  /** Each entry's `[shared,"rest of id",` in the block, and its `,source bytes]` after its tail. */
  const partsOf = (block: number): { heads: string[]; ends: string[] } => {
    const heads: string[] = [];
    const ends: string[] = [];
    let previousId = '';
    for (let number = block * blockSize; number < endOf(block); number += 1) {
      const id = ids.at(byNumber[number]!)!;
      const shared = sharedIdPrefixLength(previousId, id);
      heads.push(`[${shared},${JSON.stringify(id.slice(shared))},`);
      ends.push(`,${sourceRecordBytes(number)}]`);
      previousId = id;
    }
    return { heads, ends };
  };
  const bodyLengthOf = (block: number) => {
    const counted = plainBodyLengthOf(block);
    if (counted !== undefined) return counted;
    const parts = partsOf(block);
    // "[" + items joined by "," + "]", each item head + tail + end: exactly JSON.stringify of the block.
    let length = 2 + (parts.heads.length - 1);
    parts.heads.forEach((head, index) => {
      length += Buffer.byteLength(head) + tailLength[byNumber[block * blockSize + index]!]! + parts.ends[index]!.length;
    });
    return length;
  };
  // The previous id's bytes, for plainBodyLengthOf (bytesAt's view moves with the next id).
  let previousBytes = new Uint8Array(256);
  /**
   * bodyLengthOf counted from the ids' bytes, without making a string an entry, when every id
   * of the block is printable ASCII that JSON writes as it is: then a UTF-16 unit is a byte, and
   * an entry's head `[shared,"rest",` is its digits and the rest's bytes plus five. Undefined
   * otherwise (the strings count it).
   */
  // Known for every id at once: then no id's bytes are checked one by one.
  const allPlain = ids.holdsOnlyPlainJson?.() === true;
  const plainBodyLengthOf = (block: number): number | undefined => {
    if (ids.bytesAt === undefined) return undefined;
    const first = block * blockSize;
    const end = endOf(block);
    let length = 2 + (end - first - 1);
    let previousLength = 0;
    for (let number = first; number < end; number += 1) {
      const arrival = byNumber[number]!;
      const bytes = ids.bytesAt(arrival);
      let shared = 0;
      const most = Math.min(previousLength, bytes.length);
      while (shared < most && previousBytes[shared] === bytes[shared]) shared += 1;
      for (let at = 0; at < bytes.length && !allPlain; at += 1) {
        const byte = bytes[at]!;
        if (byte < 0x20 || byte > 0x7e || byte === 0x22 || byte === 0x5c) return undefined;
      }
      length += decimalDigits(shared) + bytes.length - shared + 5;
      length += tailLength[arrival]! + 2 + decimalDigits(sourceRecordBytes(number));
      if (previousBytes.length < bytes.length) previousBytes = new Uint8Array(2 * bytes.length);
      previousBytes.set(bytes);
      previousLength = bytes.length;
    }
    return length;
  };
  // Each block's body and record bytes, made once: the packer visits the sizes more than once
  // (search-part-boundaries.ts), and each visit made every block's JSON heads again.
  const blockBodyLength = new Uint32Array(blockCount);
  const blockRecordBytes = new Float64Array(blockCount);
  // Each block's key as UTF-8, made once (ASCII: a byte a character).
  const blockKeys: Uint8Array[] = [];
  let totalBytes = 0;
  for (let block = 0; block < blockCount; block += 1) {
    blockKeys.push(utf8Bytes(titleBlockKeyOf(block)));
    blockBodyLength[block] = bodyLengthOf(block);
    let bytes = encodedRecordBytes([blockKeys[block]!], blockBodyLength[block]!);
    for (let number = block * blockSize; number < endOf(block); number += 1) bytes += sourceRecordBytes(number);
    blockRecordBytes[block] = bytes;
    totalBytes += bytes;
  }
  const visitSizes = (visit: (key: Uint8Array, recordBytes: number) => void) => {
    for (let block = 0; block < blockCount; block += 1) visit(blockKeys[block]!, blockRecordBytes[block]!);
  };
  /** A block's record and its excerpt source records, encoded. */
  const makeBlock = (block: number, name: string) => {
    const parts = partsOf(block);
    const body = new Uint8Array(blockBodyLength[block]!);
    body[0] = 0x5b; // [
    let at = 1;
    parts.heads.forEach((head, index) => {
      if (index > 0) body[at++] = 0x2c; // ,
      at += utf8Encoder.encodeInto(head, body.subarray(at)).written;
      const tail = readTail(byNumber[block * blockSize + index]!);
      body.set(tail, at);
      at += tail.length;
      at += utf8Encoder.encodeInto(parts.ends[index]!, body.subarray(at)).written;
    });
    body[at] = 0x5d; // ]
    const followers: Uint8Array[] = [];
    for (let number = block * blockSize; number < endOf(block); number += 1) {
      const arrival = byNumber[number]!;
      if (sourceLength[arrival] === 0) continue;
      followers.push(encodeRecord({ names: sourceNames(number), body: readSource(arrival) }));
    }
    return { encoded: encodeRecord({ names: [name], body }), followers };
  };
  /** A block's inputs (deferred.feed), in a buffer reused from block to block. */
  let inputs = Buffer.alloc(0);
  const blockInputs = (name: string, bodyLength: number, first: number, end: number): Uint8Array => {
    let at = 0;
    const reserve = (bytes: number) => {
      if (at + bytes > inputs.length) {
        const grown = Buffer.alloc(Math.max(2 * inputs.length, at + bytes, 4096));
        inputs.copy(grown, 0, 0, at);
        inputs = grown;
      }
    };
    reserve(12 + 3 * name.length);
    at += inputs.write(`entries\0${name}\0`, at, 'utf8');
    at = inputs.writeUInt32LE(bodyLength, at);
    for (let number = first; number < end; number += 1) {
      const arrival = byNumber[number]!;
      const id = ids.bytesAt?.(arrival) ?? Buffer.from(ids.at(arrival)!, 'utf8');
      const digest = digestOf!(arrival);
      reserve(13 + id.length + digest.length);
      at = inputs.writeUInt32LE(id.length, at);
      inputs.set(id, at);
      at += id.length;
      at = inputs.writeUInt32LE(tailLength[arrival]!, at);
      at = inputs.writeUInt32LE(sourceLength[arrival]!, at);
      inputs[at++] = isDocumentSource(arrival) ? 1 : 0;
      inputs.set(digest, at);
      at += digest.length;
    }
    return inputs.subarray(0, at);
  };
  return {
    count: blockCount,
    totalBytes,
    keyBytes: 8 * blockCount,
    visitSizes,
    records: function* () {
      for (let block = 0; block < blockCount; block += 1) {
        const name = titleBlockKeyOf(block);
        const followerArrivals: number[] = [];
        const followerLengths: number[] = [];
        for (let number = block * blockSize; number < endOf(block); number += 1) {
          const arrival = byNumber[number]!;
          if (sourceLength[arrival] === 0) continue;
          followerLengths.push(sourceRecordBytes(number));
          followerArrivals.push(arrival);
        }
        const make = () => makeBlock(block, name);
        const record: EncodedRecord = { key: blockKeys[block]!, name, encoded: new Uint8Array(0), followerArrivals };
        if (digestOf !== undefined)
          record.deferred = {
            length: encodedRecordBytes([blockKeys[block]!], blockBodyLength[block]!),
            followerLengths,
            // Everything the block's bytes are made from: its number, and each entry's id, lengths
            // and digest (which covers its title, url and excerpt source), laid out as bytes (a
            // length before each id) and hashed in one update.
            feed: (hash) => {
              hash.update(blockInputs(name, blockBodyLength[block]!, block * blockSize, endOf(block)));
            },
            make,
          };
        else Object.assign(record, make());
        yield record;
      }
    },
  };
}

/** excerptSourceKeyOf's length, counted without making it: two keys of at least eight hex digits each. */
function excerptSourceKeyLength(number: number, blockSize: number): number {
  return hexKeyLength(Math.floor(number / blockSize)) + hexKeyLength(number);
}

/** titleBlockKeyOf's length: the hex digits, padded to eight. */
function hexKeyLength(value: number): number {
  // Below 16^8 (every number of a Uint32Array) eight: no walk over the digits a document.
  if (value < 0x1_0000_0000) return 8;
  let digits = 1;
  for (let rest = value; rest >= 16; rest = Math.floor(rest / 16)) digits += 1;
  return Math.max(8, digits);
}

/** How many digits a non-negative integer is written with. */
function decimalDigits(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
}

/**
 * The fetch records, by call key (SipHash of the id) then id, as writeSearchIndex sorts them; a
 * document whose body is empty is its document source (`placeOf`: where it lies in a title pack).
 */
export function documentRecords(
  ids: IdList,
  keyHigh: ArrayLike<number>,
  keyLow: ArrayLike<number>,
  bodyLength: ArrayLike<number>,
  readBody: (arrival: number) => Uint8Array,
  placeOf: (arrival: number) => RecordPlace,
): RecordSource {
  const order = Uint32Array.from({ length: ids.length }, (_, arrival) => arrival).sort(
    (a, b) => keyHigh[a]! - keyHigh[b]! || keyLow[a]! - keyLow[b]! || compareStrings(ids.at(a)!, ids.at(b)!),
  );
  let totalBytes = 0;
  // A placed record's bytes are in its title pack, not here. Made once: the sizes are visited more
  // than once (search-part-boundaries.ts).
  const recordBytesByArrival = new Uint32Array(ids.length);
  for (let arrival = 0; arrival < ids.length; arrival += 1) {
    const bytes =
      bodyLength[arrival] === 0 ? 0 : RECORD_HEADER_BYTES + 2 + idByteLength(ids, arrival) + bodyLength[arrival]!;
    recordBytesByArrival[arrival] = bytes;
    totalBytes += bytes;
  }
  const recordBytes = (arrival: number) => recordBytesByArrival[arrival]!;
  // Every key (big-endian high then low half), in key order, written once: the sizes are visited
  // more than once and the records once, and a buffer and a DataView a visit were most of the
  // part's cost in an edit build (each walk runs about once, before V8 optimizes it).
  const keys = new Uint8Array(8 * order.length);
  for (let position = 0; position < order.length; position += 1) {
    const arrival = order[position]!;
    const high = keyHigh[arrival]!;
    const low = keyLow[arrival]!;
    const at = 8 * position;
    keys[at] = high >>> 24;
    keys[at + 1] = high >>> 16;
    keys[at + 2] = high >>> 8;
    keys[at + 3] = high;
    keys[at + 4] = low >>> 24;
    keys[at + 5] = low >>> 16;
    keys[at + 6] = low >>> 8;
    keys[at + 7] = low;
  }
  const keyAt = (position: number) => new Uint8Array(keys.buffer, 8 * position, 8);
  return {
    count: ids.length,
    totalBytes,
    keyBytes: 8 * ids.length,
    visitSizes: (visit) => {
      for (let position = 0; position < order.length; position += 1)
        visit(keyAt(position), recordBytes(order[position]!));
    },
    records: function* () {
      for (let position = 0; position < order.length; position += 1) {
        const arrival = order[position]!;
        const name = ids.at(arrival)!;
        if (bodyLength[arrival] === 0)
          yield { key: keyAt(position), name, encoded: new Uint8Array(0), placedAt: placeOf(arrival) };
        else yield { key: keyAt(position), name, encoded: encodeRecord({ names: [name], body: readBody(arrival) }) };
      }
    },
  };
}
