// The run index's keys (run-index.ts), kept on disk the way an external sort keeps its data: each
// key (48 bits) with its entry number, in sorted runs written to a scratch file as they fill, and
// merged into one sorted list at the first lookup after them; only the first key of each block
// of that list stays in memory (~0.1 byte a key). A lookup reads one block (640 bytes). An
// open-addressing table and a key per entry in memory cost ~12 bytes a cached call, held through
// the whole call loop beside the tree writer's own per-file state: the build's peak.
// A few keys never reach the disk (a small bucket: no file at all). Of two records of one key
// the one with the higher entry number is kept: entries are numbered in the log's order, so the
// later line wins. The scratch file sits beside the bucket's log and is unlinked as soon as it
// is open (nothing is left behind by a killed build, nobody else can write to it).
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { readExactly } from '../tree-writer/read-exactly.js';
import { sortPositions } from '../tree-writer/sort-positions.js';

/** 6 bytes of key, then the entry number (32 bits), little-endian. */
const RECORD_BYTES = 10;
const KEY_BYTES = 6;
/**
 * Records held before a sorted run goes to the file (120 KiB): every buffer here stays under
 * glibc's mmap threshold (128 KiB), whose rise after a bigger buffer is freed holds later ones.
 */
const RUN_RECORDS = 12_288;
/** Records per block of the merged list: a lookup reads one block. */
const BLOCK_RECORDS = 64;
const BLOCK_BYTES = BLOCK_RECORDS * RECORD_BYTES;
/** Records read at once from each run while merging. */
const MERGE_READ_RECORDS = 96;
/** Records written at once by the merge (60 KiB). */
const WRITE_RECORDS = 6_144;

/** What `find` returns for a key that is not there. */
export const NOT_FOUND = -1;

export class SortedKeyFile {
  private fd: number | undefined;
  /** Whether the file's name could not be removed while it was open. */
  private removeOnClose = false;
  private fileBytes = 0;
  /** Records added since the last merge, unsorted. */
  private pending = Buffer.alloc(0);
  private pendingCount = 0;
  /** Sorted runs in the file not yet merged: where each starts, and its record count. */
  private runStarts: number[] = [];
  private runCounts: number[] = [];
  /** The merged list: in memory (few keys, no file) or in the file from `mergedStart`. */
  private mergedMemory: Buffer | undefined;
  private mergedStart = 0;
  private mergedCount = 0;
  /** The first key of each block of the merged list. */
  private firstKeys: Float64Array = new Float64Array(0);
  private readonly block = Buffer.alloc(BLOCK_BYTES);
  /** The block in `block` (-1: none). */
  private blockNumber = -1;
  /** A sorted run, as it is written. */
  private runBuffer = Buffer.alloc(0);
  /** The pending records' keys, as numbers, while they are sorted. */
  private sortKeys: Float64Array = new Float64Array(0);
  /** The record `find` found last (its number in the merged list), for `repointFound`. */
  private foundRecord = -1;

  /**
   * `file`: the scratch file's path, created only once more than RUN_RECORDS keys are added;
   * `onSuperseded`: told each entry a later record of its key replaces, as the merge finds it.
   */
  constructor(
    private readonly file: string,
    private readonly onSuperseded: (entry: number) => void,
  ) {}

  /** Merges what was added since the last lookup (every entry superseded so far is then told). */
  settle(): void {
    this.merge();
  }

  /** Distinct keys (merges what was added since the last lookup). */
  get size(): number {
    this.merge();
    return this.mergedCount;
  }

  /** Adds `key` (a whole number below 2^48) for `entry`, which is higher than every entry added before. */
  add(key: number, entry: number): void {
    if (this.pendingCount * RECORD_BYTES === this.pending.length) {
      if (this.pendingCount === RUN_RECORDS) this.writeRun();
      else {
        const records = Math.min(Math.max(this.pendingCount * 2, 64), RUN_RECORDS);
        const grown = Buffer.alloc(records * RECORD_BYTES);
        this.pending.copy(grown);
        this.pending = grown;
      }
    }
    const at = this.pendingCount * RECORD_BYTES;
    this.pending.writeUIntLE(key, at, KEY_BYTES);
    this.pending.writeUInt32LE(entry, at + KEY_BYTES);
    this.pendingCount += 1;
  }

