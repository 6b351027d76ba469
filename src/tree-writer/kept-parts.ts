// Kept build state split into parts along stable boundaries (issue #39, "Edits in a second"): the
// search writer's kept documents (search-kept-documents.ts) and llms-full.txt's kept entries
// (llms-kept-entries.ts) are a directory file naming part files, each part a run of entries cut
// where an entry's key hits a mask (content-defined, so one edited entry changes the part it lies
// in, not every part after it). An edit reads a part when an entry of it is first asked for,
// checks it against its size and CRC-32 in the directory (the directory itself carries a sha256),
// and writes only the parts whose entries are not, in order, a previous part's: such a part is
// named in the new directory as it is, never read back, hashed or written again.
// New parts get names no previous part has, so a build killed at any point leaves the previous
// directory and every part it names as they were; files no directory names are removed when the
// next directory is put in place.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import { readFileMapped } from './read-exactly.js';
import { removeFilesOfDeadWriters } from './interrupted-write.js';

/** A part as its directory names it. */
export interface KeptPart {
  name: string;
  sizeBytes: number;
  crc: number;
  /** Its entries. */
  count: number;
}

/** Entries per part on average: a part closes after an entry whose key's first word this divides. */
export const ENTRIES_PER_PART = 256;
/** A part closes once it holds this many bytes, wherever its keys fall. */
export const MAX_PART_BYTES = 8 * 1024 * 1024;
const PART_SUFFIX = '.part';

/** The folder of `directoryFile`'s parts, beside it. */
export function partsFolderOf(directoryFile: string): string {
  return `${directoryFile}.parts`;
}

/** Whether an entry whose key starts with `keyWord` ends its part, once the part holds `sizeBytes`. */
export function closesPart(keyWord: number, sizeBytes: number): boolean {
  return keyWord % ENTRIES_PER_PART === 0 || sizeBytes >= MAX_PART_BYTES;
}

/** The parts' table as the directory stores it: per part its name's length and name, size, CRC-32 and count. */
export function encodePartTable(parts: readonly KeptPart[]): Buffer {
  const pieces: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32LE(parts.length);
  pieces.push(count);
  for (const part of parts) {
    const name = Buffer.from(part.name, 'latin1');
    const fields = Buffer.alloc(1 + name.length + 16);
    fields.writeUInt8(name.length, 0);
    name.copy(fields, 1);
    fields.writeDoubleLE(part.sizeBytes, 1 + name.length);
    fields.writeUInt32LE(part.crc, 9 + name.length);
    fields.writeUInt32LE(part.count, 13 + name.length);
    pieces.push(fields);
  }
  return Buffer.concat(pieces);
}

/** The table encodePartTable wrote at `at` of `bytes`; throws when it does not parse. */
export function decodePartTable(bytes: Uint8Array, at: number, end: number): KeptPart[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (at + 4 > end) throw new RangeError('truncated');
  const count = view.readUInt32LE(at);
  let cursor = at + 4;
  const parts: KeptPart[] = [];
  for (let index = 0; index < count; index += 1) {
    if (cursor + 1 > end) throw new RangeError('truncated');
    const nameLength = view.readUInt8(cursor);
    if (cursor + 1 + nameLength + 16 > end) throw new RangeError('truncated');
    const name = view.toString('latin1', cursor + 1, cursor + 1 + nameLength);
    // A name of ours only: the directory never names a file outside its folder.
    if (!/^[0-9a-z-]+\.part$/.test(name)) throw new RangeError('a part name of another form');
    cursor += 1 + nameLength;
    parts.push({
      name,
      sizeBytes: view.readDoubleLE(cursor),
      crc: view.readUInt32LE(cursor + 8),
      count: view.readUInt32LE(cursor + 12),
    });
    cursor += 16;
  }
  if (cursor !== end) throw new RangeError('trailing bytes');
  return parts;
}

/**
 * How many parts a reader holds at once: entries are asked for in about the order they were kept,
 * so a few suffice, and holding every part read kept a whole previous state in memory for an edit
 * build (a part asked for again once let go is read and checked again).
 */
export const MAX_HELD_PARTS = 16;

/** The previous parts, each read and checked when first asked for. */
export class KeptPartReader {
  private readonly loaded = new Map<number, Uint8Array | undefined>();
  /** Where each part starts in the parts laid end to end (a position that names its part). */
  readonly starts: Float64Array;

