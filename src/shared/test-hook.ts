// Test hooks: a few of the build's fixed thresholds that a test would otherwise pass only with
// hundreds of script runs or files. Each is read from its own STATICMCP_TEST_* variable when a
// build starts, never at import (a test process imports the builder once for many files), so a
// test sets it around the builds that need it. Unset, empty or not a whole number above 0: the
// product's value. CONTRIBUTING ("Test hooks") lists them.

/** The threshold `variable` sets, else `fallback`. */
export function readTestHook(variable: string, fallback: number): number {
  const given = process.env[variable];
  if (given === undefined || given === '') return fallback;
  const value = Number(given);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}
