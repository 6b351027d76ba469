// The title block (each followed by its documents' excerpt sources) and fetch records of the spilling
// search index writer (search-index-spill-writer.ts), read back from its scratch files by offset
// in block and key order: byte for byte what the in-memory reference writer makes.
import { encodedRecordBytes, encodeRecord } from '../core/packs/pack-encoding.js';
import { excerptSourceKeyOf } from '../core/search/excerpt-source.js';
import { sharedIdPrefixLength, titleBlockKeyOf } from '../core/search/search-index-format.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { compareStrings } from './search-index-output.js';
import type { RecordPlace, RecordSource } from './search-record-packer.js';

/** The documents' ids by arrival: an array, or the spill writer's UTF-8 arena (string-arena.ts). */
export interface IdList {
  readonly length: number;
  at(arrival: number): string | undefined;
}

const utf8Encoder = new TextEncoder();

/**
 * The title blocks: JSON `[[shared, rest of id, title, url, source record bytes], …]` of
 * `blockSize` consecutive numbers each, each followed in its pack by its documents' excerpt
 * source records (`sourceLength` 0: none), byte for byte what writeSearchIndex writes;
 * `tailLength`/`readTail` give each entry's `"title","url"`, `readSource` a source's bytes;
 * `isDocumentSource` says which sources are their documents' fetch records too (named by the id too).
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
): RecordSource {
  const blockCount = Math.ceil(byNumber.length / blockSize);
  const endOf = (block: number) => Math.min(byNumber.length, (block + 1) * blockSize);
  /** A source record's bytes (0: none). */
  const sourceNames = (number: number) => {
    const key = excerptSourceKeyOf(number, blockSize);
    const arrival = byNumber[number]!;
    return isDocumentSource(arrival) ? [key, ids.at(arrival)!] : [key];
  };
  const sourceRecordBytes = (number: number) => {
    const length = sourceLength[byNumber[number]!]!;
    return length === 0 ? 0 : encodedRecordBytes(sourceNames(number).map(utf8Bytes), length);
  };
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
    const parts = partsOf(block);
    // "[" + items joined by "," + "]", each item head + tail + end: exactly JSON.stringify of the block.
    let length = 2 + (parts.heads.length - 1);
    parts.heads.forEach((head, index) => {
      length += Buffer.byteLength(head) + tailLength[byNumber[block * blockSize + index]!]! + parts.ends[index]!.length;
    });
    return length;
  };
  // Each block's body and record bytes, made once: the packer visits the sizes more than once
  // (search-part-boundaries.ts), and each visit made every block's JSON heads again.
  const blockBodyLength = new Uint32Array(blockCount);
  const blockRecordBytes = new Float64Array(blockCount);
  let totalBytes = 0;
  for (let block = 0; block < blockCount; block += 1) {
    blockBodyLength[block] = bodyLengthOf(block);
    let bytes = encodedRecordBytes([utf8Bytes(titleBlockKeyOf(block))], blockBodyLength[block]!);
    for (let number = block * blockSize; number < endOf(block); number += 1) bytes += sourceRecordBytes(number);
    blockRecordBytes[block] = bytes;
    totalBytes += bytes;
  }
  const visitSizes = (visit: (key: Uint8Array, recordBytes: number) => void) => {
    for (let block = 0; block < blockCount; block += 1)
      visit(utf8Bytes(titleBlockKeyOf(block)), blockRecordBytes[block]!);
  };
  return {
    count: blockCount,
    totalBytes,
    keyBytes: 8 * blockCount,
    visitSizes,
    records: function* () {
      for (let block = 0; block < blockCount; block += 1) {
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
        const name = titleBlockKeyOf(block);
        const followers: Uint8Array[] = [];
        const followerArrivals: number[] = [];
        for (let number = block * blockSize; number < endOf(block); number += 1) {
          const arrival = byNumber[number]!;
          if (sourceLength[arrival] === 0) continue;
          followers.push(encodeRecord({ names: sourceNames(number), body: readSource(arrival) }));
          followerArrivals.push(arrival);
        }
        yield {
          key: utf8Bytes(name),
          name,
          encoded: encodeRecord({ names: [name], body }),
          followers,
          followerArrivals,
        };
      }
    },
  };
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
      bodyLength[arrival] === 0 ? 0 : encodedRecordBytes([utf8Bytes(ids.at(arrival)!)], bodyLength[arrival]!);
    recordBytesByArrival[arrival] = bytes;
    totalBytes += bytes;
  }
  const recordBytes = (arrival: number) => recordBytesByArrival[arrival]!;
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
      for (const arrival of order) visit(keyOf(arrival), recordBytes(arrival));
    },
    records: function* () {
      for (const arrival of order) {
        const name = ids.at(arrival)!;
        if (bodyLength[arrival] === 0)
          yield { key: keyOf(arrival), name, encoded: new Uint8Array(0), placedAt: placeOf(arrival) };
        else yield { key: keyOf(arrival), name, encoded: encodeRecord({ names: [name], body: readBody(arrival) }) };
      }
    },
  };
}
