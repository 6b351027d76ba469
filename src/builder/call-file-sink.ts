// Call outcomes → call files, as the runs finish: the sink turns each outcome into its file in the
// tree (collisions between keys detected here: the first argument set keeps the file, the others
// are reported and served live) and into counters of its tool's report.
import { callFilePath } from '../core/tree/call-key.js';
import { callFileText } from '../core/tree/call-file-text.js';
import { ARGUMENTS_META_KEY } from '../core/tree/manifest.js';
import type { ToolReport } from './build-report.js';
import { OmittedDefaultKeys } from './omitted-default-keys.js';
import type { ToolPlan } from './plan-tools.js';
import type { CallOutcome } from './run-one-call.js';
import {
  addFailure,
  addLogLines,
  addWarnings,
  closeToolReport,
  LISTED_WARNINGS,
  openToolReport,
} from './tool-report.js';
import type { TreeOutput } from './tree-output.js';

function positionOf(plan: ToolPlan, args: Record<string, unknown>): number {
  return plan.enumeration.precomputable ? plan.enumeration.positionOf(args) : -1;
}

/** Where each call's outcome goes: a call file in the tree, and counters in its tool's report. */
export class CallFileSink {
  private readonly reports = new Map<ToolPlan, ToolReport>();
  /** Collision warnings by the losing set's position, listed in enumeration order at the end. */
  private readonly collisions = new Map<ToolPlan, { position: number; text: string }[]>();
  /** Copies at the keys other bridges compute when a client leaves defaulted arguments out. */
  private readonly omittedDefaults = new OmittedDefaultKeys();

  constructor(
    private readonly output: TreeOutput,
    plans: readonly ToolPlan[],
  ) {
    for (const plan of plans) this.reports.set(plan, openToolReport(plan));
  }

  readonly add = async (outcome: CallOutcome): Promise<void> => {
    const { plan } = outcome;
    const report = this.reports.get(plan)!;
    addLogLines(report, outcome.logLines);
    addWarnings(report, outcome.warnings);
    if (outcome.fromCache) report.cached += 1;
    if (outcome.durationMs !== undefined) report.scriptMs += outcome.durationMs;
    if (outcome.failure || !outcome.result) {
      addFailure(report, outcome.failure!);
      return;
    }
    const order = Object.keys(plan.definition.inputSchema.properties ?? {});
    const filePath = callFilePath(plan.name, order, outcome.arguments);
    if (this.output.writer.has(filePath)) {
      // Outcomes arrive in completion order; the set that comes first in the enumeration keeps the
      // file whatever the order, so the tree is the same on every run.
      await this.output.writer.flush();
      const owner = this.ownerOf(filePath);
      const ownerArguments = owner.arguments;
      const position = positionOf(plan, outcome.arguments);
      const ownerPosition = positionOf(plan, ownerArguments);
      const [first, other] =
        position < ownerPosition ? [outcome.arguments, ownerArguments] : [ownerArguments, outcome.arguments];
      this.noteCollision(plan, Math.max(position, ownerPosition), first, other, filePath);
      if (position > ownerPosition) return;
      if (owner.isError) report.errorResults -= 1;
      report.precomputed -= 1;
    }
    // A rich result's own _meta is kept before the recorded arguments (the bridge strips only those).
    await this.output.write(filePath, callFileText(outcome.result, outcome.arguments));
    this.omittedDefaults.add(plan, outcome.arguments, filePath);
    report.precomputed += 1;
    if (outcome.result.isError) report.errorResults += 1;
  };

  /** The arguments the file at `filePath` records (read back: collisions are rare, paths are all we hold). */
  private ownerOf(filePath: string): { arguments: Record<string, unknown>; isError: boolean } {
    const written = JSON.parse(this.output.writer.read(filePath).toString('utf8')) as {
      isError?: boolean;
      _meta?: Record<string, unknown>;
    };
    return {
      arguments: written._meta?.[ARGUMENTS_META_KEY] as Record<string, unknown>,
      isError: written.isError === true,
    };
  }

  private noteCollision(
    plan: ToolPlan,
    position: number,
    first: Record<string, unknown>,
    other: Record<string, unknown>,
    filePath: string,
  ): void {
    const list = this.collisions.get(plan) ?? [];
    this.collisions.set(plan, list);
    if (list.length >= LISTED_WARNINGS) return;
    list.push({
      position,
      text:
        `arguments ${JSON.stringify(other)} and ${JSON.stringify(first)} both encode to ${filePath}; the first keeps the file, ` +
        `the other is ${plan.live ? 'served live' : 'not served (live calls are off for this tool)'}`,
    });
  }

  /** Writes the left-out-defaults copies of the call files, once every call is in; returns [copy, original] pairs. */
  async writeCopies(): Promise<[string, string][]> {
    return await this.omittedDefaults.writeInto(this.output);
  }

  /** The left-out-defaults copies claimed so far, unwritten (a shard part's, for the merge). */
  claimedCopies(): [string, string | null][] {
    return this.omittedDefaults.claimed();
  }

  /** Every tool's report, in plan order, with what did not fit in its lists counted. */
  toolReports(): ToolReport[] {
    return [...this.reports].map(([plan, report]) => {
      const collisions = (this.collisions.get(plan) ?? []).sort((left, right) => left.position - right.position);
      addWarnings(
        report,
        collisions.map((collision) => collision.text),
      );
      return closeToolReport(report, plan);
    });
  }
}
