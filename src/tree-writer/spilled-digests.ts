// The content digests a tree writer records (file-digests.ts), by slot number, held on disk past the
// newest few thousand: a tree of 650,000 files kept 21 MB of digests in memory for two reads at
// the end (the content hash). The newest HELD_SLOTS digests stay in memory; each full batch of them
// is appended to one file beside the output folder (`<out>.staticmcp-digests-<pid>`), created only
// when a tree passes that many files. Every block of BLOCK_SLOTS digests on disk has its CRC-32 in
// memory (4 bytes per 16 files), checked on every read: a file cut short or changed by anyone else
// mid-build stops the build with a clear error, never a wrong content hash.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { FILE_DIGEST_BYTES } from './content-hash.js';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import { readExactly } from './read-exactly.js';
import { sortPositions } from './sort-positions.js';

/** Digests kept in memory before a batch goes to the file (128 KiB). */
export const HELD_SLOTS = 4096;
/** Digests per checksummed block of the file: a read of one digest reads and checks its block (512 bytes). */
const BLOCK_SLOTS = 16;
const BLOCK_BYTES = BLOCK_SLOTS * FILE_DIGEST_BYTES;
/** Blocks read at once when digests are read in an order (inOrder): 512 KiB. */
const CHUNK_BLOCKS = 1024;
/**
 * Positions served per pass over the file by inOrder: 512 KiB of digests in memory. The content
 * hash's walk is part of the build's peak; its orders (paths sorted) take a window's slots from a
 * narrow part of the file, so a smaller window reads about as much of the file in all.
 */
const WINDOW_SLOTS = 16_384;
/**
 * Checked blocks `get` keeps (2 MiB): the build reads digests one at a time (raw copies, resource
 * and call packing, in slot or path order), and reading a block per digest made each a syscall.
 */
export const KEPT_BLOCKS = 4096;
/** Blocks a `get` that misses reads at once (8 KiB), each checked and kept. */
const RUN_BLOCKS = 16;

/**
 * Slots handed to inOrder a window at a time (file-digests.ts: an order given back as it is
 * walked): `length` of them in all, `take` fills its array with the next ones and says how many.
 */
export interface SlotWindows {
  readonly length: number;
  take(into: Uint32Array): number;
}

export class SpilledDigests {
  /** Digests of the slots from `spilledSlots` on, in memory. */
  private held = Buffer.alloc(HELD_SLOTS * FILE_DIGEST_BYTES);
  /** Slots 0 … spilledSlots - 1 are in the file (a multiple of HELD_SLOTS). */
  private spilledSlots = 0;
  private fd: number | undefined;
  /** The CRC-32 of each block of the file. */
  private blockSums = new Uint32Array(0);
  private readonly block = Buffer.alloc(BLOCK_BYTES);
  /**
   * Blocks `get` read and checked, at most KEPT_BLOCKS, in one buffer of places reused oldest first:
   * a Buffer of its own per kept block came from Buffer's 8 KiB pools, and the pack step's reads
   * in key order (a random order of slots) left each pool held by a block or two of it, or freed
   * only by a full collection: ~10 MB of malloc's heap at 200,000 calls, where 2 MiB were kept.
   */
  private kept = Buffer.alloc(0);
  /**
   * Per block of the file, its place in `kept` + 1 (0: not kept). A Map of 4,096 kept blocks,
   * deleted from and added to at each read that misses, was rebuilt every 4,096 deletions as a
   * new ~230 KiB table in V8's large-object space, each left there until a full collection.
   */
  private placeOfBlock = new Uint16Array(0);
  /** Place → the block number it holds (the oldest place is taken next once all are used). */
  private readonly keptBlockOf = new Uint32Array(KEPT_BLOCKS);
  private keptCount = 0;
  private nextPlace = 0;
  private readonly run = Buffer.alloc(RUN_BLOCKS * BLOCK_BYTES);
  /** viewOf's digest of a kept block (a view of `kept` would be overwritten by the next read anyway). */
  private readonly keptDigest = Buffer.alloc(FILE_DIGEST_BYTES);
  /** `same`'s left digest, copied before the right one is read. */
  private readonly leftDigest = Buffer.alloc(FILE_DIGEST_BYTES);

