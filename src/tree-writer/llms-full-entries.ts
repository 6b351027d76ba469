// Where llms-full.txt's entries wait for the end of the documents (llms-txt.ts; issue #39,
// "Memory": up to the cap, 8 MiB by default): an entry the kept entries hold (llms-kept-entries.ts)
// is read back from the part file it was kept in, its bytes written once; any other goes to a
// scratch file when the writer has a scratch folder (the build's), else to memory.
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { KeptPart } from './kept-parts.js';
import { grownTypedArray } from './grown-typed-array.js';
import { SpillWriter } from './spill-files.js';
import { StringArena } from './string-arena.js';

/** The longest run of entries read back at once (limits.maxLlmsFullBytes' default is 8 MiB). */
const RUN_BYTES = 1 << 20;
/** An entry's part when it lies in the scratch file or memory. */
const NOT_IN_PART = 0xffff_ffff;

/** This build's kept parts, closed (llms-kept-entries.ts finishParts). */
export interface FinishedParts {
  folder: string;
  parts: readonly KeptPart[];
}

export class FullEntries {
  private readonly arena = new StringArena();
  private readonly spill: SpillWriter | undefined;
  private count = 0;
  /** By position: the part (NOT_IN_PART: the scratch file), the offset there and the length. */
  private partOf = new Uint32Array(256);
  private at = new Float64Array(256);
  private length = new Uint32Array(256);
  private spillFd: number | undefined;
  private partFd: number | undefined;
  /** The file readRun reads (NOT_IN_PART: the scratch file, else a part), open as `fd`. */
  private openFile: number | undefined;
  private fd: number | undefined;
  private run = new Uint8Array(0);
  private parts: FinishedParts | undefined;

  constructor(scratchFolder: string | undefined) {
    this.spill =
      scratchFolder === undefined ? undefined : new SpillWriter(path.join(scratchFolder, 'llms-full-entries'));
  }

  /** Adds an entry; `place`: where it lies in this build's kept parts (its bytes are not copied). */
  add(entry: string | Uint8Array, place?: { part: number; offset: number }): void {
    if (this.spill === undefined) {
      this.arena.push(typeof entry === 'string' ? entry : Buffer.from(entry).toString('utf8'));
      return;
    }
    const bytes = typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry;
    const position = this.count;
    this.count += 1;
    this.partOf = grownTypedArray(this.partOf, this.count);
    this.at = grownTypedArray(this.at, this.count);
    this.length = grownTypedArray(this.length, this.count);
    this.length[position] = bytes.length;
    if (place !== undefined) {
      this.partOf[position] = place.part;
      this.at[position] = place.offset;
      return;
    }
    this.partOf[position] = NOT_IN_PART;
    this.at[position] = this.spill.bytes;
    this.spill.append(bytes);
  }

  /** Whether entries wait in files (a scratch folder was given), so addPlaced may be used. */
  get placesEntries(): boolean {
    return this.spill !== undefined;
  }

  /** Adds an entry of `length` bytes that lies at `place` in this build's kept parts (placesEntries). */
  addPlaced(length: number, place: { part: number; offset: number }): void {
    const position = this.count;
    this.count += 1;
    this.partOf = grownTypedArray(this.partOf, this.count);
    this.at = grownTypedArray(this.at, this.count);
    this.length = grownTypedArray(this.length, this.count);
    this.length[position] = length;
    this.partOf[position] = place.part;
    this.at[position] = place.offset;
  }

  /** The kept parts the placed entries lie in, once closed (before bytesInOrder). */
  readFrom(parts: FinishedParts | undefined): void {
    this.parts = parts;
  }

  /**
   * The entries at `positions`, in that order, as UTF-8: entries that lie end to end in one file
   * (most of them: ids sort about as the documents came) come as one piece, read at once, so the
   * file's writer hashes and copies a few runs, not a piece a document. A piece is a view valid
   * until the next.
   */
  *bytesInOrder(positions: Iterable<number>): Generator<Uint8Array> {
    if (this.spill === undefined) {
      for (const position of positions) yield this.arena.bytesAt(position);
      return;
    }
    let runFile = NOT_IN_PART;
    let runAt = 0;
    let runLength = 0;
    for (const position of positions) {
      const file = this.partOf[position]!;
      const at = this.at[position]!;
      const length = this.length[position]!;
      if (runLength > 0 && file === runFile && at === runAt + runLength && runLength + length <= RUN_BYTES) {
        runLength += length;
        continue;
      }
      if (runLength > 0) yield this.readRun(runFile, runAt, runLength);
      runFile = file;
      runAt = at;
      runLength = length;
    }
    if (runLength > 0) yield this.readRun(runFile, runAt, runLength);
  }

  /** `length` bytes from `at` of the scratch file or a part, into the run buffer (reused). */
  private readRun(file: number, at: number, length: number): Uint8Array {
    if (this.openFile !== file) this.openFileOf(file);
    if (this.run.length < length) this.run = new Uint8Array(Math.max(length, RUN_BYTES));
    let filled = 0;
    while (filled < length) {
      const read = readSync(this.fd!, this.run, filled, length - filled, at + filled);
      if (read === 0) throw new Error('an llms-full.txt entry lies past the end of its file');
      filled += read;
    }
    return this.run.subarray(0, length);
  }

  /** Opens the scratch file (once) or a part, for readRun. */
  private openFileOf(file: number): void {
    if (this.partFd !== undefined) closeSync(this.partFd);
    this.partFd = undefined;
    if (file === NOT_IN_PART) {
      if (this.spillFd === undefined) {
        this.spill!.close();
        this.spillFd = openSync(this.spill!.file, 'r');
      }
      this.fd = this.spillFd;
    } else {
      const named = this.parts?.parts[file];
      if (named === undefined)
        throw new Error(`an llms-full.txt entry lies in kept part ${file}, which was not closed`);
      this.partFd = openSync(path.join(this.parts!.folder, named.name), 'r');
      this.fd = this.partFd;
    }
    this.openFile = file;
  }

  close(): void {
    if (this.partFd !== undefined) closeSync(this.partFd);
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    else this.spill?.close();
    this.partFd = undefined;
    this.spillFd = undefined;
    this.openFile = undefined;
    this.fd = undefined;
    this.run = new Uint8Array(0);
  }
}
