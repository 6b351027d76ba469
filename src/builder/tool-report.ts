// A tool's part of the build report, kept as counters plus short lists: a build of a million calls
// that all fail or all log reports the first few of each and how many there were, in bounded memory.
import type { RunFailure, ToolReport } from './build-report.js';
import type { ToolPlan } from './plan-tools.js';

export const LISTED_FAILURES = 20;
export const LISTED_WARNINGS = 50;
export const LISTED_LOG_LINES = 100;

/** Counts of what did not fit in the lists, per report, until `closeToolReport` says so. */
const overflow = new WeakMap<ToolReport, { warnings: number; logLines: number }>();

export function openToolReport(plan: ToolPlan): ToolReport {
  const report: ToolReport = {
    name: plan.name,
    script: plan.script.relativePath,
    precomputed: 0,
    errorResults: 0,
    cached: 0,
    scriptMs: 0,
    live: plan.live,
    failedRuns: 0,
    failures: [],
    warnings: [],
    logLines: [],
  };
  overflow.set(report, { warnings: 0, logLines: 0 });
  return report;
}

export function addFailure(report: ToolReport, failure: RunFailure): void {
  report.failedRuns += 1;
  if (report.failures.length < LISTED_FAILURES) report.failures.push(failure);
}

export function addWarnings(report: ToolReport, warnings: readonly string[]): void {
  for (const warning of warnings) {
    if (report.warnings.length < LISTED_WARNINGS) report.warnings.push(warning);
    else overflow.get(report)!.warnings += 1;
  }
}

export function addLogLines(report: ToolReport, lines: ToolReport['logLines']): void {
  for (const line of lines) {
    if (report.logLines.length < LISTED_LOG_LINES) report.logLines.push(line);
    else overflow.get(report)!.logLines += 1;
  }
}

/** Adds one line for what was counted but not listed, and the live reason known by now. */
export function closeToolReport(report: ToolReport, plan: ToolPlan): ToolReport {
  const left = overflow.get(report)!;
  // The plan's own warnings first, read now: the determinism probe may have added one during the build.
  report.warnings.unshift(...plan.warnings);
  if (left.warnings > 0) report.warnings.push(`… and ${left.warnings} more warning(s) like these, not listed`);
  if (left.logLines > 0)
    report.logLines.push({ level: 'info', message: `… and ${left.logLines} more log line(s), not kept` });
  // Set at the end: the determinism probe may have turned the tool live during the build.
  if (!plan.enumeration.precomputable) report.liveReason = plan.enumeration.reason;
  report.scriptMs = Math.round(report.scriptMs);
  overflow.delete(report);
  return report;
}
