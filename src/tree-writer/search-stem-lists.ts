// Leaves out of a search index's term records (index format 6, issue #40) each stem list that is
// byte for byte the list of the word that is the stem (a stem whose only word is itself: "the",
// most numbers, every word of one form), which the reader reads instead (stem.ts, wordOfStemKey):
// on man pages and node_modules' Markdown those records and their index entries were 8% and 19%
// of the text's size. Streams: a stem key sorts right after the word that is the stem, so one walk
// holding the previous record finds each pair; a flag per record says which are left out.
import { RECORD_HEADER_BYTES } from '../core/packs/pack-format.js';
import { isStemKey, wordOfStemKey } from '../core/search/stem.js';
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

/** Whether term record `body` under `name` repeats the list of its stem's word (`wordBody`), so it is left out. */
export function repeatsWordList(name: string, body: Uint8Array, wordBody: Uint8Array | undefined): boolean {
  return wordBody !== undefined && wordOfStemKey(name) !== undefined && equalBytes(body, wordBody);
}

/** Whether `stemKey` is `word`'s key and STEM_KEY_SUFFIX: the stem key a word that is its own stem has. */
function isStemKeyOf(stemKey: Uint8Array, word: Uint8Array): boolean {
  return isStemKey(stemKey) && stemKey.length === word.length + 1 && equalBytes(stemKey.subarray(0, word.length), word);
}

/** `source` (term records sorted by key) without the stem lists that repeat their word's. */
export function withoutRepeatedStemLists(source: RecordSource): RecordSource {
  const dropped = new Uint8Array(source.count);
  let count = source.count;
  let totalBytes = source.totalBytes;
  let keyBytes = source.keyBytes;
  // A stem key is its stem and a 0x01 byte, so it sorts right after the word that is the stem.
  let previous: EncodedRecord | undefined;
  let position = 0;
  for (const record of source.records()) {
    const at = position++;
    const word = previous;
    previous = record;
    if (word === undefined || !isStemKeyOf(record.key, word.key)) continue;
    if (!repeatsWordList(record.name, bodyOf(record), bodyOf(word))) continue;
    dropped[at] = 1;
    count -= 1;
    totalBytes -= record.encoded.length;
    keyBytes -= record.key.length;
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