  /** The entry of `key`, or NOT_FOUND. */
  find(key: number): number {
    this.merge();
    this.foundRecord = -1;
    const firstKeys = this.firstKeys;
    const blocks = Math.ceil(this.mergedCount / BLOCK_RECORDS);
    if (blocks === 0 || firstKeys[0]! > key) return NOT_FOUND;
    // The last block whose first key is at most `key`.
    let low = 0;
    let high = blocks - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (firstKeys[middle]! <= key) low = middle;
      else high = middle - 1;
    }
    const records = this.loadBlock(low);
    let first = 0;
    let last = records - 1;
    while (first <= last) {
      const middle = (first + last) >>> 1;
      const found = this.block.readUIntLE(middle * RECORD_BYTES, KEY_BYTES);
      if (found < key) first = middle + 1;
      else if (found > key) last = middle - 1;
      else {
        this.foundRecord = low * BLOCK_RECORDS + middle;
        return this.block.readUInt32LE(middle * RECORD_BYTES + KEY_BYTES);
      }
    }
    return NOT_FOUND;
  }

  /** Points the key `find` last found at `entry` instead (which supersedes its entry). */
  repointFound(entry: number): void {
    const record = this.foundRecord;
    if (record < 0) return;
    const inBlock = (record % BLOCK_RECORDS) * RECORD_BYTES + KEY_BYTES;
    this.onSuperseded(this.block.readUInt32LE(inBlock));
    this.block.writeUInt32LE(entry, inBlock);
    const at = record * RECORD_BYTES + KEY_BYTES;
    if (this.mergedMemory) this.mergedMemory.writeUInt32LE(entry, at);
    else this.writeAt(this.block.subarray(inBlock, inBlock + 4), this.mergedStart + at);
  }

  /** Forgets every key and closes the file. */
  clear(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.removeOnClose) rmSync(this.file, { force: true });
    this.removeOnClose = false;
    this.fd = undefined;
    this.fileBytes = 0;
    this.pending = Buffer.alloc(0);
    this.runBuffer = Buffer.alloc(0);
    this.sortKeys = new Float64Array(0);
    this.pendingCount = 0;
    this.runStarts = [];
    this.runCounts = [];
    this.mergedMemory = undefined;
    this.mergedStart = 0;
    this.mergedCount = 0;
    this.firstKeys = new Float64Array(0);
    this.blockNumber = -1;
    this.foundRecord = -1;
  }

  /** Reads block `number` of the merged list into `block`; returns its record count. */
  private loadBlock(number: number): number {
    const records = Math.min(BLOCK_RECORDS, this.mergedCount - number * BLOCK_RECORDS);
    if (this.blockNumber !== number) {
      const start = number * BLOCK_BYTES;
      if (this.mergedMemory) this.mergedMemory.copy(this.block, 0, start, start + records * RECORD_BYTES);
      else readExactly(this.fd!, this.block.subarray(0, records * RECORD_BYTES), this.mergedStart + start, this.file);
      this.blockNumber = number;
    }
    return records;
  }

  /** The pending records' positions, sorted by key, then by when they were added. */
  private sortPending(): Uint32Array {
    const count = this.pendingCount;
    if (this.sortKeys.length < count) this.sortKeys = new Float64Array(RUN_RECORDS);
    const keys = this.sortKeys;
    const order = new Uint32Array(count);
    for (let index = 0; index < count; index++) {
      order[index] = index;
      keys[index] = this.pending.readUIntLE(index * RECORD_BYTES, KEY_BYTES);
    }
    return sortPositions(order, (left, right) => keys[left]! - keys[right]! || left - right);
  }

  /** Writes the pending records to the file as one sorted run. */
  private writeRun(): void {
    const order = this.sortPending();
    if (this.runBuffer.length < this.pending.length) this.runBuffer = Buffer.allocUnsafe(RUN_RECORDS * RECORD_BYTES);
    const run = this.runBuffer.subarray(0, this.pendingCount * RECORD_BYTES);
    for (let index = 0; index < order.length; index++) {
      const from = order[index]! * RECORD_BYTES;
      this.pending.copy(run, index * RECORD_BYTES, from, from + RECORD_BYTES);
    }
    this.runStarts.push(this.fileBytes);
    this.runCounts.push(this.pendingCount);
    this.append(run);
    this.pendingCount = 0;
  }

  /** Merges the runs, the pending records and the merged list into a new merged list. */
  private merge(): void {
    if (this.pendingCount === 0 && this.runStarts.length === 0) return;
    this.blockNumber = -1;
    this.foundRecord = -1;
    if (this.fd === undefined && this.mergedCount + this.pendingCount <= RUN_RECORDS) {
      this.mergeInMemory();
      return;
    }
    if (this.pendingCount > 0) this.writeRun();
    if (this.mergedMemory) {
      this.runStarts.push(this.fileBytes);
      this.runCounts.push(this.mergedCount);
      this.append(this.mergedMemory.subarray(0, this.mergedCount * RECORD_BYTES));
      this.mergedMemory = undefined;
    } else if (this.mergedCount > 0) {
      this.runStarts.push(this.mergedStart);
      this.runCounts.push(this.mergedCount);
    }
    this.mergeRuns();
    // Lookups follow: the buffers of the runs are not needed until keys are added again.
    this.pending = Buffer.alloc(0);
    this.runBuffer = Buffer.alloc(0);
    this.sortKeys = new Float64Array(0);
  }

  /** Few keys, none in the file: the merged list and the pending records, sorted, become the merged list. */
  private mergeInMemory(): void {
    if (this.mergedMemory) {
      // The merged records go first: a pending record of the same key came later.
      const merged = this.mergedCount * RECORD_BYTES;
      const both = Buffer.alloc(merged + this.pendingCount * RECORD_BYTES);
      this.mergedMemory.copy(both, 0, 0, merged);
      this.pending.copy(both, merged, 0, this.pendingCount * RECORD_BYTES);
      this.pending = both;
      this.pendingCount += this.mergedCount;
    }
    const order = this.sortPending();
    const merged = Buffer.allocUnsafe(this.pendingCount * RECORD_BYTES);
    const output = new MergedOutput(merged, this.pendingCount, this.onSuperseded);
    for (let index = 0; index < order.length; index++) {
      const from = order[index]! * RECORD_BYTES;
      output.emit(this.pending.readUIntLE(from, KEY_BYTES), this.pending.readUInt32LE(from + KEY_BYTES));
    }
    output.finish();
    this.mergedMemory = merged;
    this.mergedCount = output.count;
    this.firstKeys = output.firstKeys;
    this.pendingCount = 0;
  }

  /** A k-way merge of the file's runs (a binary heap of runs by their current record) to its end. */
  private mergeRuns(): void {
    const runs = this.runStarts.length;
    const total = this.runCounts.reduce((sum, count) => sum + count, 0);
    const readBytes = MERGE_READ_RECORDS * RECORD_BYTES;
    const reads = Buffer.allocUnsafe(runs * readBytes);
    const next = new Float64Array(runs);
    const left = new Float64Array(runs);
    const loaded = new Uint32Array(runs);
    const at = new Uint32Array(runs);
    const keys = new Float64Array(runs);
    const entries = new Uint32Array(runs);
    const fill = (run: number): boolean => {
      if (at[run]! < loaded[run]!) return true;
      const count = Math.min(MERGE_READ_RECORDS, left[run]!);
      if (count === 0) return false;
      const view = reads.subarray(run * readBytes, run * readBytes + count * RECORD_BYTES);
      readExactly(this.fd!, view, next[run]!, this.file);
      next[run]! += count * RECORD_BYTES;
      left[run]! -= count;
      loaded[run] = count;
      at[run] = 0;
      return true;
    };
    const advance = (run: number): boolean => {
      if (!fill(run)) return false;
      const from = run * readBytes + at[run]! * RECORD_BYTES;
      keys[run] = reads.readUIntLE(from, KEY_BYTES);
      entries[run] = reads.readUInt32LE(from + KEY_BYTES);
      at[run]! += 1;
      return true;
    };
    const before = (a: number, b: number): boolean =>
      keys[a]! < keys[b]! || (keys[a] === keys[b] && entries[a]! < entries[b]!);
    const heap = new Uint32Array(runs);
    let size = 0;
    const siftDown = (from: number): void => {
      let place = from;
      for (;;) {
        const leftChild = 2 * place + 1;
        if (leftChild >= size) return;
        const child =
          leftChild + 1 < size && before(heap[leftChild + 1]!, heap[leftChild]!) ? leftChild + 1 : leftChild;
        if (!before(heap[child]!, heap[place]!)) return;
        const moved = heap[child]!;
        heap[child] = heap[place]!;
        heap[place] = moved;
        place = child;
      }
    };
    for (let run = 0; run < runs; run++) {
      next[run] = this.runStarts[run]!;
      left[run] = this.runCounts[run]!;
      if (advance(run)) heap[size++] = run;
    }
    for (let place = (size >>> 1) - 1; place >= 0; place--) siftDown(place);
    const start = this.fileBytes;
    const output = new MergedOutput(
      Buffer.allocUnsafe(WRITE_RECORDS * RECORD_BYTES),
      total,
      this.onSuperseded,
      (bytes) => this.append(bytes),
    );
    while (size > 0) {
      const run = heap[0]!;
      output.emit(keys[run]!, entries[run]!);
      if (!advance(run)) heap[0] = heap[--size]!;
      siftDown(0);
    }
    output.finish();
    this.mergedStart = start;
    this.mergedCount = output.count;
    this.firstKeys = output.firstKeys;
    this.runStarts = [];
    this.runCounts = [];
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    try {
      this.fd = openSync(this.file, 'w+', 0o600);
    } catch (error) {
      throw this.failure(error);
    }
    try {
      rmSync(this.file, { force: true });
    } catch {
      // A system that keeps an open file's name (an older Windows): removed once closed (clear).
      this.removeOnClose = true;
    }
    return this.fd;
  }

  private append(bytes: Uint8Array): void {
    this.writeAt(bytes, this.fileBytes);
    this.fileBytes += bytes.length;
  }

  private writeAt(bytes: Uint8Array, position: number): void {
    const fd = this.open();
    try {
      for (let done = 0; done < bytes.length; )
        done += writeSync(fd, bytes, done, bytes.length - done, position + done);
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): StaticMcpError {
    return new StaticMcpError(
      'SCRATCH_FILE_FAILED',
      `The build could not write its scratch index of the build cache at ${this.file}: ${(error as Error).message}`,
      'Free some space on the disk that holds the project (its .staticmcp folder), or check that the build may write there, and build again.',
    );
  }
}

