// The record content-hash-state.ts keeps (`.staticmcp/content-hash.bin`): its layout, reading it
// back, and writing it, whole or as the full walk of the writer's files makes it.
// Layout: MAGIC, the entries (`path \0 hex digest \0` each, in the content hash's order), each
// writer slot's entry number (u32, NONE for a dropped slot), each entry's start and the end (u32),
// per hash a bitmap of the entries it takes, then the key (sha256 of the hashes' filters), the
// slot count, the entry count, the entries' byte count, the hash count (u32 each), and the CRC-32
// of everything before it.
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { HashObserver } from './content-hash.js';
import { grownTypedArray } from './grown-typed-array.js';
import { removeDeadWritersFilesSync } from './interrupted-write.js';

/** Beside the record, `<mark><pid>`: the record being written. */
const NEW_FILE_MARK = '.new-';
const MAGIC = Buffer.from('SMCPCH01', 'latin1');
const KEY_BYTES = 32;
const TRAILER_BYTES = KEY_BYTES + 4 * 4 + 4;
/** A slot with no entry (dropped). */
export const NONE = 0xffffffff;
export const HEX_BYTES = 64;
/** An entry's bytes past its path: a NUL, the digest's hex and a NUL. */
export const ENTRY_TAIL_BYTES = HEX_BYTES + 2;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const WRITE_CHUNK_BYTES = 64 * 1024;

export function writeHex(digest: Uint8Array, into: Uint8Array, at: number): void {
  for (let index = 0; index < digest.length; index++) {
    const byte = digest[index]!;
    into[at + index * 2] = HEX_DIGITS[byte >> 4]!;
    into[at + index * 2 + 1] = HEX_DIGITS[byte & 15]!;
  }
}

/** A record's sections (the typed arrays copied out, `stream` a view of the file's bytes). */
export interface HashRecord {
  slotCount: number;
  entries: number;
  entryOfSlot: Uint32Array;
  starts: Uint32Array;
  stream: Buffer;
  /** Per hash, the bitmap of the entries it takes. */
  taken: Uint8Array[];
}

