// Lets V8 optimize a server's hot functions after a few hundred requests instead of thousands, on
// an engine without the Maglev tier (Node 20's V8 11.3). There a function leaves the baseline
// tier for TurboFan only once it has run through its interrupt budget (bytecode executed) three
// times, and a request's path is many small functions that each run a little: a precomputed
// stdio call's path reached optimized code only after 1,000 to 3,000 calls, so a client's first
// thousands of calls cost up to twice what later ones do (bench/bridge-call-cpu.mjs). Newer
// engines have Maglev, which optimizes after a few hundred calls already; they are left alone,
// and so is their compile cache, which V8 stamps with the flags in force.
import { CACHE_WRITE_DELAY_MS, WRITE_CODE_CACHE_NOW } from './code-cache.js';

/** The budget in bytecode bytes (V8 11.3's default is 67,584): small enough for the hot path, not for code run once. */
export const SERVER_INTERRUPT_BUDGET = 2048;
/**
 * After the start: past the first answers (a client's first lines are answered before Node's
 * streams load), when loading node:v8 takes a millisecond or two instead of several.
 */
const TIER_UP_AFTER_MS = 50;

/** Whether V8 has the Maglev tier (11.7 and later, on by default from Node 21). */
export function hasMaglevTier(v8Version: string): boolean {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  return major > 11 || (major === 11 && minor >= 7);
}

/** Plans the smaller budget for a server process (`serve`), a moment from now; nothing on an engine with Maglev. */
export function planSoonerTierUp(): void {
  if (hasMaglevTier(process.versions.v8)) return;
  setTimeout(tierUpWhenCacheWritten, TIER_UP_AFTER_MS).unref();
}

function tierUpWhenCacheWritten(): void {
  // V8 refuses a code cache made under other flags than its reader's: the bundle's cache, when this
  // run writes one, is written first, when it was due (with all the start compiled), not now.
  if ((globalThis as Record<symbol, unknown>)[WRITE_CODE_CACHE_NOW] !== undefined) {
    setTimeout(tierUpWhenCacheWritten, CACHE_WRITE_DELAY_MS).unref();
    return;
  }
  // Found when needed (Node 20.16+): loading node:v8 takes milliseconds a start never spends, and a
  // bundle run by code-cache.ts has no import() of its own.
  const v8 = process.getBuiltinModule('node:v8') as typeof import('node:v8');
  v8.setFlagsFromString(`--interrupt-budget=${SERVER_INTERRUPT_BUDGET}`);
}