  /** `file`: where digests go past HELD_SLOTS (undefined: all are held in memory). */
  constructor(private readonly file: string | undefined) {}

  /** Records the digest of `slot` (a new slot is always the next one: slots are numbered in order). */
  set(slot: number, digest: Uint8Array): void {
    if (slot >= this.spilledSlots) {
      const at = (slot - this.spilledSlots) * FILE_DIGEST_BYTES;
      if (at >= this.held.length) {
        if (this.file === undefined || at > this.held.length) {
          this.held = grownTypedArray(this.held, at + FILE_DIGEST_BYTES);
        } else {
          this.spillHeld();
          this.set(slot, digest);
          return;
        }
      }
      this.held.set(digest, at);
      return;
    }
    // A file written again: its block is read, patched and written back, its sum renewed.
    const blockNumber = Math.floor(slot / BLOCK_SLOTS);
    const block = this.readBlock(blockNumber);
    block.set(digest, (slot % BLOCK_SLOTS) * FILE_DIGEST_BYTES);
    this.writeAt(block, blockNumber * BLOCK_BYTES);
    this.blockSums[blockNumber] = crc32(block);
    const place = this.placeOfBlock[blockNumber]! - 1;
    if (place >= 0) block.copy(this.kept, place * BLOCK_BYTES);
  }

  /** The digest of `slot` (a copy). */
  get(slot: number): Buffer {
    return Buffer.from(this.viewOf(slot));
  }

  /** Whether two slots have the same digest (nothing allocated). */
  same(left: number, right: number): boolean {
    // Copied: reading the right one may take the kept place or the view the left one is in.
    copyDigest(this.viewOf(left), 0, this.leftDigest, 0);
    return this.viewOf(right).equals(this.leftDigest);
  }

  /** The digest of `slot`, in a buffer valid until the next read or write of a digest. */
  viewOf(slot: number): Buffer {
    if (slot >= this.spilledSlots) {
      const at = (slot - this.spilledSlots) * FILE_DIGEST_BYTES;
      return this.held.subarray(at, at + FILE_DIGEST_BYTES);
    }
    const at = this.keptPlace(Math.floor(slot / BLOCK_SLOTS)) * BLOCK_BYTES + (slot % BLOCK_SLOTS) * FILE_DIGEST_BYTES;
    copyDigest(this.kept, at, this.keptDigest, 0);
    return this.keptDigest;
  }

  /**
   * viewOf for reads in a scattered order (the pack step's, in call-key order): a block not kept is
   * read and checked alone, and not kept. Such reads seldom come back to a block before it is
   * evicted, so keeping blocks only grew `kept` to its full size and checked a run of blocks a read.
   */
  scatteredViewOf(slot: number): Buffer {
    if (slot >= this.spilledSlots || this.placeOfBlock[Math.floor(slot / BLOCK_SLOTS)] !== 0) return this.viewOf(slot);
    const at = (slot % BLOCK_SLOTS) * FILE_DIGEST_BYTES;
    copyDigest(this.readBlock(Math.floor(slot / BLOCK_SLOTS)), at, this.keptDigest, 0);
    return this.keptDigest;
  }

  /**
   * The place in `kept` of block `blockNumber`, from those kept or read with the blocks after it
   * (up to RUN_BLOCKS), each checked: one that does not match is not kept, and is an error only
   * when it is the one asked for.
   */
  private keptPlace(blockNumber: number): number {
    const kept = this.placeOfBlock[blockNumber]! - 1;
    if (kept >= 0) return kept;
    const blocks = Math.min(RUN_BLOCKS, this.spilledSlots / BLOCK_SLOTS - blockNumber);
    const bytes = this.run.subarray(0, blocks * BLOCK_BYTES);
    try {
      readExactly(this.fd!, bytes, blockNumber * BLOCK_BYTES, 'it');
    } catch (error) {
      throw this.damaged(`${(error as Error).message.replace(/^it /, '')}`);
    }
    for (let block = 0; block < blocks; block++) {
      const number = blockNumber + block;
      const start = block * BLOCK_BYTES;
      if (crc32(bytes.subarray(start, start + BLOCK_BYTES)) !== this.blockSums[number]) {
        if (block === 0) throw this.damaged(`its block ${number} is not what was written`);
        continue;
      }
      if (this.placeOfBlock[number] !== 0) continue;
      // The place first: taking it may grow `kept` into a new view.
      const place = this.takePlace(number);
      bytes.copy(this.kept, place * BLOCK_BYTES, start, start + BLOCK_BYTES);
    }
    return this.placeOfBlock[blockNumber]! - 1;
  }

