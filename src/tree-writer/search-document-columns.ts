// The search index writer's documents as they arrive (search-index-spill-writer.ts), by arrival:
// each one's id (prefix-coded: search-document-ids.ts; its key, the id's sipHash, is made from
// it when asked), its token count, and where its title item, fetch body and excerpt source lie in
// their three scratch files, in typed arrays grown as documents come (a JavaScript array slot per
// number per document was heap the rest of the index write kept, and the heap grows to a multiple
// of what it holds). The title and stored packs are made from these columns
// (search-document-packs.ts); numbers are positions in id order.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { sipHash13Halves } from '../core/tree/siphash.js';
import { grownTypedArray } from './grown-typed-array.js';
import { hasExcerptSource } from './search-document-share.js';
import type { KeptDocument } from './search-kept-documents.js';
import type { SearchDocument } from './search-index-output.js';
import { SpillWriter } from './spill-files.js';
import { SpilledLengths } from './spilled-lengths.js';
import type { SearchEditState } from './search-edit-state.js';
import { DocumentIds } from './search-document-ids.js';

/** Bytes copied at a time from a previous build's scratch file, through one buffer for every run. */
const COPY_BYTES = 1 << 18;
let copyBuffer: Uint8Array | undefined;

/** An entry digest's bytes (sha256): with pack reuse one follows each title item. */
export const DIGEST_BYTES = 32;

export class DocumentColumns {
  /** The ids, coded against each other: a string and an array slot each was heap kept to the end. */
  readonly ids = new DocumentIds();
  /** Each scratch file's items by arrival: lengths, their offsets summed from them (spilled-lengths.ts). */
  readonly titleItems: SpilledLengths;
  readonly bodies = new SpilledLengths();
  /** Each excerpt source's bytes (0: the document has none) and where it sits in its scratch file. */
  readonly sources = new SpilledLengths();
  readonly titleSpill: SpillWriter;
  readonly bodySpill: SpillWriter;
  readonly sourceSpill: SpillWriter;
  tokenCounts = new Uint32Array(1024);
  /** Every document's tokens. */
  tokenCount = 0;
  /** Documents taken from an edit state whose scratch bytes are not copied yet: its arrivals [start, end). */
  private run: { state: SearchEditState; start: number; end: number } | undefined;

  /** `keysTitlePacks`: each title item is followed by its document's entry digest (pack reuse). */
  constructor(
    scratchFolder: string,
    readonly keysTitlePacks: boolean,
  ) {
    this.titleItems = new SpilledLengths(keysTitlePacks ? DIGEST_BYTES : 0);
    this.titleSpill = new SpillWriter(path.join(scratchFolder, 'titles'));
    this.bodySpill = new SpillWriter(path.join(scratchFolder, 'bodies'));
    this.sourceSpill = new SpillWriter(path.join(scratchFolder, 'excerpts'));
  }

  /** The documents so far; the next one's arrival. */
  get count(): number {
    return this.ids.length;
  }

  /**
   * Adds the document `id` that arrived `previous`-th in the build `state` describes, unchanged
   * since: its numbers copied, its scratch bytes copied with those of the run it continues.
   */
  addRepeated(id: string, state: SearchEditState, previous: number): void {
    const arrival = this.ids.length;
    this.ids.add(id);
    const { columns } = state;
    const tokenCount = columns.tokenCount[previous]!;
    this.tokenCount += tokenCount;
    this.tokenCounts = grownTypedArray(this.tokenCounts, arrival + 1);
    this.tokenCounts[arrival] = tokenCount;
    this.titleItems.push(columns.titleLength[previous]!);
    this.bodies.push(columns.bodyLength[previous]!);
    this.sources.push(columns.excerptLength[previous]!);
    const run = this.run;
    if (run !== undefined && run.state === state && run.end === previous) run.end += 1;
    else {
      this.copyRun();
      this.run = { state, start: previous, end: previous + 1 };
    }
  }

  /** Copies the scratch bytes of the run of repeated documents, if any, to this build's scratch files. */
  private copyRun(): void {
    const run = this.run;
    if (run === undefined) return;
    this.run = undefined;
    const spills = [this.titleSpill, this.bodySpill, this.sourceSpill];
    copyBuffer ??= new Uint8Array(COPY_BYTES);
    const buffer = copyBuffer;
    spills.forEach((spill, file) => {
      const starts = run.state.starts[file]!;
      const end = starts[run.end]!;
      let at = starts[run.start]!;
      if (at === end) return;
      const fd = openSync(run.state.spillFiles[file]!, 'r');
      try {
        while (at < end) {
          const read = readSync(fd, buffer, 0, Math.min(COPY_BYTES, end - at), at);
          if (read === 0) throw new Error(`${run.state.spillFiles[file]} ended early: build again`);
          spill.append(buffer.subarray(0, read));
          at += read;
        }
      } finally {
        closeSync(fd);
      }
    });
  }