  constructor(
    private readonly folder: string,
    readonly parts: readonly KeptPart[],
    /** Checks a part's entries once its bytes are whole (false: the part is not used). */
    private readonly parses: (bytes: Uint8Array, part: KeptPart) => boolean = () => true,
    /** Holds the part read last only (entries asked for in about the order they were kept). */
    private readonly holdOne = false,
    /**
     * Reads each part into memory of its own, given back as soon as the part is let go (held no
     * more, or `release`): an edit build reads every part once, ~0.3 MB each, and read through
     * malloc they piled up in glibc's heap until the collector freed them (~30 MB at 100,000
     * documents). The bytes bytesOf gave are then empty once their part is let go: a caller
     * copies what it keeps past the MAX_HELD_PARTS - 1 parts asked for after them.
     */
    private readonly giveBackLetGo = false,
  ) {
    this.starts = new Float64Array(parts.length + 1);
    parts.forEach((part, index) => {
      this.starts[index + 1] = this.starts[index]! + part.sizeBytes;
    });
  }

  /** Part `index`'s bytes when the file is there with its size and CRC-32 and its entries parse; else undefined. */
  bytesOf(index: number): Uint8Array | undefined {
    if (this.loaded.has(index)) return this.loaded.get(index);
    const part = this.parts[index];
    let bytes: Uint8Array | undefined;
    try {
      const file = part === undefined ? undefined : path.join(this.folder, part.name);
      const read = file === undefined ? undefined : this.giveBackLetGo ? readFileMapped(file) : readFileSync(file);
      if (
        read !== undefined &&
        read.length === part!.sizeBytes &&
        crc32(read) === part!.crc &&
        this.parses(read, part!)
      )
        bytes = read;
      else if (read !== undefined) this.giveBack(read);
    } catch {
      bytes = undefined;
    }
    if (this.holdOne) this.release();
    else if (this.loaded.size >= MAX_HELD_PARTS) {
      const oldest = this.loaded.keys().next().value!;
      this.giveBack(this.loaded.get(oldest));
      this.loaded.delete(oldest);
    }
    this.loaded.set(index, bytes);
    return bytes;
  }

  /**
   * Copies part `index`'s first `length` bytes into `into` from 0: the part as held, else read,
   * checked and held when holding it lets no part go (the entries after a run that breaks are
   * taken from the same part next: read once, not twice), else read and checked without holding
   * it (no part a caller still reads is let go for it). False when it can no longer be read whole.
   */
  copyPrefix(index: number, length: number, into: Uint8Array): boolean {
    const lets = this.giveBackLetGo && (this.holdOne ? this.loaded.size > 0 : this.loaded.size >= MAX_HELD_PARTS);
    const held = this.loaded.has(index) || lets ? this.loaded.get(index) : this.bytesOf(index);
    if (held !== undefined && held.length >= length) {
      into.set(held.subarray(0, length), 0);
      return true;
    }
    const part = this.parts[index];
    if (part === undefined) return false;
    let read: Uint8Array | undefined;
    try {
      const file = path.join(this.folder, part.name);
      read = this.giveBackLetGo ? readFileMapped(file) : readFileSync(file);
      if (read.length !== part.sizeBytes || length > read.length || crc32(read) !== part.crc) return false;
      into.set(read.subarray(0, length), 0);
      return true;
    } catch {
      return false;
    } finally {
      this.giveBack(read);
    }
  }

  private giveBack(bytes: Uint8Array | undefined): void {
    if (this.giveBackLetGo && bytes !== undefined) releaseGrown(bytes);
  }

  /** Lets go of the parts held (one asked for again is read and checked again). */
  release(): void {
    for (const bytes of this.loaded.values()) this.giveBack(bytes);
    this.loaded.clear();
  }