  /** The next place in `kept` for block `number`: a new one until KEPT_BLOCKS are used, then the oldest. */
  private takePlace(number: number): number {
    const place = this.nextPlace;
    this.nextPlace = (place + 1) % KEPT_BLOCKS;
    if (this.keptCount === KEPT_BLOCKS) this.placeOfBlock[this.keptBlockOf[place]!] = 0;
    else {
      // Grown in place as places are first used (grown-typed-array.ts): a small tree keeps a few pages.
      this.kept = grownTypedArray(this.kept, (place + 1) * BLOCK_BYTES);
      this.keptCount += 1;
    }
    this.keptBlockOf[place] = number;
    this.placeOfBlock[number] = place + 1;
    return place;
  }

  /** The digests of `slots`, in that order (a copy in one buffer, valid until the next one). */
  *inOrder(slots: Uint32Array | SlotWindows): IterableIterator<Buffer> {
    const digest = Buffer.alloc(FILE_DIGEST_BYTES);
    for (const window of this.windowsInOrder(slots))
      for (let position = 0; position < window.slots.length; position++) {
        copyDigest(window.digests, position * FILE_DIGEST_BYTES, digest, 0);
        yield digest;
      }
  }

  /**
   * inOrder with no object made a digest (the content hash's walk of every file: a generator's
   * results were most of its collections): `visit` is told each slot with its digest (a copy in
   * one buffer, valid during the call).
   */
  forEachInOrder(slots: Uint32Array | SlotWindows, visit: (slot: number, digest: Buffer) => void): void {
    const digest = Buffer.alloc(FILE_DIGEST_BYTES);
    for (const window of this.windowsInOrder(slots))
      for (let position = 0; position < window.slots.length; position++) {
        copyDigest(window.digests, position * FILE_DIGEST_BYTES, digest, 0);
        visit(window.slots[position]!, digest);
      }
  }

  /**
   * The digests of `slots` a window of them at a time (its slots, and their digests in that order,
   * valid until the next window), its slots read from the file in the file's order, one pass over
   * the file per window. The window and the chunk are grown in place and given back when the walk
   * ends: Buffers of a few megabytes freed by a collection came from malloc's heap, and the
   * build's walks one after the other (the content hash, then the pack step's) held two sets at
   * once at its peak.
   */
  private *windowsInOrder(slots: Uint32Array | SlotWindows): IterableIterator<{ slots: Uint32Array; digests: Buffer }> {
    const windowSlots = Math.min(slots.length, WINDOW_SLOTS);
    let window = grownTypedArray(Buffer.alloc(0), windowSlots * FILE_DIGEST_BYTES);
    let chunk = grownTypedArray(Buffer.alloc(0), this.spilledSlots > 0 ? CHUNK_BLOCKS * BLOCK_BYTES : 0);
    let byFileOrder = grownTypedArray(new Uint32Array(0), windowSlots);
    const taken = slots instanceof Uint32Array ? undefined : new Uint32Array(windowSlots);
    try {
      for (let start = 0; start < slots.length; start += WINDOW_SLOTS) {
        const part =
          taken === undefined
            ? (slots as Uint32Array).subarray(start, start + WINDOW_SLOTS)
            : taken.subarray(0, (slots as SlotWindows).take(taken));
        for (let position = 0; position < part.length; position++) byFileOrder[position] = position;
        sortPositions(byFileOrder.subarray(0, part.length), (left, right) => part[left]! - part[right]!);
        let chunkFirst = -1;
        let chunkBlocks = 0;
        for (let index = 0; index < part.length; index++) {
          const position = byFileOrder[index]!;
          const slot = part[position]!;
          const into = position * FILE_DIGEST_BYTES;
          if (slot >= this.spilledSlots) {
            const at = (slot - this.spilledSlots) * FILE_DIGEST_BYTES;
            copyDigest(this.held, at, window, into);
            continue;
          }
          const blockNumber = Math.floor(slot / BLOCK_SLOTS);
          if (chunkFirst < 0 || blockNumber >= chunkFirst + chunkBlocks) {
            chunkFirst = blockNumber;
            chunkBlocks = Math.min(CHUNK_BLOCKS, this.spilledSlots / BLOCK_SLOTS - blockNumber);
            this.readBlocks(chunk.subarray(0, chunkBlocks * BLOCK_BYTES), chunkFirst);
          }
          const at = (blockNumber - chunkFirst) * BLOCK_BYTES + (slot % BLOCK_SLOTS) * FILE_DIGEST_BYTES;
          copyDigest(chunk, at, window, into);
        }
        yield { slots: part, digests: window };
      }
    } finally {
      window = releaseGrown(window);
      chunk = releaseGrown(chunk);
      byFileOrder = releaseGrown(byFileOrder);
    }
  }