  /** Adds a document with its share of the index and its entry digest (wanted with pack reuse). */
  add(document: SearchDocument, share: KeptDocument, digest: Buffer | undefined): void {
    this.copyRun();
    const arrival = this.ids.length;
    this.ids.push(document.id);
    this.tokenCount += share.tokenCount;
    // An entry's title and url, as they end its title block entry (the id's part depends on its neighbour).
    // Encoded straight into the spill buffer: a Buffer each was garbage a document.
    const titleItemLength = this.titleSpill.appendUtf8(JSON.stringify([document.title, document.url]).slice(1, -1));
    this.tokenCounts = grownTypedArray(this.tokenCounts, arrival + 1);
    this.tokenCounts[arrival] = share.tokenCount;
    this.titleItems.push(titleItemLength);
    // Its entry digest waits after its title item: the title packs are keyed by it.
    if (this.keysTitlePacks) this.titleSpill.append(digest!);
    const body = share.body;
    this.bodies.push(body.length);
    this.bodySpill.append(body);
    // A resource listed by its kept source has an excerpt source exactly when its text is not empty.
    const source = (
      document.sourceKey !== undefined && document.textFrom !== 'call'
        ? share.excerpt.length > 0
        : hasExcerptSource(document)
    )
      ? share.excerpt
      : undefined;
    this.sources.push(source?.length ?? 0);
    if (source !== undefined) this.sourceSpill.append(source);
  }

  /**
   * Each document's key (sipHash of its id) as two halves, by arrival, made from the ids when asked:
   * kept as columns from the first document on, they would be 8 bytes a document through the index
   * step's document loop, where a large build peaks. Give them back with releaseGrown once read.
   */
  keyHalves(): { keyHigh: Uint32Array; keyLow: Uint32Array } {
    const count = this.ids.length;
    const keyHigh = grownTypedArray(new Uint32Array(0), count);
    const keyLow = grownTypedArray(new Uint32Array(0), count);
    for (let arrival = 0; arrival < count; arrival += 1) {
      const [high, low] = sipHash13Halves(this.ids.bytesAt(arrival));
      keyHigh[arrival] = high;
      keyLow[arrival] = low;
    }
    return { keyHigh, keyLow };
  }

  /** Closes the scratch files (every document has come). */
  close(): void {
    this.copyRun();
    this.titleSpill.close();
    this.bodySpill.close();
    this.sourceSpill.close();
  }

  /**
   * The documents' numbers (positions in id order, UTF-8, as writeSearchIndex numbers them):
   * arrivals by number, and numbers by arrival. `hint`: an order to check before sorting (the
   * previous build's). Throws when two documents have one id.
   */
  numbers(hint?: Uint32Array): { byNumber: Uint32Array; numberOf: Uint32Array } {
    const { ids } = this;
    const count = ids.length;
    const { order: byNumber, strictlyInOrder, distinct } = ids.sortedArrivals(hint);
    // Arrivals each past the one before are their own numbers, and no two share an id.
    if (strictlyInOrder) return { byNumber, numberOf: byNumber.slice() };
    const numberOf = new Uint32Array(count);
    byNumber.forEach((arrival, number) => {
      numberOf[arrival] = number;
      if (!distinct && number > 0 && ids.compareBytes(byNumber[number - 1]!, arrival) === 0)
        throw new Error(`two search documents have the id ${ids.at(arrival)}`);
    });
    return { byNumber, numberOf };
  }

  /** The ids in number order. */
  *idsInOrder(byNumber: Uint32Array): Iterable<string> {
    for (const arrival of byNumber) yield this.ids.at(arrival);
  }

  /**
   * documentsDigestOf(idsInOrder(byNumber)) (search-kept-terms.ts), the same hex, from the ids'
   * bytes: an ASCII id's UTF-16 length is its byte length, so its `length:id\n` is laid out in a
   * buffer hashed a chunk at a time (a string and a hash update an id were most of that digest's
   * cost); another id is hashed as that function hashes it.
   */
  idsDigest(byNumber: Uint32Array): string {
    const hash = createHash('sha256');
    let chunk = Buffer.allocUnsafe(ID_DIGEST_CHUNK_BYTES);
    let at = 0;
    for (const arrival of byNumber) {
      const bytes = this.ids.bytesAt(arrival);
      const length = bytes.length;
      const ascii = isAscii(bytes);
      if (!ascii || at + length + 16 > chunk.length) {
        hash.update(chunk.subarray(0, at));
        at = 0;
      }
      if (!ascii) {
        const id = this.ids.at(arrival);
        hash.update(`${id.length}:${id}\n`);
        continue;
      }
      if (length + 16 > chunk.length) chunk = Buffer.allocUnsafe(2 * (length + 16));
      at = writeDecimal(chunk, at, length);
      chunk[at++] = 0x3a; // :
      chunk.set(bytes, at);
      at += length;
      chunk[at++] = 0x0a;
    }
    hash.update(chunk.subarray(0, at));
    return hash.digest('hex');
  }
}

/** Bytes of ids laid out per hash update (idsDigest). */
const ID_DIGEST_CHUNK_BYTES = 64 * 1024;

/** Writes `value` (a non-negative integer) in decimal ASCII at `at`; returns where it ends. */
function writeDecimal(bytes: Uint8Array, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  let rest = value;
  for (let index = digits - 1; index >= 0; index -= 1) {
    bytes[at + index] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
