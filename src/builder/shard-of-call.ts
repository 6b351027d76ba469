// Which shard of `build --shard I/N` runs a call. The shard is a function of the call's key (the
// file path `callFilePath` gives it) and N alone, so every machine agrees without talking, adding a
// tool or a value moves no other call, and argument sets that encode to one file (a collision the
// build resolves as "the first keeps the file") always land in the same shard, where they are
// resolved exactly as a one-machine build resolves them. Jump consistent hashing (Lamping and
// Veach, 2014) maps a hash of the key to a shard: going from N to N+1 shards moves only 1/(N+1) of the calls,
// so the per-shard build caches of a CI matrix stay mostly warm when N changes.
import { StaticMcpError } from '../core/staticmcp-error.js';
import { callFilePath } from '../core/tree/call-key.js';
import type { CallFilter } from './call-stream.js';
import type { ToolPlan } from './plan-tools.js';

export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

/** More shards than any CI matrix runs (GitHub's allows 256 jobs); a typo like 3/30000 is refused. */
export const MAX_SHARDS = 1000;

/** `I/N` → a shard, or a StaticMcpError saying what a valid one looks like. */
export function parseShardSpec(text: string): ShardSpec {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new StaticMcpError(
      'SHARD_INVALID',
      `--shard ${text} is not a shard: it takes I/N, shard I (1 to N) of N (1 to ${MAX_SHARDS})`,
      'Pass for example --shard 1/3, --shard 2/3 and --shard 3/3 on three machines, then staticmcp merge the three --out folders.',
    );
  }
  return { index, count };
}

/**
 * Jump consistent hash: a key's random stream → a bucket in [0, buckets). The published algorithm
 * draws from a 64-bit LCG; any stream fixed by the key keeps its guarantees, and a 32-bit one
 * (mulberry32, Math.imul) costs a fraction of BigInt arithmetic per call.
 */
function jumpConsistentHash(seed: number, buckets: number): number {
  let state = seed >>> 0;
  const nextUniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    // (0, 1]: the division below must never be by zero.
    return (((mixed ^ (mixed >>> 14)) >>> 0) + 1) / 2 ** 32;
  };
  let bucket = -1;
  let next = 0;
  while (next < buckets) {
    bucket = next;
    next = Math.floor((bucket + 1) / nextUniform());
  }
  return bucket;
}

/** FNV-1a over the key's UTF-16 code units: cheap (no crypto object per call), mixed further above. */
function hashKey(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/** The 1-based shard of `count` that owns the call file at `callKey`. */
export function shardOfCallKey(callKey: string, count: number): number {
  if (count === 1) return 1;
  return jumpConsistentHash(hashKey(callKey), count) + 1;
}

/**
 * The 1-based shard of `count` whose part holds the document file at `filePath` (a resource, site
 * page, template instance or skill file, by its encoded tree path): split as calls are, so adding a
 * document moves no other one.
 */
export function shardOfDocumentFile(filePath: string, count: number): number {
  return shardOfCallKey(filePath, count);
}

/**
 * The call filter (call-stream.ts) that keeps this shard's calls. The plans themselves (and so the
 * manifest, completions and every shared file) stay whole: only what is run is narrowed.
 */
export function shardCallFilter(plans: readonly ToolPlan[], shard: ShardSpec): CallFilter {
  const orders = new Map(plans.map((plan) => [plan.name, Object.keys(plan.definition.inputSchema.properties ?? {})]));
  return (toolName, args) =>
    shardOfCallKey(callFilePath(toolName, orders.get(toolName) ?? [], args), shard.count) === shard.index;
}
