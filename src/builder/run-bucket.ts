// One bucket of the build cache: the results of one tool version (everything that reaches a run
// but the arguments), as an append-only log of `<key>\t<json>\n` lines. Opening a bucket scans it
// once for an index (key → where its line is), never holding the results themselves; a lookup
// reads one line; a new result is one append. A torn last line (a killed build) is cut off, a
// line that does not parse is a miss, and of two lines for one key the later wins.
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
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

export class RunBucket<Value> {
  private readonly index: RunIndex;
  private descriptor: number | undefined;
  private size = 0;
  /** Whether this build read or wrote anything here (so eviction spares it). */
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
    // --force: this tool version's earlier results are dropped, not just skipped (they would be duplicated).
    if (this.ignorePrevious) ftruncateSync(descriptor, 0);
    this.size = fstatSync(descriptor).size;
    const complete = this.scan(descriptor);
    // A killed build may have left half a line: cut it so the next append starts a line of its own.
    if (complete < this.size) {
      ftruncateSync(descriptor, complete);
      this.size = complete;
    }
    return descriptor;
  }

  /** Indexes every complete line; returns the length of the file up to its last newline. */
  private scan(descriptor: number): number {
    const chunk = Buffer.alloc(SCAN_CHUNK_BYTES);
    const head = Buffer.alloc(KEY_LENGTH + 1);
    let headLength = 0;
    let lineStart = 0;
    for (let position = 0; position < this.size; ) {
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

  /** Drops the index and closes the file; the bucket reopens (and rescans) if used again. */
  release(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
    this.index.clear();
  }
}