  /** Closes and removes the file (the digests are gone). */
  close(): void {
    if (this.fd === undefined) return;
    this.kept = releaseGrown(this.kept);
    this.placeOfBlock = releaseGrown(this.placeOfBlock);
    this.keptCount = 0;
    this.nextPlace = 0;
    closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.file!, { force: true });
  }

  /** Appends the held digests (HELD_SLOTS of them) to the file and starts holding anew. */
  private spillHeld(): void {
    this.fd ??= openSync(this.file!, 'w+', 0o600);
    const firstBlock = this.spilledSlots / BLOCK_SLOTS;
    const blocks = this.held.length / BLOCK_BYTES;
    this.blockSums = grownTypedArray(this.blockSums, firstBlock + blocks);
    this.placeOfBlock = grownTypedArray(this.placeOfBlock, firstBlock + blocks);
    for (let block = 0; block < blocks; block++)
      this.blockSums[firstBlock + block] = crc32(this.held.subarray(block * BLOCK_BYTES, (block + 1) * BLOCK_BYTES));
    this.writeAt(this.held, this.spilledSlots * FILE_DIGEST_BYTES);
    this.spilledSlots += HELD_SLOTS;
    this.held.fill(0);
  }

  private writeAt(bytes: Uint8Array, position: number): void {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd!, bytes, done, bytes.length - done, position + done);
  }

  private readBlock(blockNumber: number): Buffer {
    this.readBlocks(this.block, blockNumber);
    return this.block;
  }

  /** Fills `into` with whole blocks from `firstBlock` on, each checked against its sum. */
  private readBlocks(into: Buffer, firstBlock: number): void {
    try {
      readExactly(this.fd!, into, firstBlock * BLOCK_BYTES, 'it');
    } catch (error) {
      throw this.damaged(`${(error as Error).message.replace(/^it /, '')}`);
    }
    for (let block = 0; block < into.length / BLOCK_BYTES; block++) {
      if (crc32(into.subarray(block * BLOCK_BYTES, (block + 1) * BLOCK_BYTES)) !== this.blockSums[firstBlock + block])
        throw this.damaged(`its block ${firstBlock + block} is not what was written`);
    }
  }

  private damaged(what: string): StaticMcpError {
    return new StaticMcpError(
      'SCRATCH_FILE_DAMAGED',
      `The build's file of content digests ${this.file} changed under it (${what}); nothing was swapped in`,
      'Something else wrote to or cut that file while the build ran: run the build again, and keep other programs away from the files beside the output folder.',
    );
  }
}

/**
 * Copies one digest from `source` at `from` into `target` at `to`, byte by byte: Buffer's copy
 * makes a view object a call, and the content hash's walk copies two or three digests a file
 * (half the walk's collections of the young generation, whose survivors fill the old one).
 */
function copyDigest(source: Uint8Array, from: number, target: Uint8Array, to: number): void {
  for (let index = 0; index < FILE_DIGEST_BYTES; index++) target[to + index] = source[from + index]!;
}
