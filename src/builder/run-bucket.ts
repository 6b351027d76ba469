// One bucket of the build cache: the results of one tool version (everything that reaches a run
// but the arguments), as an append-only log of `<key>\t<json>\n` lines. Opening a bucket scans it
// once for an index (key → where its line is), never holding the results themselves; a lookup
// reads one line; a new result is one append. A torn last line (a killed build) is cut off, a
// line that does not parse is a miss, and of two lines for one key the later wins.
// Under `--force` the earlier builds' lines are not read, but they stay in the log until the build
// has run every call again (dropEarlierResults): a forced build killed halfway leaves the next one
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
  private readonly index = new RunIndex();
  private descriptor: number | undefined;
  private size = 0;
  /**
   * Where the lines this build reads start: 0, or under --force the end of the earlier builds'
   * lines (found at the first open, kept when the bucket is released and opened again).
   */
  private firstRead: number | undefined;
  /** Set once this build has a result, or a failure, for every call of the tool (markAllRun). */
  private allRun = false;
  /** Whether this build read or wrote anything here (its mtime then says so: eviction takes the oldest first). */
  used = false;

  constructor(
    readonly file: string,
    /** Start this bucket empty (`--force`). */
    private readonly ignorePrevious: boolean,
  ) {}

  private open(): number {
    if (this.descriptor !== undefined) return this.descriptor;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const descriptor = openSync(this.file, 'a+');
    this.descriptor = descriptor;
    this.size = fstatSync(descriptor).size;
    this.firstRead ??= this.ignorePrevious ? this.endOfLastLine(descriptor) : 0;
    const complete = this.scan(descriptor, this.firstRead);
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
          this.index.set(head.toString('latin1', 0, KEY_LENGTH), lineStart, lineEnd - lineStart);
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
   * --force the earlier builds' lines are then superseded, and dropEarlierResults may drop them.
   */
  markAllRun(): void {
    this.allRun = true;
  }

  /**
   * Under --force, once every call ran again (markAllRun): rewrites the log with this build's lines
   * only, into a file of its own renamed over the log, so a kill at any moment leaves one whole log.
   * A rewrite that fails leaves the log as it was (its later lines win), never a build failed.
   */
  async dropEarlierResults(): Promise<void> {
    const from = this.firstRead ?? 0;
    if (!this.ignorePrevious || !this.allRun || from === 0) return;
    const temp = `${this.file}${REWRITE_MARK}${process.pid}`;
    try {
      await pipeline(createReadStream(this.file, { start: from }), createWriteStream(temp));
      await fs.rename(temp, this.file);
      this.firstRead = 0;
    } catch {
      await fs.rm(temp, { force: true });
    }
  }

  /** Drops the index and closes the file; the bucket reopens (and rescans) if used again. */
  release(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
    this.index.clear();
  }
}
