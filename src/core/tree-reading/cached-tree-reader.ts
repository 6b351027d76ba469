// Parsed tree files behind a bounded LRU cache (entries and approximate bytes), shared by both
// sources: a hot key is parsed once, memory stays flat however many distinct keys are asked for.
// A file is admitted on its second read (a "doorkeeper" of recently seen paths): calls spread
// over a big tree would otherwise churn the cache, and every evicted entry is old-space garbage
// that grew resident memory by ~10 MB over 10,000 calls (bench/bridge-big-tree.mjs).
import type { AnswerRoom } from './answer-room.js';
import { checkTreePath, type ReadOutcome, type TreeSource } from '../tree/tree-source.js';

export type JsonFile =
  | { kind: 'ok'; value: unknown }
  | { kind: 'missing' }
  /** The file exists but cannot be used (not JSON, unreadable, unsafe path): a clean error, never a crash. */
  | { kind: 'broken'; reason: string };

interface CacheEntry {
  file: JsonFile;
  /** The file's text, kept beside its parsed value when it was read for an answer cut from its bytes. */
  text?: string;
  etag?: string;
  /** The file's length as read (UTF-16 units, what the answer built from it takes in UTF-8 for ASCII). */
  textLength?: number;
  checkedAt: number;
  sizeBytes: number;
}

export interface CacheLimits {
  maxEntries: number;
  maxBytes: number;
}

const DEFAULT_LIMITS: CacheLimits = { maxEntries: 1_000, maxBytes: 8 * 1024 * 1024 };
/**
 * Files at least this large are read one at a time, each after the event loop has had a turn:
 * reading and parsing one holds the loop for a while, and the large reads of one batch would
 * otherwise run back to back as one task, every other client's request waiting behind them all.
 */
const YIELD_BEFORE_READ_BYTES = 1024 * 1024;
/** What a cached "missing" or small entry is counted as, beyond its text. */
const ENTRY_OVERHEAD_BYTES = 200;

export class CachedTreeReader {
  private readonly entries = new Map<string, CacheEntry>();
  private totalBytes = 0;
  private readonly seenOnce = new Set<string>();
  /** Settles when the large read in progress (and its parse) is done. */
  private lastLargeRead: Promise<void> = Promise.resolve();
  private readonly limits: CacheLimits;

