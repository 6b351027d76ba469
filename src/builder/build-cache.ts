// The incremental-build cache under `<project>/.staticmcp/cache/`: `--help` output by script
// content and validated configuration texts in one small JSON file, and call results in one
// append-only bucket per tool version (run-bucket.ts), so a build reads only the results it looks
// up and writes only the new ones. Results of earlier builds are kept (switching a value list back
// and forth reruns nothing) until the cache passes `limits.maxCacheBytes`; then the buckets used
// longest ago go first, never one of this build's tools. A corrupt cache is ignored, never trusted.
// A build killed at any moment leaves every result it had whole (`--force` included: run-bucket.ts).
import { promises as fs, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '../core/results/tool-result.js';
import type { ValidationMemory } from '../project/config.js';
import { hashParts } from './cache-keys.js';
import { isProcessAlive } from '../shared/process-alive.js';
import { REWRITE_MARK, RunBucket } from './run-bucket.js';
import { removeDeadTempFiles } from './dead-temp-files.js';

export { hashParts };

const CACHE_VERSION = 2;
export const CACHE_FOLDER = '.staticmcp';
const CACHE_SUBFOLDER = 'cache';
const META_FILE = 'meta.json';
const RUNS_FOLDER = 'runs';
const BUCKET_EXTENSION = '.log';
/** The single-file cache of earlier versions: removed once this one is written. */
const LEGACY_FILE = 'build-cache.json';
/** Help outputs kept besides the ones this build used (scripts edited back and forth). */
const KEPT_UNUSED_HELP = 1000;

export interface CachedHelp {
  stdout: string;
  stderr: string;
}

export interface CachedRun {
  result: ToolResult;
  logLines: { level: string; message: string }[];
  warnings: string[];
}

interface MetaFile {
  version: number;
  help: Record<string, CachedHelp>;
  /** Hashes of configuration texts that passed validation. */
  valid: Record<string, true>;
}

function readMeta(file: string): MetaFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as MetaFile;
    if (parsed?.version === CACHE_VERSION && parsed.help && parsed.valid) return parsed;
  } catch {
    // Missing or corrupt: start empty.
  }
  return undefined;
}

/** Removes the rewrites of bucket logs (run-bucket.ts) that builds killed mid-rewrite left behind. */
async function removeDeadRewrites(runsFolder: string, names: readonly string[]): Promise<void> {
  const marker = `${BUCKET_EXTENSION}${REWRITE_MARK}`;
  for (const name of names) {
    const at = name.indexOf(marker);
    if (at < 0) continue;
    const pid = name.slice(at + marker.length);
    if (/^\d+$/.test(pid) && !isProcessAlive(Number(pid))) await fs.rm(path.join(runsFolder, name), { force: true });
  }
}

export class BuildCache implements ValidationMemory {
  private readonly buckets = new Map<string, RunBucket<CachedRun>>();
  private readonly usedHelp = new Set<string>();
  private changed = false;

  private constructor(
    private readonly folder: string,
    private readonly meta: MetaFile,
    private readonly ignorePrevious: boolean,
  ) {}

  static async open(projectRoot: string, ignorePrevious: boolean): Promise<BuildCache> {
    const folder = path.join(projectRoot, CACHE_FOLDER, CACHE_SUBFOLDER);
    await removeDeadTempFiles([path.dirname(folder), folder]);
    const previous = ignorePrevious ? undefined : readMeta(path.join(folder, META_FILE));
    return new BuildCache(folder, previous ?? { version: CACHE_VERSION, help: {}, valid: {} }, ignorePrevious);
  }

  isKnownValid(text: string): boolean {
    return this.meta.valid[hashParts(text)] === true;
  }

  rememberValid(text: string): void {
    this.meta.valid = { [hashParts(text)]: true };
    this.changed = true;
  }

  getHelp(key: string): CachedHelp | undefined {
    const hit = this.meta.help[key];
    if (hit) this.usedHelp.add(key);
    return hit;
  }

  setHelp(key: string, help: CachedHelp): void {
    delete this.meta.help[key];
    this.meta.help[key] = help;
    this.usedHelp.add(key);
    this.changed = true;
  }

  /** The results of one tool version; `seed` hashes everything that reaches a run but the arguments. */
  bucket(seed: string): RunBucket<CachedRun> {
    let bucket = this.buckets.get(seed);
    if (!bucket) {
      bucket = new RunBucket(path.join(this.folder, RUNS_FOLDER, `${seed}${BUCKET_EXTENSION}`), this.ignorePrevious);
      this.buckets.set(seed, bucket);
    }
    return bucket;
  }

  /**
   * Drops the buckets' indexes once every call is answered (~6.4 bytes a cached call, held to the
   * end of the build beside the pack step's own per-call data); a bucket used again rescans its log.
   */
  releaseIndexes(): void {
    for (const bucket of this.buckets.values()) bucket.release();
  }

  /** Closes the buckets, writes the small file if it changed, and evicts down to `maxCacheBytes`. */
  async save(maxCacheBytes: number): Promise<void> {
    const now = new Date();
    for (const bucket of this.buckets.values()) {
      bucket.release();
      await bucket.dropSupersededLines();
      // The bucket's mtime is its last use: eviction takes the oldest first.
      if (bucket.used) await fs.utimes(bucket.file, now, now).catch(() => {});
    }
    const unusedHelp = Object.keys(this.meta.help).filter((key) => !this.usedHelp.has(key));
    for (const key of unusedHelp.slice(0, Math.max(0, unusedHelp.length - KEPT_UNUSED_HELP))) {
      delete this.meta.help[key];
      this.changed = true;
    }
    if (this.changed) {
      await fs.mkdir(this.folder, { recursive: true });
      const file = path.join(this.folder, META_FILE);
      const temp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(temp, JSON.stringify(this.meta));
      await fs.rename(temp, file);
      await fs.rm(path.join(this.folder, '..', LEGACY_FILE), { force: true });
    }
    await this.evict(maxCacheBytes);
  }

  private async evict(maxCacheBytes: number): Promise<void> {
    const runsFolder = path.join(this.folder, RUNS_FOLDER);
    let names: string[];
    try {
      names = readdirSync(runsFolder);
    } catch {
      return;
    }
    await removeDeadRewrites(runsFolder, names);
    names = names.filter((name) => name.endsWith(BUCKET_EXTENSION));
    // Every bucket of this build's tools is spared, used or not: an interrupted build may not have
    // reached a tool, whose results are no less current for it.
    const current = new Set([...this.buckets.values()].map((bucket) => bucket.file));
    let total = 0;
    const candidates: { file: string; bytes: number; usedAtMs: number }[] = [];
    for (const name of names) {
      const file = path.join(runsFolder, name);
      try {
        const stats = statSync(file);
        total += stats.size;
        if (!current.has(file)) candidates.push({ file, bytes: stats.size, usedAtMs: stats.mtimeMs });
      } catch {
        // Removed meanwhile (another build evicting): nothing to count.
      }
    }
    candidates.sort((left, right) => left.usedAtMs - right.usedAtMs);
    for (const candidate of candidates) {
      if (total <= maxCacheBytes) break;
      await fs.rm(candidate.file, { force: true });
      total -= candidate.bytes;
    }
  }
}
