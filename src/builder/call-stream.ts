// The one place the calls of a tool are produced: its argument sets, lazily, in enumeration order
// (the first parameter varies slowest). Everything that counts, probes or runs calls reads them
// here, so a filter (a shard of the calls, say) applies to all of them at once.
import type { ToolPlan } from './plan-tools.js';

/** Decides whether a call belongs to this build; every call does when none is given. */
export type CallFilter = (toolName: string, args: Record<string, unknown>) => boolean;

export function* streamToolCalls(plan: ToolPlan, filter?: CallFilter): Generator<Record<string, unknown>> {
  if (!plan.enumeration.precomputable) return;
  for (const args of plan.enumeration.argumentSets()) {
    if (!filter || filter(plan.name, args)) yield args;
  }
}
