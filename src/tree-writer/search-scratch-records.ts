// The title block (each with its documents' excerpt sources) and fetch records of the spilling
// search index writer (search-index-spill-writer.ts), read back from its scratch files by offset
// in block and key order: byte for byte what the in-memory reference writer makes.
import { encodedRecordBytes, encodeRecord } from '../core/packs/pack-encoding.js';
import { excerptSourceKeyOf } from '../core/search/excerpt-source.js';
import { sharedIdPrefixLength, titleBlockKeyOf } from '../core/search/search-index-format.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import { compareStrings } from './search-index-output.js';
import type { RecordSource } from './search-record-packer.js';

const utf8Encoder = new TextEncoder();

/**
 * The title blocks: JSON `[[shared, rest of id, title, url], …]` of `blockSize` consecutive
 * numbers each, each followed by its documents' excerpt sources (`sourceLength` 0: none), byte for
 * byte what writeSearchIndex writes; `tailLength`/`readTail` give each entry's `"title","url"`,
 * `readSource` a source's bytes. Only a block's last record may close a pack or index.
 */
export function titleRecords(
  byNumber: Uint32Array,
  blockSize: number,
  ids: readonly string[],
  tailLength: ArrayLike<number>,
  readTail: (arrival: number) => Uint8Array,
  sourceLength: ArrayLike<number>,
  readSource: (arrival: number) => Uint8Array,
): RecordSource {
  const blockCount = Math.ceil(byNumber.length / blockSize);
  const endOf = (block: number) => Math.min(byNumber.length, (block + 1) * blockSize);
  /** Each entry's `[shared,"rest of id",` in the block. */
  const headsOf = (block: number): string[] => {
    const heads: string[] = [];
    let previousId = '';
    for (let number = block * blockSize; number < endOf(block); number += 1) {
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
  /** The last number of the block with a source, or -1. */
  const lastSourceOf = (block: number) => {
    for (let number = endOf(block) - 1; number >= block * blockSize; number -= 1)
      if (sourceLength[byNumber[number]!]! > 0) return number;
    return -1;
  };
  const visitSizes = (visit: (key: Uint8Array, recordBytes: number, closable: boolean) => void) => {
    for (let block = 0; block < blockCount; block += 1) {
      const name = utf8Bytes(titleBlockKeyOf(block));
      const last = lastSourceOf(block);
      visit(name, encodedRecordBytes([name], bodyLengthOf(block)), last < 0);
      for (let number = block * blockSize; number <= last; number += 1) {
        const length = sourceLength[byNumber[number]!]!;
        if (length === 0) continue;
        const source = utf8Bytes(excerptSourceKeyOf(number, blockSize));
        visit(source, encodedRecordBytes([source], length), number === last);
      }
    }
  };
  let count = 0;
  let totalBytes = 0;
  let keyBytes = 0;
  visitSizes((key, bytes) => {
    count += 1;
    totalBytes += bytes;
    keyBytes += key.length;
  });
  return {
    count,
    totalBytes,
    keyBytes,
    visitSizes,
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
        const last = lastSourceOf(block);
        yield { key: utf8Bytes(name), name, encoded: encodeRecord({ names: [name], body }), closable: last < 0 };
        for (let number = block * blockSize; number <= last; number += 1) {
          const arrival = byNumber[number]!;
          if (sourceLength[arrival] === 0) continue;
          const source = excerptSourceKeyOf(number, blockSize);
          const encoded = encodeRecord({ names: [source], body: readSource(arrival) });
          yield { key: utf8Bytes(source), name: source, encoded, closable: number === last };
        }
      }
    },
  };
}

/** The fetch records, by call key (SipHash of the id) then id, as writeSearchIndex sorts them. */
export function documentRecords(
  ids: readonly string[],
  keyHigh: ArrayLike<number>,
  keyLow: ArrayLike<number>,
  bodyLength: ArrayLike<number>,
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
        visit(keyOf(arrival), encodedRecordBytes([utf8Bytes(ids[arrival]!)], bodyLength[arrival]!), true);
    },
    records: function* () {
      for (const arrival of order) {
        const name = ids[arrival]!;
        yield { key: keyOf(arrival), name, encoded: encodeRecord({ names: [name], body: readBody(arrival) }) };
      }
    },
  };
}
