// Lets V8 optimize a server's hot functions after a few hundred requests instead of thousands. A
// request's path is many small functions that each run a little, and V8 optimizes a function only
// once it has run a while. On an engine without the Maglev tier (Node 20's V8 11.3) a function
// leaves the baseline tier for TurboFan only once it has run through its interrupt budget (bytecode
// executed) three times: a precomputed stdio call's path reached optimized code only after 1,000 to
// 3,000 calls, so a client's first thousands of calls cost up to twice what later ones do
// (bench/bridge-call-cpu.mjs). Engines with Maglev (V8 12 and 13: Node 22 and 24) compile with
// Maglev after 400 invocations and with TurboFan after 3,000: the same path then spends its first
// few thousand calls in Maglev's code, slower than TurboFan's; both counts are lowered there.
// An engine this file does not know is left alone (V8 prints an error for a flag it lacks).
import { CACHE_WRITE_DELAY_MS, WRITE_CODE_CACHE_NOW } from './code-cache.js';

/** The budget in bytecode bytes (V8 11.3's default is 67,584): small enough for the hot path, not for code run once. */
export const SERVER_INTERRUPT_BUDGET = 2048;
/** Invocations before Maglev (V8 12 and 13's default: 400) and before TurboFan (3,000), for a server. */
export const SERVER_MAGLEV_INVOCATIONS = 50;
export const SERVER_TURBOFAN_INVOCATIONS = 150;
/**
 * After the start: past the first answers (a client's first lines are answered before Node's
 * streams load), when loading node:v8 takes a millisecond or two instead of several.
 */
const TIER_UP_AFTER_MS = 50;

/**
 * The V8 flags that make a server's hot path optimized sooner on V8 `v8Version` (as
 * process.versions.v8 spells it), or none on an engine whose tiering flags are not known here.
 */
export function soonerTierUpFlags(v8Version: string): string[] {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  // Maglev's engines before 12 (Node 21) and after 13 are not known: their flags may differ.
  if (major === 11 && minor < 7) return [`--interrupt-budget=${SERVER_INTERRUPT_BUDGET}`];
  if (major === 12 || major === 13)
    return [
      `--invocation-count-for-maglev=${SERVER_MAGLEV_INVOCATIONS}`,
      `--invocation-count-for-turbofan=${SERVER_TURBOFAN_INVOCATIONS}`,
    ];
  return [];
}

/** Plans the sooner tier-up for a server process (`serve`), a moment from now; nothing on an engine not known here. */
export function planSoonerTierUp(): void {
  if (soonerTierUpFlags(process.versions.v8).length === 0) return;
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
  for (const flag of soonerTierUpFlags(process.versions.v8)) v8.setFlagsFromString(flag);
}
