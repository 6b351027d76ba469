// Scratch files of the spilling search index writer (search-index-spill-writer.ts): a buffered
// append-only writer, a buffered sequential reader of unsigned LEB128 varints and byte runs, and
// reads at an offset. Synchronous: the writer is the build's only work while it runs, and one
// sequential stream per file needs no event-loop round trip per record.
import type { Hash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

const BUFFER_BYTES = 1 << 20;
const utf8Encoder = new TextEncoder();
/** A writer's first buffer: most spill files of a small build are far smaller than BUFFER_BYTES. */
const FIRST_BUFFER_BYTES = 1 << 14;

/**
 * Appends bytes to a new file through a buffer that doubles, up to 1 MiB, each time it is drained
 * more than half full; `bytes` is where the next append lands.
 */
export class SpillWriter {
  private readonly fd: number;
  private buffer = new Uint8Array(FIRST_BUFFER_BYTES);
  private used = 0;
  bytes = 0;

  /** `mode` 0o666 (less the umask) for a file that becomes a tree file (llms-txt.ts). */
  constructor(
    readonly file: string,
    mode = 0o600,
  ) {
    this.fd = openSync(file, 'w', mode);
  }

  append(bytes: Uint8Array): void {
    if (bytes.length > this.buffer.length - this.used) this.drain();
    if (bytes.length > this.buffer.length) writeAll(this.fd, bytes);
    else {
      this.buffer.set(bytes, this.used);
      this.used += bytes.length;
    }
    this.bytes += bytes.length;
  }

  /** Appends `text` as UTF-8 (no Buffer made of it); returns its byte length. */
  appendUtf8(text: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const most = 3 * text.length;
    if (most > this.buffer.length - this.used) this.drain();
    if (most > this.buffer.length) {
      const bytes = Buffer.from(text, 'utf8');
      this.append(bytes);
      return bytes.length;
    }
    const { written } = utf8Encoder.encodeInto(text, this.buffer.subarray(this.used));
    this.used += written;
    this.bytes += written;
    return written;
  }

  appendVarint(value: number): void {
    if (this.buffer.length - this.used < 8) this.drain();
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.used++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
      this.bytes += 1;
    }
    this.buffer[this.used++] = rest;
    this.bytes += 1;
  }

  private drain(): void {
    if (this.used > 0) writeAll(this.fd, this.buffer.subarray(0, this.used));
    // A zeroed 1 MiB buffer per writer was most of a small build's index step; a file that keeps
    // filling its buffer gets the large one, and with it as few writes as before.
    if (this.used > this.buffer.length / 2 && this.buffer.length < BUFFER_BYTES)
      this.buffer = new Uint8Array(this.buffer.length * 2);
    this.used = 0;
  }

  /** Writes what is buffered and closes the file; the file is closed even when that write fails (ENOSPC). */
  close(): void {
    try {
      this.drain();
    } finally {
      closeSync(this.fd);
      this.buffer = new Uint8Array(0);
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/**
 * Reads a file written by SpillWriter from its start, through a buffer of `bufferBytes`; `hash`,
 * when given, is updated with every byte as it is read.
 */
export class SpillReader {
  private readonly fd: number;
  private buffer: Uint8Array;
  private start = 0;
  private end = 0;
  private filePosition = 0;

  constructor(
    readonly file: string,
    bufferBytes = BUFFER_BYTES,
    private readonly hash?: Hash,
  ) {
    this.fd = openSync(file, 'r');
    this.buffer = new Uint8Array(bufferBytes);
  }

  /** Makes at least `count` bytes available unless the file ends first; returns how many are. */
  private fill(count: number): number {
    if (this.end - this.start >= count) return this.end - this.start;
    if (count > this.buffer.length) {
      const larger = new Uint8Array(count);
      larger.set(this.buffer.subarray(this.start, this.end));
      this.buffer = larger;
    } else this.buffer.copyWithin(0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    while (this.end < count) {
      const read = readSync(this.fd, this.buffer, this.end, this.buffer.length - this.end, this.filePosition);
      if (read === 0) break;
      this.hash?.update(this.buffer.subarray(this.end, this.end + read));
      this.end += read;
      this.filePosition += read;
    }
    return this.end - this.start;
  }

  atEnd(): boolean {
    return this.fill(1) === 0;
  }

  readVarint(): number {
    this.fill(8);
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.start >= this.end) throw new Error(`the scratch file ${this.file} ends inside a number`);
      const byte = this.buffer[this.start++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  }

  /** The next `count` bytes, copied (the buffer is reused). */
  readBytes(count: number): Uint8Array {
    return this.readView(count).slice();
  }

  /** The next `count` bytes in the reader's own buffer: valid only until the next read. */
  readView(count: number): Uint8Array {
    if (this.fill(count) < count) throw new Error(`the scratch file ${this.file} ends early`);
    const bytes = this.buffer.subarray(this.start, this.start + count);
    this.start += count;
    return bytes;
  }

  /** Steps over the next `count` bytes (read, not copied: a hash still sees them). */
  skip(count: number): void {
    for (let left = count; left > 0; ) {
      const step = Math.min(left, this.buffer.length);
      if (this.fill(step) < step) throw new Error(`the scratch file ${this.file} ends early`);
      this.start += step;
      left -= step;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** `length` bytes of the file open as `fd` at `offset`. */
export function readAt(fd: number, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, offset + done);
    if (read === 0) throw new Error('a scratch file ended early');
    done += read;
  }
  return bytes;
}

/** What a WindowReader reads past a miss: enough for a run of neighbouring records. */
const WINDOW_BYTES = 1 << 16;

/**
 * Reads at offsets of one open file through a window of the bytes after the last miss: records
 * read in about the order they were written (a scratch file read back by number) cost one read a
 * window instead of one a record. Each result is a copy (the window is reused).
 */
export class WindowReader {
  private window = new Uint8Array(0);
  private windowAt = 0;
  private windowEnd = 0;

  constructor(
    private fd: number,
    /** What a miss reads (at least the record asked for). */
    private readonly windowBytes = WINDOW_BYTES,
  ) {}

  /** Reads the file open as `fd` from here on, through the same window (a new one a file is garbage). */
  switchTo(fd: number): this {
    this.fd = fd;
    this.windowAt = 0;
    this.windowEnd = 0;
    return this;
  }

  read(offset: number, length: number): Uint8Array {
    if (offset < this.windowAt || offset + length > this.windowEnd) {
      const size = Math.max(this.windowBytes, length);
      if (this.window.length < size) this.window = new Uint8Array(size);
      let filled = 0;
      while (filled < size) {
        const read = readSync(this.fd, this.window, filled, size - filled, offset + filled);
        if (read === 0) break;
        filled += read;
      }
      if (filled < length) throw new Error('a scratch file ended early');
      this.windowAt = offset;
      this.windowEnd = offset + filled;
    }
    const start = offset - this.windowAt;
    return this.window.slice(start, start + length);
  }
}