  /** The part a position of the parts laid end to end (`starts`) lies in. */
  partAt(position: number): number {
    let low = 0;
    let high = this.parts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/** A piece up to this long is copied byte by byte: a view of it would cost more than the copy. */
const SMALL_PIECE_BYTES = 64;
/** The most of a part that cannot repeat a previous one a writer holds before it goes to the part's file. */
export const OPEN_PART_FLUSH_BYTES = 256 * 1024;

/** Where an entry lies: its part and its offset there. */
export interface EntryPlace {
  part: number;
  offset: number;
}

/** A previous entry an appended one repeats byte for byte: its part, its position there and its offset. */
export interface RepeatedEntry {
  part: number;
  index: number;
  offset: number;
}

/**
 * This build's parts on their way to the folder: entries come in order, each cut into parts as
 * closesPart says; a part made of a previous part's entries, all of them in order, is that part.
 * With the previous parts' reader at hand, the entries of such a run are not copied as they come:
 * their bytes are the previous part's first bytes, copied from it only when the run breaks before
 * the part closes (an edit's part), so an edit copies the parts it changes, not all of them.
 */
export class KeptPartWriter {
  readonly parts: KeptPart[] = [];
  /** Bytes of every part so far. */
  bytes = 0;
  /**
   * The open part's bytes not yet in its file, copied in as entries come (one buffer for every
   * part): pieces held by reference would hold a previous part a reader may have let go of
   * (KeptPartReader). A part that may still repeat a previous one is held whole (it is never
   * written when it does); one that cannot goes to its file every OPEN_PART_FLUSH_BYTES, so a
   * first build holds that much, not its largest part (up to MAX_PART_BYTES, more often the more
   * parts there are).
   */
  private open = Buffer.alloc(0);
  /** The open part's bytes, in its file and in `open`. */
  private size = 0;
  /** Of those, the ones in `open`. */
  private buffered = 0;
  /** The open part's file, once some of it is written, and the CRC-32 of what is. */
  private file: { fd: number; name: string; crc: number } | undefined;
  /** The open part's entries so far (the next one's position in it): read by the documents writer. */
  count = 0;
  /** The previous part the open part so far repeats, and its next entry; undefined: none. */
  private repeating: { part: number; next: number } | undefined;
  private readonly made: string[] = [];
  private readonly namePrefix = `${process.pid}-${randomBytes(6).toString('hex')}-`;

  /**
   * Whether the open part's bytes so far are the repeated previous part's first bytes, not copied
   * into `open` (they are when the run breaks: copyRepeated).
   */
  private deferred = false;

  constructor(
    private readonly folder: string,
    private readonly previous: readonly KeptPart[],
    /** The previous parts as read this build: lets a run of repeated entries go uncopied. */
    private readonly previousReader?: KeptPartReader,
  ) {
    mkdirSync(folder, { recursive: true });
  }

  /**
   * Appends an entry of `pieces` whose key starts with `keyWord`; `from`: the previous entry it
   * repeats byte for byte. Returns where it lies.
   */
  append(pieces: readonly Uint8Array[], keyWord: number, from?: RepeatedEntry): EntryPlace {
    const place = this.begin(from);
    for (const piece of pieces) this.add(piece, 0, piece.length);
    this.end(keyWord);
    return place;
  }

  /**
   * Starts an entry (append, in steps: its bytes come from `add`, copied in place from what holds
   * them, with no view made of each piece); `from` as append's. Returns where it lies.
   */
  begin(from?: RepeatedEntry): EntryPlace {
    const place = { part: this.parts.length, offset: this.size };
    const repeating = this.repeating;
    // An entry repeats the run only where it lay right after the run's last one, so the run's
    // bytes are always its part's first `size` bytes.
    if (this.count === 0) {
      this.repeating = from?.index === 0 && from.offset === 0 ? { part: from.part, next: 1 } : undefined;
      this.deferred = this.repeating !== undefined && this.previousReader !== undefined;
    } else if (
      repeating &&
      from &&
      from.part === repeating.part &&
      from.index === repeating.next &&
      from.offset === this.size
    )
      repeating.next += 1;
    else {
      this.copyRepeated();
      this.repeating = undefined;
    }
    return place;
  }

  /** Appends the previous entry `from` (`length` bytes) uncopied if begin defers it (a run of its part), else nothing. */
  repeatUncopied(from: RepeatedEntry, length: number, keyWord: number): (EntryPlace & { index: number }) | undefined {
    const run = this.repeating;
    const continues = run?.part === from.part && run.next === from.index && from.offset === this.size;
    if (
      !this.previousReader ||
      !(this.count === 0 ? from.index === 0 && from.offset === 0 : this.deferred && continues)
    )
      return undefined;
    const place = { ...this.begin(from), index: this.count };
    this.size += length;
    this.end(keyWord);
    return place;
  }

  /** Copies the run's bytes, so far left in the previous part, into the open part. */
  private copyRepeated(): void {
    if (!this.deferred) return;
    this.deferred = false;
    this.open = grownTypedArray(this.open, this.size);
    if (!this.previousReader!.copyPrefix(this.repeating!.part, this.size, this.open))
      throw new Error(
        `the kept build state in ${this.folder} changed while this build read it (another build of this project?): build again`,
      );
    // Nothing of a deferred run was buffered or written: all of it is in `open` now.
    this.buffered = this.size;
  }

  /** Adds `bytes[start, end)` to the entry begun. */
  add(bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (this.deferred) {
      this.size += length;
      return;
    }
    this.open = grownTypedArray(this.open, this.buffered + length);
    const open = this.open;
    if (length <= SMALL_PIECE_BYTES)
      for (let index = 0; index < length; index += 1) open[this.buffered + index] = bytes[start + index]!;
    else open.set(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), this.buffered);
    this.size += length;
    this.buffered += length;
    // Within a part, a repeat once broken stays broken (begin): this part will be written.
    if (this.repeating === undefined && this.buffered >= OPEN_PART_FLUSH_BYTES) this.writeBuffered();
  }

  /** Ends the entry begun, whose key starts with `keyWord`. */
  end(keyWord: number): void {
    this.count += 1;
    if (closesPart(keyWord, this.size)) this.closePart();
  }

  /** Moves the open part's buffered bytes to its file (made at the first move). */
  private writeBuffered(): void {
    if (this.file === undefined) {
      const name = `${this.namePrefix}${this.made.length}${PART_SUFFIX}`;
      const fd = openSync(path.join(this.folder, name), 'wx', 0o600);
      this.made.push(name);
      this.file = { fd, name, crc: 0 };
    }
    const bytes = this.open.subarray(0, this.buffered);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.file.fd, bytes, at, bytes.length - at);
    this.file.crc = crc32(bytes, this.file.crc);
    this.buffered = 0;
  }

