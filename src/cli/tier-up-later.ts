// Lets V8 optimize fewer of a build's functions, the opposite of what tier-up-sooner.ts does for a
// server. A build is a short process that runs a great many functions a few thousand times each,
// once: on an engine without the Maglev tier (Node 20's V8 11.3), every function that runs through
// its interrupt budget (bytecode executed) three times is compiled by TurboFan on V8's background
// threads, and in a one-document edit of a large content project most of that compiling was for
// code that ran a few more milliseconds at most before the process ended (seen with
// --no-concurrent-recompilation: the compiling moves onto the main thread). A larger budget leaves
// such code in the baseline tier; the loops a build spends its time in run long enough to reach
// TurboFan anyway. An engine this file does not know is left alone (V8 prints an error for a flag
// it lacks).
import v8 from 'node:v8';

/** The budget in bytecode bytes for a build (V8 11.3's default is 67,584). */
export const BUILD_INTERRUPT_BUDGET = 1_000_000;
/** V8 11.3's own budget, which a build that turns out not to be an edit goes back to. */
export const USUAL_INTERRUPT_BUDGET = 67_584;

/**
 * The V8 flags that make a build optimize only its long-running code on V8 `v8Version` (as
 * process.versions.v8 spells it), or none on an engine whose tiering flags are not known here.
 */
export function laterTierUpFlags(v8Version: string): string[] {
  return budgetFlags(v8Version, BUILD_INTERRUPT_BUDGET);
}

/** The V8 flags that give V8 `v8Version` its own tiering back (none where laterTierUpFlags sets none). */
export function usualTierUpFlags(v8Version: string): string[] {
  return budgetFlags(v8Version, USUAL_INTERRUPT_BUDGET);
}

function budgetFlags(v8Version: string, budget: number): string[] {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  // Maglev's engines (11.7 on: Node 21 and later) tier up by invocation counts, not this budget.
  if (major === 11 && minor < 7) return [`--interrupt-budget=${budget}`];
  return [];
}

/** Documents reused per document parsed from which a build is an edit (tierUpLater pays there). */
const REUSED_PER_PARSED = 10;

/**
 * Whether discovery's counts make the build an edit of a few documents: the rest of it then runs
 * each of its functions over untouched documents, where a first build parses every one of them in
 * loops that TurboFan's code pays for.
 */
export function isEditOfFew(documents: { parsed: number; reused: number }): boolean {
  return documents.reused > 0 && documents.parsed * REUSED_PER_PARSED <= documents.reused;
}

/**
 * Cached calls from which a plan makes a build a calls build even when none runs: replaying them
 * (and packing them) runs loops long enough to pay for TurboFan's code, as a build before the
 * early later tier-up had them run.
 */
export const MANY_CACHED_CALLS = 1_000;

/**
 * The tiering a build's event calls for: `later` once discovery counted an edit of a few documents;
 * `usual` once it counted more, or once the plan has scripts to run or MANY_CACHED_CALLS (a calls
 * build, whose loops pay for TurboFan's code); undefined: as it is. A build of a project built before starts `later`
 * (buildOrReplay), so its start, its up-to-date walk and its discovery, which run once each,
 * are not compiled by TurboFan for the few milliseconds left of them.
 */
export function tieringAfter(
  event:
    | { type: 'plan'; totalRuns: number; cachedRuns: number }
    | { type: 'documents'; parsed: number; reused: number },
): 'later' | 'usual' | undefined {
  if (event.type === 'documents') return isEditOfFew(event) ? 'later' : 'usual';
  return event.totalRuns > 0 || event.cachedRuns >= MANY_CACHED_CALLS ? 'usual' : undefined;
}

/** Whether tierUpLater's flags are in force (tierUpAsUsual changes nothing else). */
let later = false;

/**
 * Sets them for the rest of the process. Call it after keepYoungGenerationSmall (young-generation.ts),
 * which writes a code cache waiting to be written first: V8 refuses one made under other flags.
 */
export function tierUpLater(): void {
  for (const flag of laterTierUpFlags(process.versions.v8)) v8.setFlagsFromString(flag);
  later = true;
}

/** Gives V8 its own tiering back after tierUpLater; nothing when that did not run. */
export function tierUpAsUsual(): void {
  if (!later) return;
  for (const flag of usualTierUpFlags(process.versions.v8)) v8.setFlagsFromString(flag);
  later = false;
}