  constructor(
    readonly source: TreeSource,
    limits: Partial<CacheLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /**
   * The file, parsed. With `room` (the answer the file goes into), its size is looked up first and
   * claimed from the room: a file that would pass what is left is refused (the claim throws its
   * RpcError, naming the file as `what`) without being read.
   */
  async readJson(relativePath: string, room?: AnswerRoom, what = relativePath): Promise<JsonFile> {
    const unsafe = checkTreePath(relativePath);
    if (unsafe) return { kind: 'missing' };
    const cached = this.entries.get(relativePath);
    if (room) {
      const sizeBytes = cached?.textLength ?? (await this.source.sizeOf?.(relativePath));
      if (sizeBytes !== undefined) room.claim(sizeBytes, what);
      if (sizeBytes !== undefined && sizeBytes >= YIELD_BEFORE_READ_BYTES && !cached) {
        const previous = this.lastLargeRead;
        let done!: () => void;
        this.lastLargeRead = new Promise((resolve) => {
          done = resolve;
        });
        try {
          await previous;
          await new Promise((resolve) => setTimeout(resolve, 0));
          return await this.readUnclaimed(relativePath);
        } finally {
          done();
        }
      }
    }
    return this.readUnclaimed(relativePath);
  }

  private async readUnclaimed(relativePath: string): Promise<JsonFile> {
    const cached = this.entries.get(relativePath);
    const revalidateAfterMs = this.source.revalidateAfterMs;
    const now = Date.now();
    if (cached && (revalidateAfterMs === undefined || now - cached.checkedAt < revalidateAfterMs)) {
      this.entries.delete(relativePath);
      this.entries.set(relativePath, cached);
      return cached.file;
    }
    let outcome: ReadOutcome;
    try {
      outcome = await this.source.read(relativePath, cached?.etag);
    } catch (error) {
      // Not cached: a network hiccup should not stick.
      return { kind: 'broken', reason: (error as Error).message };
    }
    if (outcome.status === 'not-modified' && cached) {
      cached.checkedAt = now;
      this.remember(relativePath, cached);
      return cached.file;
    }
    let entry: CacheEntry;
    if (outcome.status === 'ok') {
      let file: JsonFile;
      try {
        file = { kind: 'ok', value: JSON.parse(outcome.text) };
      } catch {
        file = { kind: 'broken', reason: `${relativePath} is not valid JSON` };
      }
      entry = {
        file,
        etag: outcome.etag,
        checkedAt: now,
        textLength: outcome.text.length,
        sizeBytes: outcome.text.length * 2 + ENTRY_OVERHEAD_BYTES,
      };
    } else {
      entry = { file: { kind: 'missing' }, checkedAt: now, sizeBytes: ENTRY_OVERHEAD_BYTES };
    }
    this.remember(relativePath, entry);
    return entry.file;
  }

  /**
   * The text of a file and what it parses to, now (no promise): from the cache, or read from a
   * local source that can read synchronously; undefined when neither can, or the file is larger
   * than `maxBytes`, missing or not JSON (readJson then says what it is). For answers cut from a
   * file's bytes (core/mcp/cut-call-answers.ts); cached like readJson's files, with the text.
   */
  readNow(relativePath: string, maxBytes: number): { text: string; value: unknown } | undefined {
    const source = this.source;
    if (source.readNow === undefined || source.revalidateAfterMs !== undefined) return undefined;
    const cached = this.entries.get(relativePath);
    if (cached !== undefined) {
      if (cached.text === undefined || cached.file.kind !== 'ok' || cached.text.length > maxBytes) return undefined;
      this.entries.delete(relativePath);
      this.entries.set(relativePath, cached);
      return { text: cached.text, value: cached.file.value };
    }
    if (checkTreePath(relativePath)) return undefined;
    const outcome = source.readNow(relativePath, maxBytes);
    if (outcome?.status !== 'ok') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(outcome.text);
    } catch {
      return undefined;
    }
    const { text } = outcome;
    this.remember(relativePath, {
      file: { kind: 'ok', value },
      text,
      checkedAt: Date.now(),
      textLength: text.length,
      // The text is held as well as what it parsed to.
      sizeBytes: text.length * 4 + ENTRY_OVERHEAD_BYTES,
    });
    return { text, value };
  }

  private remember(relativePath: string, entry: CacheEntry): void {
    // Only for local folders: a second read there costs microseconds, a second download does not.
    const local = this.source.revalidateAfterMs === undefined;
    if (local && !this.entries.has(relativePath) && !this.seenOnce.delete(relativePath)) {
      if (this.seenOnce.size >= this.limits.maxEntries * 4) this.seenOnce.clear();
      this.seenOnce.add(relativePath);
      return;
    }
    const previous = this.entries.get(relativePath);
    if (previous) {
      this.totalBytes -= previous.sizeBytes;
      this.entries.delete(relativePath);
    }
    // A file bigger than a quarter of the cache would evict everything else for one answer.
    if (entry.sizeBytes > this.limits.maxBytes / 4) return;
    this.entries.set(relativePath, entry);
    this.totalBytes += entry.sizeBytes;
    while (this.entries.size > this.limits.maxEntries || this.totalBytes > this.limits.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.totalBytes -= this.entries.get(oldest)!.sizeBytes;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** How many files it keeps at most. */
  get maxEntries(): number {
    return this.limits.maxEntries;
  }

  /** The parsed file it holds for `relativePath` (the same object until it is evicted or read again), or undefined. */
  peek(relativePath: string): JsonFile | undefined {
    return this.entries.get(relativePath)?.file;
  }
}
