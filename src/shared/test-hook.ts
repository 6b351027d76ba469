// Test hooks: a few fixed thresholds that a test would otherwise pass only with hundreds of script
// runs or files, or only on a quiet machine. Each is read from its own STATICMCP_TEST_* variable
// when a build or server starts, never at import (a test process imports the builder once for many
// files), so a test sets it around the builds or servers that need it. Unset, empty or not a whole
// number above 0: the product's value. CONTRIBUTING ("Test hooks") lists them.

/** The threshold `variable` sets, else `fallback`. */
export function readTestHook(variable: string, fallback: number): number {
  const given = process.env[variable];
  if (given === undefined || given === '') return fallback;
  const value = Number(given);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}
