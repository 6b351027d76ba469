// The entries a build adds to its tree-state record (tree-state.ts), kept in a scratch file beside
// the record until the record is written, not in memory: a first build adds one for every document
// (~500 bytes each with its listing entry), and the assembly held them all at its peak. Each entry
// is its fixed bytes, its identity and its listing entry, one after the other; the fixed bytes
// start with the identity's and the entry's lengths (u32 LE each), so a reader finds each part.
// No file stays open between appends (chunks are appended by name): a build that fails before the
// record is written leaves only the file, which the next build's open removes (removeDeadWritersFiles).
import { appendFileSync, closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { SpillReader } from '../tree-writer/spill-files.js';

/** Gathered before an append, and a reader's window: under glibc's mmap threshold (CONTRIBUTING.md). */
const CHUNK_BYTES = 1 << 16;

/** The three sections of a record, in the order the record holds them. */
export type SectionName = 'fixed' | 'ids' | 'entries';

export class AddedEntries {
  private chunk: Buffer | undefined;
  private used = 0;
  private started = false;
  /** An append failed: nothing more is kept, and the record is not written (a cache, read next build). */
  failed = false;

  constructor(
    readonly file: string,
    /** The fixed bytes of an entry: the identity's length at 0, the entry's at 4 (u32 LE). */
    private readonly fixedBytes: number,
  ) {}

  /** Adds an entry's three parts. */
  append(fixed: Uint8Array, id: Uint8Array, entry: Uint8Array): void {
    if (this.failed) return;
    for (const part of [fixed, id, entry]) {
      if (part.length > CHUNK_BYTES - this.used) this.flush();
      if (part.length > CHUNK_BYTES) this.write(part);
      else {
        this.chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
        this.chunk.set(part, this.used);
        this.used += part.length;
      }
    }
  }

  private flush(): void {
    if (this.used > 0) this.write(this.chunk!.subarray(0, this.used));
    this.used = 0;
  }

  private write(bytes: Uint8Array): void {
    if (this.failed) return;
    try {
      if (!this.started) mkdirSync(path.dirname(this.file), { recursive: true });
      // The first write makes the file anew (a dead build's file of the same name is replaced).
      appendFileSync(this.file, bytes, { flag: this.started ? 'a' : 'w', mode: 0o600 });
      this.started = true;
    } catch {
      this.failed = true;
    }
  }

  /** Writes what is gathered; then `reader` reads the entries back (none when nothing was appended). */
  finish(): void {
    this.flush();
    this.chunk = undefined;
  }

  /** The section `name` of the entries, in order, one entry at a time (after finish). */
  reader(name: SectionName): AddedSectionReader | undefined {
    return this.started ? new AddedSectionReader(this.file, this.fixedBytes, name) : undefined;
  }

  /** Removes the scratch file. */
  remove(): void {
    this.chunk = undefined;
    this.used = 0;
    rmSync(this.file, { force: true });
  }
}

/** Reads one section's part of each entry, in the order they were appended. */
export class AddedSectionReader {
  private readonly input: SpillReader;
  private own = new Uint8Array(256);

  constructor(
    file: string,
    private readonly fixedBytes: number,
    private readonly name: SectionName,
  ) {
    this.input = new SpillReader(file, CHUNK_BYTES);
  }

  /** The next entry's part of the section (a view, valid until the next call). */
  next(): Uint8Array {
    const fixed = this.input.readView(this.fixedBytes);
    const [idLength, entryLength] = [lengthAt(fixed, 0), lengthAt(fixed, 4)];
    if (this.name === 'fixed') {
      // Copied before the skip: the reader's window moves under a view.
      const part = this.kept(fixed);
      this.input.skip(idLength + entryLength);
      return part;
    }
    if (this.name === 'ids') {
      const part = this.kept(this.input.readView(idLength));
      this.input.skip(entryLength);
      return part;
    }
    this.input.skip(idLength);
    return this.input.readView(entryLength);
  }

  /** `bytes` copied into the reader's own buffer. */
  private kept(bytes: Uint8Array): Uint8Array {
    if (this.own.length < bytes.length) this.own = new Uint8Array(bytes.length * 2);
    this.own.set(bytes);
    return this.own.subarray(0, bytes.length);
  }

  close(): void {
    this.input.close();
  }
}

function lengthAt(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/**
 * A record file being written through a chunk: its CRC-32 (of every byte past `sumFrom`) is
 * computed as it goes and set at `sumAt` when it ends.
 */
export class RecordFileWriter {
  private readonly fd: number;
  private readonly chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private written = 0;
  private sum = 0;

  constructor(
    file: string,
    private readonly sumFrom: number,
  ) {
    this.fd = openSync(file, 'w');
  }

  append(bytes: Uint8Array): void {
    if (bytes.length > CHUNK_BYTES - this.used) this.flush();
    if (bytes.length > CHUNK_BYTES) this.write(bytes);
    else {
      this.chunk.set(bytes, this.used);
      this.used += bytes.length;
    }
  }

  private flush(): void {
    if (this.used > 0) this.write(this.chunk.subarray(0, this.used));
    this.used = 0;
  }

  private write(bytes: Uint8Array): void {
    const from = Math.max(0, Math.min(bytes.length, this.sumFrom - this.written));
    if (from < bytes.length) this.sum = crc32(bytes.subarray(from), this.sum);
    writeAll(this.fd, bytes, this.written);
    this.written += bytes.length;
  }

  /** Writes the rest and the CRC-32 (u32 LE at `sumAt`), and closes the file. */
  finish(sumAt: number): void {
    try {
      this.flush();
      const sum = Buffer.alloc(4);
      sum.writeUInt32LE(this.sum);
      writeAll(this.fd, sum, sumAt);
    } finally {
      closeSync(this.fd);
    }
  }

  /** Closes the file after a failure (its name is removed by the caller). */
  abandon(): void {
    closeSync(this.fd);
  }
}

/** Writes all of `bytes` at `position` (a write may take fewer). */
function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
