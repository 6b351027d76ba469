// Leaves out of a search index's term records (index format 6, issue #40) each stem list that is
// byte for byte the list of the word that is the stem (a stem whose only word is itself: "the",
// most numbers, every word of one form), which the reader reads instead (stem.ts, wordOfStemKey):
// on man pages and node_modules' Markdown those records and their index entries were 8% and 19%
// of the text's size. Streams: a stem key sorts right after the word that is the stem, so one walk
// holding the previous record finds each pair; a flag per record says which are left out.
import { RECORD_HEADER_BYTES } from '../core/packs/pack-format.js';
import { isStemKey, wordOfStemKey } from '../core/search/stem.js';
import type { EncodedRecord, RecordSource } from './search-record-packer.js';

/** As the term records' source decodes a key into its record's name. */
const nameDecoder = new TextDecoder();

/** A term record's body: after its header and its one name (the term, as its key). */
function bodyOf(record: { key: Uint8Array; encoded: Uint8Array }): Uint8Array {
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

/** Whether `bytes` begins with the first `length` bytes of `prefix`. */
function startsWith(bytes: Uint8Array, prefix: Uint8Array, length: number): boolean {
  for (let index = 0; index < length; index += 1) if (bytes[index] !== prefix[index]) return false;
  return true;
}

/** Copies `length` bytes of `source` from `from` to the start of `target`: a short list by hand (no view made). */
function copyInto(target: Uint8Array, source: Uint8Array, from: number, length: number): void {
  if (length > 64) target.set(source.subarray(from, from + length));
  else for (let index = 0; index < length; index += 1) target[index] = source[from + index]!;
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
  let position = 0;
  const walk = (
    record: { key: Uint8Array; encoded: Uint8Array },
    word: { key: Uint8Array; body: Uint8Array } | undefined,
    nameOf: () => string,
  ) => {
    const at = position++;
    if (word === undefined || !isStemKeyOf(record.key, word.key)) return;
    if (!repeatsWordList(nameOf(), bodyOf(record), word.body)) return;
    dropped[at] = 1;
    count -= 1;
    totalBytes -= record.encoded.length;
    keyBytes -= record.key.length;
  };
  if (source.visitRecords) {
    // The records as views of the reader's buffer: the one before is copied into buffers of its
    // own. Compared in place, with no view or object made a record (they were most of this walk's
    // garbage): only a stem key right after its word makes views, to compare their lists.
    let wordKey = new Uint8Array(64);
    let wordKeyLength = -1;
    let wordBody = new Uint8Array(1024);
    let wordBodyLength = 0;
    source.visitRecords((key, encoded) => {
      const bodyAt = RECORD_HEADER_BYTES + 2 + key.length;
      if (
        wordKeyLength >= 0 &&
        key.length === wordKeyLength + 1 &&
        isStemKey(key) &&
        startsWith(key, wordKey, wordKeyLength)
      ) {
        const record = { key, encoded };
        walk(record, { key: wordKey.subarray(0, wordKeyLength), body: wordBody.subarray(0, wordBodyLength) }, () =>
          nameDecoder.decode(key),
        );
      } else position += 1;
      if (key.length > wordKey.length) wordKey = new Uint8Array(key.length * 2);
      wordKey.set(key);
      wordKeyLength = key.length;
      const bodyLength = encoded.length - bodyAt;
      if (bodyLength > wordBody.length) wordBody = new Uint8Array(bodyLength * 2);
      copyInto(wordBody, encoded, bodyAt, bodyLength);
      wordBodyLength = bodyLength;
    });
  } else {
    let previous: EncodedRecord | undefined;
    for (const record of source.records()) {
      const word = previous;
      previous = record;
      walk(record, word && { key: word.key, body: bodyOf(word) }, () => record.name);
    }
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
    ...(source.visitRecords
      ? {
          visitRecords: (visit: (key: Uint8Array, encoded: Uint8Array) => void) => {
            let position = 0;
            source.visitRecords!((key, encoded) => {
              if (dropped[position++] === 0) visit(key, encoded);
            });
          },
        }
      : {}),
    records: function* () {
      let position = 0;
      for (const record of source.records()) if (dropped[position++] === 0) yield record;
    },
  };
}
