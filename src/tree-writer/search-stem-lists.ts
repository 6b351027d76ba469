// Leaves out of a search index's term records (index format 6, issue #40) each stem list that is
// byte for byte the list of the word that is the stem (a stem whose only word is itself: "the",
// most numbers, every word of one form), which the reader reads instead (stem.ts, wordOfStemKey):
// on man pages and node_modules' Markdown those records and their index entries were 8% and 19%
// of the text's size. Streams: the records are walked twice side by side (stems and words both
// come in the order of the stem's bytes), holding one record of each and a flag per record.
import { compareKeys, RECORD_HEADER_BYTES } from '../core/packs/pack-format.js';
import { wordOfStemKey } from '../core/search/stem.js';
import type { EncodedRecord, RecordSource } from './search-record-packer.js';

/** A term record's body: after its header and its one name (the term, as its key). */
function bodyOf(record: EncodedRecord): Uint8Array {
  return record.encoded.subarray(RECORD_HEADER_BYTES + 2 + record.key.length);
}

function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

const STEM_BYTE = '~'.charCodeAt(0);

/** Whether term record `body` under `name` repeats the list of its stem's word (`wordBody`), so it is left out. */
export function repeatsWordList(name: string, body: Uint8Array, wordBody: Uint8Array | undefined): boolean {
  return wordBody !== undefined && wordOfStemKey(name) !== undefined && equalBytes(body, wordBody);
}

/** `source` (term records sorted by key) without the stem lists that repeat their word's. */
export function withoutRepeatedStemLists(source: RecordSource): RecordSource {
  const dropped = new Uint8Array(source.count);
  let count = source.count;
  let totalBytes = source.totalBytes;
  let keyBytes = source.keyBytes;
  const words = (function* () {
    for (const record of source.records()) if (record.key[0] !== STEM_BYTE) yield record;
  })();
  try {
    let word = words.next();
    let position = 0;
    for (const record of source.records()) {
      const at = position++;
      if (record.key[0] !== STEM_BYTE) continue;
      const stem = record.key.subarray(1);
      while (!word.done && compareKeys(word.value.key, stem) < 0) word = words.next();
      const wordBody = !word.done && compareKeys(word.value.key, stem) === 0 ? bodyOf(word.value) : undefined;
      if (!repeatsWordList(record.name, bodyOf(record), wordBody)) continue;
      dropped[at] = 1;
      count -= 1;
      totalBytes -= record.encoded.length;
      keyBytes -= record.key.length;
    }
  } finally {
    words.return(undefined);
  }
  return {
    count,
    totalBytes,
    keyBytes,
    visitSizes: (visit) => {
      let position = 0;
      source.visitSizes((key, recordBytes) => {
        if (dropped[position++] === 0) visit(key, recordBytes);
      });
    },
    records: function* () {
      let position = 0;
      for (const record of source.records()) if (dropped[position++] === 0) yield record;
    },
  };
}
