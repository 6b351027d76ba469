// Keeps V8's heap near what the build holds, for the commands whose memory must not grow with the
// number of calls (build, merge). Every call leaves a little short-lived garbage that happens to be
// alive at a scavenge, and V8 doubles the young generation each time the bytes surviving since the
// last growth pass its size: in any long enough build it reached its 2 x 16 MiB maximum. The same
// garbage, promoted, then filled the old generation up to V8's next collection limit, set at up
// to 4x what was alive after the last full collection. A growing factor of 1.2
// (HEAP_GROWING_PERCENT) keeps the old generation near what is alive; full collections of a small
// heap are cheap (bench/build-memory.mjs compares). Below 40 MB alive V8's own 8 MB floor sets the
// limit at 1.2 as at 1.5, so only a large content build's search step, which holds more, collects
// sooner than it did at 1.5.
import v8 from 'node:v8';
import vm from 'node:vm';
import { writeHumanLines } from '../shared/terminal-text.js';
import { WRITE_CODE_CACHE_NOW } from './code-cache.js';

/** How far V8 lets the old generation grow past what was alive at the last full collection, in %. */
export const DEFAULT_HEAP_GROWING_PERCENT = 20;
/** Changes the percentage above (0: V8's own factor, up to 300%). */
export const HEAP_GROWING_PERCENT_VARIABLE = 'STATICMCP_HEAP_GROWING_PERCENT';

/** The percentage in force: the environment's (a whole number ≥ 0), else the default. */
export function heapGrowingPercent(environment: Record<string, string | undefined>): number {
  const text = environment[HEAP_GROWING_PERCENT_VARIABLE]?.trim();
  if (text === undefined || text === '') return DEFAULT_HEAP_GROWING_PERCENT;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    writeHumanLines(process.stderr, [
      `staticmcp: ${HEAP_GROWING_PERCENT_VARIABLE}=${text} is not a whole number ≥ 0; using ${DEFAULT_HEAP_GROWING_PERCENT}`,
    ]);
    return DEFAULT_HEAP_GROWING_PERCENT;
  }
  return value;
}

/** Returns the heap growing percentage in force, for keepOldGenerationTight. */
export function keepYoungGenerationSmall(): number {
  // Both read by V8 each time it sizes a generation, so they take effect at run time (unlike
  // --max-semi-space-size, fixed when the heap is set up). Checked on Node 20; an engine without
  // a flag prints "unrecognized flag" on stderr and the build goes on. A code cache waiting to be
  // written is written first: one made under the changed flags would be refused by every later run.
  (globalThis as Record<symbol, (() => void) | undefined>)[WRITE_CODE_CACHE_NOW]?.();
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  const percent = heapGrowingPercent(process.env);
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}

/** From how many calls a build trades a little CPU for a flat peak (keepOldGenerationTight). */
export const MANY_CALLS = 50_000;

/**
 * V8 also lets the old generation grow at least 8 MB past what was alive before its next full
 * collection (2 MB when optimizing for size, which V8 reads at each collection): with ~10 MB
 * alive, that floor, not the percentage, sets the limit, and a long build fills it with promoted
 * garbage that a short one never reaches. Optimizing for size also makes V8's compiler do less,
 * which costs a content build's edit loop several percent of its CPU: so only a build of
 * MANY_CALLS or more (told when its calls are planned) and a merge ask for it. Takes the percentage
 * keepYoungGenerationSmall returned, so a bad variable is reported once, not once per call here.
 */
export function keepOldGenerationTight(heapGrowingPercentInForce: number): void {
  if (heapGrowingPercentInForce <= 0) return;
  v8.setFlagsFromString('--optimize-for-size');
  collectWhenHeapGrows(heapGrowingPercentInForce);
}

/**
 * How far the old generation may grow past what the last full collection left, before the build
 * collects: at least this, or the growing percentage of what was alive when that is more, so a build
 * or merge that holds much is not collected over and over.
 */
const COLLECT_PAST_LIVE_BYTES = 2.5 * 1024 * 1024;
/** How often the heap's size is looked at, while the build awaits. */
const HEAP_CHECK_MS = 20;

/**
 * Even optimizing for size, Node 20's V8 let the old generation grow ~8 MB past what was alive
 * before it marked (its trace: `--trace-incremental-marking`), whatever the growing percentage:
 * with ~8 MB alive, half of the heap's pages at a long build's peak were promoted garbage. So the
 * build collects itself once the old generation is COLLECT_PAST_LIVE_BYTES past what was alive,
 * checked from a timer, which runs between the awaits of the call loop. The young generation is
 * left out: it keeps its size whatever it holds (keepYoungGenerationSmall) and empties at each
 * scavenge, so counting its fill collected more often than the peak needs. `gc` comes from
 * a context made after exposing it: the flag is read when a context is made, not later.
 */
let collectingWhenHeapGrows = false;
function collectWhenHeapGrows(heapGrowingPercent: number): void {
  if (collectingWhenHeapGrows) return;
  collectingWhenHeapGrows = true;
  v8.setFlagsFromString('--expose-gc');
  const collect: unknown = vm.runInNewContext('typeof gc === "function" ? gc : undefined');
  if (typeof collect !== 'function') return;
  const limitOf = (liveBytes: number) =>
    liveBytes + Math.max(COLLECT_PAST_LIVE_BYTES, (liveBytes * heapGrowingPercent) / 100);
  let limitBytes = limitOf(readOldGenerationBytes());
  setInterval(() => {
    if (readOldGenerationBytes() <= limitBytes) return;
    collect();
    limitBytes = limitOf(readOldGenerationBytes());
  }, HEAP_CHECK_MS).unref();
}

/** The bytes the heap's objects take, the young generation's (new_space, new_large_object_space) left out. */
function readOldGenerationBytes(): number {
  let bytes = 0;
  for (const space of v8.getHeapSpaceStatistics())
    if (!space.space_name.startsWith('new_')) bytes += space.space_used_size;
  return bytes;
}
