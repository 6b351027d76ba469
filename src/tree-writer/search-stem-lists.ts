// Leaves out of a search index's term records (index format 6, issue #40) each stem list that is
// byte for byte the list of the word that is the stem (a stem whose only word is itself: "the",
// most numbers, every word of one form), which the reader reads instead (stem.ts, wordOfStemKey):
// on man pages and node_modules' Markdown those records and their index entries were 8% and 19%
// of the text's size. Streams: a stem key sorts right after the word that is the stem, so the
// writer of the records, holding the previous one, finds each pair; a flag per record says which are left out.
import { RECORD_HEADER_BYTES } from '../core/packs/pack-format.js';
import { isStemKey, wordOfStemKey } from '../core/search/stem.js';
import { grownTypedArray } from './grown-typed-array.js';
import type { RecordSource } from './search-record-packer.js';

/** As the term records' source decodes a key into its record's name. */
const nameDecoder = new TextDecoder();

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

/**
 * Tells, of each term record in key order, whether it is a stem list that repeats its word's
 * (the record before it). Compared in place, with no view or object made a record: only a stem
 * key right after its word makes views, to compare their lists.
 */
export class StemListJudge {
  // The record before, copied into buffers of its own (the records told are views valid during the call).
  private wordKey = new Uint8Array(64);
  private wordKeyLength = -1;
  private wordBody = new Uint8Array(1024);
  private wordBodyLength = 0;

  /** Whether the next record (views valid only during the call) is left out; it is then the record before. */
  drops(key: Uint8Array, encoded: Uint8Array): boolean {
    const bodyAt = RECORD_HEADER_BYTES + 2 + key.length;
    // A stem key is its stem and a 0x01 byte, so it sorts right after the word that is the stem.
    const dropped =
      this.wordKeyLength >= 0 &&
      key.length === this.wordKeyLength + 1 &&
      isStemKey(key) &&
      startsWith(key, this.wordKey, this.wordKeyLength) &&
      repeatsWordList(
        nameDecoder.decode(key),
        encoded.subarray(bodyAt),
        this.wordBody.subarray(0, this.wordBodyLength),
      );
    if (key.length > this.wordKey.length) this.wordKey = new Uint8Array(key.length * 2);
    this.wordKey.set(key);
    this.wordKeyLength = key.length;
    const bodyLength = encoded.length - bodyAt;
    if (bodyLength > this.wordBody.length) this.wordBody = new Uint8Array(bodyLength * 2);
    copyInto(this.wordBody, encoded, bodyAt, bodyLength);
    this.wordBodyLength = bodyLength;
    return dropped;
  }
}

/**
 * Finds, as the term records are written (told each in key order), the stem lists that repeat
 * their word's, and gives the records without them: deciding as they are written spares a read of
 * the whole terms file (the records of a 10,000-document project were an edit's largest walk).
 */
export class RepeatedStemLists {
  private dropped = new Uint8Array(1024);
  private position = 0;
  private droppedCount = 0;
  private droppedBytes = 0;
  private droppedKeyBytes = 0;
  private readonly judge = new StemListJudge();

  /** Tells the next record (views valid only during the call). */
  readonly visit = (key: Uint8Array, encoded: Uint8Array): void => {
    const at = this.position++;
    this.dropped = grownTypedArray(this.dropped, this.position);
    if (this.judge.drops(key, encoded)) {
      this.dropped[at] = 1;
      this.droppedCount += 1;
      this.droppedBytes += encoded.length;
      this.droppedKeyBytes += key.length;
    }
  };
  /** `source`, whose every record was told in order, without the stem lists that repeat their word's. */
  applyTo(source: RecordSource): RecordSource {
    if (this.position !== source.count) throw new RangeError('the stem list filter was not told every term record');
    const { dropped } = this;
    return {
      count: source.count - this.droppedCount,
      totalBytes: source.totalBytes - this.droppedBytes,
      keyBytes: source.keyBytes - this.droppedKeyBytes,
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
}
