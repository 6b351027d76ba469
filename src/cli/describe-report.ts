// The body of the summary `build` and `merge` print on stderr: a line per tool with its first
// warnings and failures, then the build's warnings and failures. Shared here because commands
// never import each other.
import type { BuildProblem, BuildReport, ToolReport } from '../builder/build-report.js';

/** Each line of `text` as its own line of the summary (the printer escapes each line whole). */
function indent(text: string, prefix: string): string[] {
  return text.split('\n').map((line) => `${prefix}${line}`);
}

function describeDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** One tool's line of the summary (and its first warnings and failures). */
function describeTool(tool: ToolReport): string {
  const parts = [`${tool.precomputed} precomputed`];
  if (tool.cached > 0) parts.push(`${tool.cached} from cache`);
  // Which tool a long build spent its time on (a report from an older version has no figure).
  if (tool.scriptMs > 0) parts.push(`${describeDuration(tool.scriptMs)} of script time`);
  if (tool.errorResults > 0) parts.push(`${tool.errorResults} answered with isError`);
  if (tool.liveReason) parts.push(`live-only: ${tool.liveReason}`);
  else if (tool.live) parts.push('misses run live');
  if (tool.failedRuns > 0) parts.push(`${tool.failedRuns} FAILED`);
  const lines = [`  ${tool.failedRuns > 0 ? '✗' : '✓'} ${tool.name} (${tool.script}): ${parts.join(', ')}`];
  for (const warning of tool.warnings.slice(0, 5)) lines.push(`      warning: ${warning}`);
  if (tool.warnings.length > 5) lines.push(`      … ${tool.warnings.length - 5} more warning(s) (see --json)`);
  for (const failure of tool.failures.slice(0, 3)) {
    lines.push(`      failed ${JSON.stringify(failure.arguments)}: ${failure.message}`);
    if (failure.stderrHead) lines.push(...indent(failure.stderrHead, '        | '));
  }
  if (tool.failedRuns > 3)
    lines.push(`      … ${tool.failedRuns - 3} more failure(s) (see --json for the first ${tool.failures.length})`);
  return lines.join('\n');
}

/** A problem after its path, or alone when it is about the whole tree (path `.`). */
function describeProblem(problem: BuildProblem, separator: string): string {
  return problem.path === '.' ? problem.message : `${problem.path}${separator}${problem.message}`;
}

/** The body of a build's (or merge's) summary: a line per tool, `afterTools`, then warnings and failures. */
export function describeReportBody(
  report: Pick<BuildReport, 'tools' | 'warnings' | 'failures'>,
  afterTools: readonly string[] = [],
): string[] {
  return [
    ...report.tools.map(describeTool),
    ...afterTools,
    ...report.warnings.map((warning) => `  warning: ${describeProblem(warning, ' ')}`),
    ...report.failures.map((failure) => `  ✗ ${describeProblem(failure, ': ')}`),
  ];
}

export function countFailedRuns(tools: readonly ToolReport[]): number {
  return tools.reduce((sum, tool) => sum + tool.failedRuns, 0);
}