/** The record in `bytes`, or undefined when it is damaged, foreign or of other filters (`key`). */
export function readRecord(bytes: Buffer, key: Buffer, hashCount: number): HashRecord | undefined {
  if (bytes.length < MAGIC.length + TRAILER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const sumAt = bytes.length - 4;
  if (crc32(bytes.subarray(0, sumAt)) !== bytes.readUInt32LE(sumAt)) return undefined;
  const trailer = bytes.length - TRAILER_BYTES;
  if (!bytes.subarray(trailer, trailer + KEY_BYTES).equals(key)) return undefined;
  const counts = trailer + KEY_BYTES;
  const slotCount = bytes.readUInt32LE(counts);
  const entries = bytes.readUInt32LE(counts + 4);
  const entryBytes = bytes.readUInt32LE(counts + 8);
  const bitmapBytes = Math.ceil(entries / 8);
  if (bytes.readUInt32LE(counts + 12) !== hashCount) return undefined;
  const slotsAt = MAGIC.length + entryBytes;
  const startsAt = slotsAt + slotCount * 4;
  const takenAt = startsAt + (entries + 1) * 4;
  if (takenAt + hashCount * bitmapBytes !== trailer) return undefined;
  // Copied out: a typed array over a Buffer needs its offset aligned to 4.
  const entryOfSlot = new Uint32Array(bytes.buffer.slice(bytes.byteOffset + slotsAt, bytes.byteOffset + startsAt));
  const starts = new Uint32Array(bytes.buffer.slice(bytes.byteOffset + startsAt, bytes.byteOffset + takenAt));
  if (starts[0] !== 0 || starts[entries] !== entryBytes) return undefined;
  const taken = Array.from({ length: hashCount }, (_, hash) =>
    bytes.subarray(takenAt + hash * bitmapBytes, takenAt + (hash + 1) * bitmapBytes),
  );
  return { slotCount, entries, entryOfSlot, starts, stream: bytes.subarray(MAGIC.length, slotsAt), taken };
}

/** The trailer of a record of these counts under `key`, its CRC-32 left to fill. */
function trailerOf(key: Buffer, counts: readonly number[]): Buffer {
  const trailer = Buffer.alloc(TRAILER_BYTES);
  key.copy(trailer);
  for (const [index, count] of counts.entries()) trailer.writeUInt32LE(count, KEY_BYTES + index * 4);
  return trailer;
}

/** Writes `record` whole at `file` (the merge's: content-hash-state.ts). */
export function writeRecord(file: string, key: Buffer, record: HashRecord): void {
  const { entries } = record;
  const bitmapBytes = Math.ceil(entries / 8);
  const trailer = trailerOf(key, [record.slotCount, entries, record.stream.length, record.taken.length]);
  const parts = [
    MAGIC,
    record.stream,
    new Uint8Array(record.entryOfSlot.buffer, record.entryOfSlot.byteOffset, record.slotCount * 4),
    new Uint8Array(record.starts.buffer, record.starts.byteOffset, (entries + 1) * 4),
    ...record.taken.map((bitmap) => bitmap.subarray(0, bitmapBytes)),
    trailer.subarray(0, TRAILER_BYTES - 4),
  ];
  let sum = 0;
  for (const part of parts) sum = crc32(part, sum);
  trailer.writeUInt32LE(sum, TRAILER_BYTES - 4);
  const temp = `${file}${NEW_FILE_MARK}${process.pid}`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    removeDeadWritersFilesSync(file, NEW_FILE_MARK);
    const fd = openSync(temp, 'w', 0o644);
    try {
      for (const part of [...parts, trailer.subarray(TRAILER_BYTES - 4)]) writeSync(fd, part);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch {
    // The record in place (if any) stays true: every path and digest is compared before it is used.
    rmSync(temp, { force: true });
  }
}

/**
 * Records the full walk's entries as hashSlotsBy makes them: the entries go to the record's
 * temporary file a chunk at a time (~100 bytes a file: never held whole), the per-slot and
 * per-entry numbers stay in typed arrays until the end. Any failure leaves no record.
 */
export class RecordWriter implements HashObserver {
  private readonly chunk = Buffer.alloc(WRITE_CHUNK_BYTES);
  private used = 0;
  private readonly temp: string;
  private fd: number | undefined;
  /** The CRC-32 of what is written so far. */
  private sum = 0;
  private entryBytes = 0;
  private entries = 0;
  private readonly entryOfSlot: Uint32Array;
  private starts = new Uint32Array(1024);
  private readonly taken: Uint8Array[];

  constructor(
    private readonly file: string,
    slotCount: number,
    private readonly hashCount: number,
  ) {
    this.temp = `${file}${NEW_FILE_MARK}${process.pid}`;
    this.entryOfSlot = new Uint32Array(slotCount).fill(NONE);
    this.taken = Array.from({ length: hashCount }, () => new Uint8Array(128));
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      removeDeadWritersFilesSync(file, NEW_FILE_MARK);
      this.fd = openSync(this.temp, 'w', 0o644);
      this.write(MAGIC);
    } catch {
      this.abandon();
    }
  }

  observe(slot: number, pathBytes: Uint8Array, digest: Uint8Array, takenBy: readonly boolean[]): void {
    if (this.fd === undefined) return;
    const entry = this.entries++;
    this.entryOfSlot[slot] = entry;
    this.starts = grownTypedArray(this.starts, entry + 2);
    this.starts[entry] = this.entryBytes;
    for (let hash = 0; hash < this.hashCount; hash++) {
      if (!takenBy[hash]) continue;
      this.taken[hash] = grownTypedArray(this.taken[hash]!, (entry >> 3) + 1);
      this.taken[hash]![entry >> 3]! |= 1 << (entry & 7);
    }
    const length = pathBytes.length + 2 + HEX_BYTES;
    if (this.used + length > this.chunk.length) this.flushChunk();
    if (length > this.chunk.length) {
      // A path longer than a chunk goes out on its own.
      const alone = Buffer.alloc(length);
      alone.set(pathBytes);
      writeHex(digest, alone, pathBytes.length + 1);
      this.write(alone);
    } else {
      this.chunk.set(pathBytes, this.used);
      this.chunk[this.used + pathBytes.length] = 0;
      writeHex(digest, this.chunk, this.used + pathBytes.length + 1);
      this.chunk[this.used + length - 1] = 0;
      this.used += length;
    }
    this.entryBytes += length;
  }

  private flushChunk(): void {
    if (this.used > 0) this.write(this.chunk.subarray(0, this.used));
    this.used = 0;
  }

  private write(bytes: Uint8Array): void {
    if (this.fd === undefined) return;
    try {
      this.sum = crc32(bytes, this.sum);
      writeSync(this.fd, bytes);
    } catch {
      this.abandon();
    }
  }

  /** Writes the rest of the record under `key` and puts it in place. */
  finish(key: Buffer): void {
    this.flushChunk();
    const { entries } = this;
    this.starts = grownTypedArray(this.starts, entries + 1);
    this.starts[entries] = this.entryBytes;
    const bitmapBytes = Math.ceil(entries / 8);
    const trailer = trailerOf(key, [this.entryOfSlot.length, entries, this.entryBytes, this.hashCount]);
    this.write(new Uint8Array(this.entryOfSlot.buffer, 0, this.entryOfSlot.length * 4));
    this.write(new Uint8Array(this.starts.buffer, 0, (entries + 1) * 4));
    for (let hash = 0; hash < this.hashCount; hash++)
      this.write(grownTypedArray(this.taken[hash]!, bitmapBytes).subarray(0, bitmapBytes));
    this.write(trailer.subarray(0, TRAILER_BYTES - 4));
    trailer.writeUInt32LE(this.sum, TRAILER_BYTES - 4);
    this.write(trailer.subarray(TRAILER_BYTES - 4));
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
      this.fd = undefined;
      renameSync(this.temp, this.file);
    } catch {
      this.abandon();
    }
  }

  /** Leaves no record: the next build walks (and records) again. */
  private abandon(): void {
    const { fd } = this;
    this.fd = undefined;
    try {
      if (fd !== undefined) closeSync(fd);
    } finally {
      rmSync(this.temp, { force: true });
    }
  }
}