  private closePart(): void {
    if (this.count === 0) return;
    const same = this.repeating;
    const previous = same === undefined ? undefined : this.previous[same.part];
    if (previous !== undefined && same!.next === previous.count && previous.sizeBytes === this.size) {
      this.parts.push(previous);
    } else if (this.file !== undefined) {
      this.writeBuffered();
      const { fd, name, crc } = this.file;
      this.file = undefined;
      closeSync(fd);
      this.parts.push({ name, sizeBytes: this.size, crc, count: this.count });
    } else {
      this.copyRepeated();
      const name = `${this.namePrefix}${this.made.length}${PART_SUFFIX}`;
      const bytes = this.open.subarray(0, this.size);
      writeFileSync(path.join(this.folder, name), bytes, { mode: 0o600, flag: 'wx' });
      this.made.push(name);
      this.parts.push({ name, sizeBytes: this.size, crc: crc32(bytes), count: this.count });
    }
    this.bytes += this.size;
    this.size = 0;
    this.buffered = 0;
    this.count = 0;
    this.repeating = undefined;
    this.deferred = false;
  }

  /** Closes the last part; returns every part, in order. */
  finish(): KeptPart[] {
    this.closePart();
    this.open = releaseGrown(this.open);
    return this.parts;
  }

  /** Removes the parts this writer made (its directory was not put in place). */
  discard(): void {
    if (this.file !== undefined) closeSync(this.file.fd);
    this.file = undefined;
    for (const name of this.made.splice(0)) rmSync(path.join(this.folder, name), { force: true });
    this.open = releaseGrown(this.open);
    this.size = 0;
    this.buffered = 0;
    this.deferred = false;
  }
}

/**
 * Removes from `folder` the part files that `parts` (the directory just put in place) does not
 * name, but those of writers still running (their name starts with their process id).
 */
export function removeUnnamedParts(folder: string, parts: readonly KeptPart[]): void {
  const named = new Set(parts.map((part) => part.name));
  removeFilesOfDeadWriters(folder, (name) => named.has(name));
}

/** Removes `directoryFile`'s parts folder (no directory is kept). */
export function removePartsFolder(directoryFile: string): void {
  rmSync(partsFolderOf(directoryFile), { recursive: true, force: true });
}

/** The sum of the parts' sizes (the kept state's size), as the directory says. */
export function partsSizeBytes(parts: readonly KeptPart[]): number {
  return parts.reduce((sum, part) => sum + part.sizeBytes, 0);
}
