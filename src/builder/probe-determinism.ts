// Nondeterminism at build time: a script that prints the time, a counter or the state of the
// machine would answer the build's stale output forever once precomputed. So one call of every
// tool that has something to run is run twice (one extra run per tool, not per call); when the two
// outputs differ, the tool is served live instead, with a warning that says why and how to
// precompute it anyway (`"precompute": true`).
import type { ScriptRun } from '../script/run/script-run.js';
import type { CallOutcome } from './run-one-call.js';
import type { ToolPlan } from './plan-tools.js';

/** Makes the sample call twice; returns the first outcome and whether the second printed something else. */
export async function probeDeterminism(
  runSample: () => Promise<{ outcome: CallOutcome; run: ScriptRun }>,
): Promise<{ outcome: CallOutcome; differs: boolean }> {
  const first = await runSample();
  // A call that failed (timeout, cap, signal) says nothing about determinism.
  if (first.run.failed) return { outcome: first.outcome, differs: false };
  const second = await runSample();
  if (second.run.failed) return { outcome: first.outcome, differs: false };
  const differs = second.run.exitCode !== first.run.exitCode || !second.run.stdout.equals(first.run.stdout);
  return { outcome: first.outcome, differs };
}

/** Turns a tool whose output changed between two runs into a live one, and says so. */
export function serveLiveInstead(plan: ToolPlan, args: Record<string, unknown>): void {
  const served = plan.live ? 'served live' : 'not served (live calls are off for this tool)';
  plan.enumeration = {
    precomputable: false,
    reason: 'two runs of the same call printed different output (the time, a counter, the state of the machine?)',
    enumerated: plan.enumeration.enumerated,
  };
  plan.warnings.push(
    `two runs of ${JSON.stringify(args)} printed different output, so nothing is precomputed and calls are ${served}; ` +
      `if the difference does not matter, set "precompute": true in its metadata or under tools.${plan.name} in staticmcp.json to precompute it anyway`,
  );
}
