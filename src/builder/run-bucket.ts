// One bucket of the build cache: the results of one tool version (everything that reaches a run
// but the arguments), as an append-only log of `<key>\t<json>\n` lines. Opening a bucket scans it
// once for an index (key → where its line is), never holding the results themselves; a lookup
// reads one line; a new result is one append. A torn last line (a killed build) is cut off, a
// line that does not parse is a miss, and of two lines for one key the later wins.
// Under `--force` the earlier builds' lines are not read, but they stay in the log until the build
// has run every call again (dropSupersededLines): a forced build killed halfway leaves the next one
// the results it had not run again yet, and the later lines of those it had.
import {
  closeSync,
  createReadStream,
  createWriteStream,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  promises as fs,
  readSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { hashParts } from './cache-keys.js';
import { RunIndex } from './run-index.js';

/**
 * Under glibc's mmap threshold (128 KiB): a bigger read buffer, freed once the scan is done, would
 * raise that threshold to its size for the rest of the build (CONTRIBUTING.md, Benchmarks).
 */
const SCAN_CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const TAB = 0x09;
/** Hex characters of the key kept per record: 128 bits of the argument hash. */
const KEY_LENGTH = 32;
/** `<bucket>.log<mark><pid>`: a log being rewritten without the earlier builds' lines, then renamed over it. */
export const REWRITE_MARK = '.rewrite-';

export class RunBucket<Value> {
  private readonly index: RunIndex;
  private descriptor: number | undefined;
  private size = 0;
  /**
   * Where the lines this build reads start: 0, or under --force the end of the earlier builds'
   * lines (found at the first open, kept when the bucket is released and opened again).
   */
  private firstRead: number | undefined;
  /** Whether the log's first scan found as many superseded lines (a key's earlier ones) as current ones. */
  private supersededAtOpen = false;
  /** Set once this build has a result, or a failure, for every call of the tool (markAllRun). */
  private allRun = false;
  /** Whether this build read or wrote anything here (its mtime then says so: eviction takes the oldest first). */
  used = false;

  constructor(
    readonly file: string,
    /** Start this bucket empty (`--force`). */
    private readonly ignorePrevious: boolean,
  ) {
    // Beside the log: the scratch file of its keys is on the disk the cache is on (run-index.ts).
    this.index = new RunIndex(`${file}.keys-${process.pid}`);
  }

  private open(): number {
    if (this.descriptor !== undefined) return this.descriptor;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const descriptor = openSync(this.file, 'a+');
    this.descriptor = descriptor;
    this.size = fstatSync(descriptor).size;
    const firstOpen = this.firstRead === undefined;
    this.firstRead ??= this.ignorePrevious ? this.endOfLastLine(descriptor) : 0;
    const complete = this.scan(descriptor, this.firstRead);
    if (
      firstOpen &&
      !this.ignorePrevious &&
      this.index.supersededLines > 0 &&
      this.index.supersededLines >= this.index.size
    )
      this.supersededAtOpen = true;
    // A killed build may have left half a line: cut it so the next append starts a line of its own.
    if (complete < this.size) {
      ftruncateSync(descriptor, complete);
      this.size = complete;
    }
    return descriptor;
  }

  /**
   * Where the log's last complete line ends (what --force leaves unread). A read that comes back
   * short takes the whole file as earlier lines: an earlier result is never read as this build's.
   */
  private endOfLastLine(descriptor: number): number {
    const chunk = Buffer.alloc(SCAN_CHUNK_BYTES);
    for (let end = this.size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      if (readSync(descriptor, chunk, 0, end - start, start) !== end - start) return this.size;
      const newline = chunk.lastIndexOf(NEWLINE, end - start - 1);
      if (newline >= 0) return start + newline + 1;
      end = start;
    }
    return 0;
  }

  /** Indexes every complete line from `from`; returns the length of the file up to its last newline. */
  private scan(descriptor: number, from: number): number {
    return this.forEachLine(descriptor, from, (key, start, length) => this.index.set(key, start, length));
  }

  /**
   * Calls `visit` with the key, start and length of every complete line from `from` that starts
   * with a key and a tab; returns the length of the file up to its last newline.
   */
  private forEachLine(
    descriptor: number,
    from: number,
    visit: (key: string, start: number, length: number) => void,
  ): number {
    const chunk = Buffer.alloc(SCAN_CHUNK_BYTES);
    const head = Buffer.alloc(KEY_LENGTH + 1);
    let headLength = 0;
    let lineStart = from;
    for (let position = from; position < this.size; ) {
      const bytesRead = readSync(descriptor, chunk, 0, Math.min(chunk.length, this.size - position), position);
      if (bytesRead === 0) break;
      let cursor = 0;
      while (cursor < bytesRead) {
        const found = chunk.indexOf(NEWLINE, cursor);
        const end = found < 0 || found >= bytesRead ? bytesRead : found;
        // Only the key's bytes of a line are kept, however long the record is.
        if (headLength < head.length)
          headLength += chunk.copy(head, headLength, cursor, Math.min(end, cursor + head.length - headLength));
        if (end === bytesRead) break;
        const lineEnd = position + end;
        if (headLength === head.length && head[KEY_LENGTH] === TAB)
          visit(head.toString('latin1', 0, KEY_LENGTH), lineStart, lineEnd - lineStart);
        headLength = 0;
        lineStart = lineEnd + 1;
        cursor = end + 1;
      }
      position += bytesRead;
    }
    return lineStart;
  }

  static keyOf(args: unknown): string {
    return hashParts(args).slice(0, KEY_LENGTH);
  }

  /** Whether no earlier result is here (a cold build: nothing to look up, no key to compute). */
  isEmpty(): boolean {
    this.open();
    return this.index.size === 0;
  }

  has(key: string): boolean {
    this.open();
    return this.index.has(key);
  }

  get(key: string): Value | undefined {
    const descriptor = this.open();
    const where = this.index.get(key);
    if (!where) return undefined;
    const { offset, length } = where;
    // Pooled for small records (no native allocation per lookup); every byte is read into it.
    const line = Buffer.allocUnsafe(length);
    if (readSync(descriptor, line, 0, line.length, offset) !== line.length) return undefined;
    // The index tells keys apart by their first 48 bits (run-index.ts): the line's own key decides.
    if (line.length <= KEY_LENGTH || line[KEY_LENGTH] !== TAB || line.toString('latin1', 0, KEY_LENGTH) !== key)
      return undefined;
    try {
      const value = JSON.parse(line.toString('utf8', KEY_LENGTH + 1)) as Value;
      this.used = true;
      return value;
    } catch {
      return undefined;
    }
  }

  /**
   * Appends a result. A key new to the index is not added to it: the build looks every key up
   * before it runs it, so a result it appends is never asked for again while the bucket is open,
   * and indexing it would cost ~100 bytes a call for nothing (a cold build of 650,000 calls would
   * hold 65 MB of keys). A key already indexed points at the new line, so it is never stale.
   */
  set(key: string, value: Value): void {
    const descriptor = this.open();
    const line = Buffer.from(`${key}\t${JSON.stringify(value)}\n`);
    // One write per record, in append mode: a crash loses at most this line, never an earlier one.
    writeSync(descriptor, line);
    this.index.set(key, this.size, line.length - 1, true);
    this.size += line.length;
    this.used = true;
  }

  /**
   * Notes that this build ran every call of the tool (none was left by an interruption): under
   * --force the earlier builds' lines are then superseded, and dropSupersededLines may drop them.
   */
  markAllRun(): void {
    this.allRun = true;
  }

  /**
   * Rewrites the log without the lines no lookup reads any more, into a file of its own renamed
   * over it (a kill at any moment leaves one whole log): under --force, once every call ran again
   * (markAllRun), the earlier builds' lines; otherwise, when the log's first scan found as many
   * superseded lines as current ones (forced builds killed once their calls were done), those.
   * A rewrite that fails leaves the log as it was (its later lines win), never a build failed.
   */
  async dropSupersededLines(): Promise<void> {
    const from = this.firstRead ?? 0;
    const forced = this.ignorePrevious && this.allRun && from > 0;
    if (!forced && !this.supersededAtOpen) return;
    this.release();
    const temp = `${this.file}${REWRITE_MARK}${process.pid}`;
    try {
      if (forced) await pipeline(createReadStream(this.file, { start: from }), createWriteStream(temp));
      else this.writeCurrentLines(temp);
      await fs.rename(temp, this.file);
      this.firstRead = 0;
      this.supersededAtOpen = false;
    } catch {
      await fs.rm(temp, { force: true });
    } finally {
      this.release();
    }
  }

  /** Writes to `temp` each line a lookup would read (the last of its key), in the log's order. */
  private writeCurrentLines(temp: string): void {
    const descriptor = this.open();
    const output = openSync(temp, 'w');
    try {
      const batch = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
      let batched = 0;
      this.forEachLine(descriptor, 0, (key, start, length) => {
        if (this.index.get(key)?.offset !== start) return;
        if (batched + length + 1 > batch.length) {
          writeSync(output, batch, 0, batched);
          batched = 0;
        }
        // A line longer than the batch is read and written on its own.
        const target = length + 1 > batch.length ? Buffer.allocUnsafe(length + 1) : batch;
        const at = target === batch ? batched : 0;
        if (readSync(descriptor, target, at, length + 1, start) !== length + 1) throw new Error('the log changed');
        if (target === batch) batched += length + 1;
        else writeSync(output, target);
      });
      writeSync(output, batch, 0, batched);
    } finally {
      closeSync(output);
    }
  }

  /** Drops the index and closes the file; the bucket reopens (and rescans) if used again. */
  release(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
    this.index.clear();
  }
}
