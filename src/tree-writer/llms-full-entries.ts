// Where llms-full.txt's entries wait for the end of the documents (llms-txt.ts; issue #39,
// "Memory": up to the cap, 8 MiB by default): an entry the kept entries hold (llms-kept-entries.ts)
// is read back from the part file it was kept in, its bytes written once; any other goes to a
// scratch file when the writer has a scratch folder (the build's), else to memory.
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import type { KeptPart } from './kept-parts.js';
import { grownTypedArray } from './grown-typed-array.js';
import { SpillWriter, WindowReader } from './spill-files.js';
import { StringArena } from './string-arena.js';

/** What the entries are read back through (limits.maxLlmsFullBytes' default is 8 MiB). */
const FULL_WINDOW_BYTES = 1 << 20;
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
  /** The file the reader reads: NOT_IN_PART (the scratch file) or a part. */
  private readerFile: number | undefined;
  private reader: WindowReader | undefined;
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

  /** The kept parts the placed entries lie in, once closed (before the first bytesAt). */
  readFrom(parts: FinishedParts | undefined): void {
    this.parts = parts;
  }

  /** The entry added `position`th, as UTF-8. */
  bytesAt(position: number): Uint8Array {
    if (this.spill === undefined) return this.arena.bytesAt(position);
    const part = this.partOf[position]!;
    if (this.readerFile !== part) this.openReader(part);
    return this.reader!.read(this.at[position]!, this.length[position]!);
  }

  /**
   * Points the reader at the scratch file or a part: entries are read back by id, in about the
   * order they came, so a read a window, not one an entry, and a part opened once.
   */
  private openReader(part: number): void {
    if (this.partFd !== undefined) closeSync(this.partFd);
    this.partFd = undefined;
    let fd: number;
    if (part === NOT_IN_PART) {
      if (this.spillFd === undefined) {
        this.spill!.close();
        this.spillFd = openSync(this.spill!.file, 'r');
      }
      fd = this.spillFd;
    } else {
      const named = this.parts?.parts[part];
      if (named === undefined)
        throw new Error(`an llms-full.txt entry lies in kept part ${part}, which was not closed`);
      fd = openSync(path.join(this.parts!.folder, named.name), 'r');
      this.partFd = fd;
    }
    this.reader = this.reader === undefined ? new WindowReader(fd, FULL_WINDOW_BYTES) : this.reader.switchTo(fd);
    this.readerFile = part;
  }

  close(): void {
    if (this.partFd !== undefined) closeSync(this.partFd);
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    else this.spill?.close();
    this.partFd = undefined;
    this.spillFd = undefined;
    this.readerFile = undefined;
    this.reader = undefined;
  }
}