/**
 * The merged list as it is written: records in order, the later of two records of one key kept
 * (they arrive by entry), the first key of each block noted; `flush` takes each full buffer.
 */
class MergedOutput {
  count = 0;
  readonly firstKeys: Float64Array;
  private used = 0;
  private lastKey = -1;

  constructor(
    private readonly buffer: Buffer,
    most: number,
    private readonly onSuperseded: (entry: number) => void,
    private readonly flush?: (bytes: Buffer) => void,
  ) {
    this.firstKeys = new Float64Array(Math.ceil(most / BLOCK_RECORDS));
  }

  emit(key: number, entry: number): void {
    if (key === this.lastKey) {
      this.onSuperseded(this.buffer.readUInt32LE(this.used - RECORD_BYTES + KEY_BYTES));
      this.buffer.writeUInt32LE(entry, this.used - RECORD_BYTES + KEY_BYTES);
      return;
    }
    // A new key: the records before it are final.
    if (this.flush && this.used === this.buffer.length) {
      this.flush(this.buffer);
      this.used = 0;
    }
    if (this.count % BLOCK_RECORDS === 0) this.firstKeys[this.count / BLOCK_RECORDS] = key;
    this.buffer.writeUIntLE(key, this.used, KEY_BYTES);
    this.buffer.writeUInt32LE(entry, this.used + KEY_BYTES);
    this.used += RECORD_BYTES;
    this.lastKey = key;
    this.count += 1;
  }

  finish(): void {
    if (this.flush && this.used > 0) this.flush(this.buffer.subarray(0, this.used));
  }
}
