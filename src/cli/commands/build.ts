// `staticmcp build [project]`: its options, and the handler that runs the build, shows progress on
// a TTY (plain lines otherwise), prints the per-tool summary on stderr, or the whole report as
// JSON on stdout with --json.
import path from 'node:path';
import { readUpToDateReport } from '../../builder/up-to-date.js';
import { generatorName } from '../../shared/version.js';
import type { BuildOptions } from '../../builder/build-options.js';
import type { BuildEvent, BuildReport } from '../../builder/build-report.js';
import { printError } from '../print-error.js';
import { escapeTerminalText, writeHumanLines } from '../../shared/terminal-text.js';
import { StaticMcpError } from '../../core/staticmcp-error.js';
import { defineCommand } from '../command-spec.js';
import { exitCodeOf, exitCodeOfSignal, type StopSignal } from '../exit-codes.js';
import { BUILD_OPTIONS } from '../build-options.js';
import { countFailedRuns, describeReportBody } from '../describe-report.js';
import { commandLine } from '../invocation.js';
import { keepOldGenerationTight, keepYoungGenerationSmall, MANY_CALLS } from '../young-generation.js';
import { tierUpAsUsual, tierUpLater, tieringAfter } from '../tier-up-later.js';

export const command = defineCommand({
  name: 'build',
  describe: "run the project's scripts and write the StaticMCP tree",
  positional: { name: 'project', describe: 'project folder (holds tools/, resources/, staticmcp.json)', default: '.' },
  options: {
    ...BUILD_OPTIONS,
    force: { type: 'boolean', describe: 'ignore the build cache and run every script again' },
    json: { type: 'boolean', describe: 'print a machine-readable report on stdout' },
    shard: {
      type: 'string',
      describe: 'I/N: run only shard I of N of the calls and write a part to --out for staticmcp merge',
    },
  },
  run: ({ positional, options }) => runBuildCommand({ project: positional ?? '.', ...options }),
});

interface BuildCommandOptions {
  project: string;
  out?: string;
  tools?: string;
  site?: string;
  concurrency?: number;
  'max-call-files'?: number;
  force?: boolean;
  json?: boolean;
  /** `I/N`: build one shard of the calls into a part for `staticmcp merge`. */
  shard?: string;
}

function createProgress(): (event: BuildEvent) => void {
  const isTty = process.stderr.isTTY === true;
  let lastDrawnAt = 0;
  let lastPercent = -1;
  let warnedOfReruns = false;
  return (event) => {
    if (event.type === 'plan') {
      process.stderr.write(
        `staticmcp: ${event.totalRuns} call(s) to run${event.cachedRuns > 0 ? `, ${event.cachedRuns} unchanged from the cache` : ''}\n`,
      );
      return;
    }
    if (event.type === 'documents') return;
    if (event.type === 'recovered') {
      process.stderr.write(`staticmcp: ${escapeTerminalText(event.note)}\n`);
      return;
    }
    if (event.type === 'rerun') {
      if (!warnedOfReruns)
        process.stderr.write(
          `staticmcp: some results in the build cache (.staticmcp/cache) could not be read back; those calls run again and are cached anew\n`,
        );
      warnedOfReruns = true;
      return;
    }
    const percent = Math.floor((event.done / event.totalRuns) * 100);
    if (isTty) {
      const now = Date.now();
      if (event.done !== event.totalRuns && now - lastDrawnAt < 80) return;
      lastDrawnAt = now;
      const width = 30;
      const filled = Math.round((event.done / event.totalRuns) * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${event.done}/${event.totalRuns} ${escapeTerminalText(event.tool).slice(0, 30).padEnd(30)}`,
      );
      if (event.done === event.totalRuns) process.stderr.write('\n');
    } else if (percent >= lastPercent + 25 || event.done === event.totalRuns) {
      lastPercent = percent;
      process.stderr.write(`staticmcp: ${event.done}/${event.totalRuns} calls done\n`);
    }
  };
}

function printSummary(report: BuildReport): void {
  const lines: string[] = [];
  const where = path.relative(process.cwd(), report.outDir) || '.';
  lines.push(
    report.unchanged
      ? `staticmcp: ${where} is already up to date`
      : report.shard
        ? `staticmcp: wrote shard ${report.shard.index} of ${report.shard.count} (${report.files} files) to ${where}; staticmcp merge puts the ${report.shard.count} parts together`
        : `staticmcp: wrote ${report.files} files to ${where}`,
  );
  const noTools =
    report.tools.length === 0 ? ['  (no tools: put executable scripts in tools/, or pass --tools DIR)'] : [];
  lines.push(...describeReportBody(report, [...noTools, `  ${report.resources} resource(s)`]));
  const failedRuns = countFailedRuns(report.tools);
  lines.push(
    report.ok
      ? `staticmcp: build succeeded in ${Math.round(report.durationMs)} ms`
      : `staticmcp: build finished with ${report.failures.length} failed item(s) and ${failedRuns} failed run(s); the tree holds everything else`,
  );
  writeHumanLines(process.stderr, lines);
}

/**
 * The build's decision between replaying the recorded report (nothing ran: every option that changes
 * the tree is as the recorded build had it, never for --force or a part) and running the pipeline.
 * The command prints what this returns; tests call it in-process to see the same reports.
 */
export async function buildOrReplay(buildOptions: BuildOptions, startedAt = performance.now()): Promise<BuildReport> {
  // Before the check, not after: its walk of every project file grew V8's young generation (up to
  // 2 x 16 MiB) in a large project, and a young generation never shrinks back, so every later
  // stage of an edit build carried it.
  const heapGrowingPercentInForce = keepYoungGenerationSmall();
  // A project built before with these options is most often edited a little or not at all.
  const recorded = await readUpToDateReport(buildOptions, generatorName(), tierUpLater);
  if (recorded) {
    // Nothing ran this time: every answer came from what the recorded build left.
    const tools = recorded.tools.map((tool) => ({ ...tool, cached: tool.precomputed, scriptMs: 0 }));
    return {
      ...recorded,
      tools,
      unchanged: true,
      // Nothing was written this time: the index in the tree is the recorded build's.
      ...(recorded.searchIndex ? { searchIndex: 'reused' } : {}),
      // Nor was any document read or parsed: each one's parse is the recorded build's.
      ...(recorded.documents
        ? { documents: { parsed: 0, reused: recorded.documents.parsed + recorded.documents.reused } }
        : {}),
      durationMs: performance.now() - startedAt,
    };
  }
  // The pipeline (and its dependencies) loads only when something may have changed.
  const { buildProject } = await import('../../builder/build-project.js');
  const { onEvent } = buildOptions;
  return buildProject({
    ...buildOptions,
    onEvent: (event) => {
      if (event.type === 'plan' && event.totalRuns + event.cachedRuns >= MANY_CALLS)
        keepOldGenerationTight(heapGrowingPercentInForce);
      const tiering = event.type === 'plan' || event.type === 'documents' ? tieringAfter(event) : undefined;
      if (tiering === 'later') tierUpLater();
      else if (tiering === 'usual') tierUpAsUsual();
      onEvent?.(event);
    },
  });
}

async function runBuildCommand(options: BuildCommandOptions): Promise<number> {
  // Scripts run in their own process groups, so a Ctrl-C on the terminal does not reach them: end
  // them ourselves. A second signal falls through to Node's default and exits at once.
  const interruption = new AbortController();
  let interruptedBy: StopSignal | undefined;
  const onSignal = (signal: StopSignal): void => {
    interruptedBy = signal;
    process.stderr.write(`\nstaticmcp: ${signal} received, ending the running scripts…\n`);
    interruption.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const startedAt = performance.now();
    const shard =
      options.shard === undefined
        ? undefined
        : (await import('../../builder/shard-of-call.js')).parseShardSpec(options.shard);
    if (shard && options.out === undefined) {
      throw new StaticMcpError(
        'SHARD_NEEDS_OUT',
        "--shard needs --out: a shard writes a part, which must never replace the project's tree",
        `Give the part a folder of its own: ${commandLine(['build', options.project, '--shard', options.shard!, '--out', `part-${shard.index}`])}`,
      );
    }
    const buildOptions: BuildOptions = {
      projectRoot: options.project,
      outDir: options.out,
      toolsDir: options.tools,
      ...(options.site !== undefined ? { siteDir: options.site } : {}),
      concurrency: options.concurrency,
      maxCallFiles: options['max-call-files'],
      force: options.force,
      shard,
    };
    const report = await buildOrReplay(
      { ...buildOptions, onEvent: options.json ? undefined : createProgress(), signal: interruption.signal },
      startedAt,
    );
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printSummary(report);
    return report.ok ? 0 : 1;
  } catch (error) {
    printError(error);
    if (options.json && error instanceof StaticMcpError) {
      // Machine readers get the same stop reason the human sees, instead of an empty stdout.
      process.stdout.write(
        `${JSON.stringify({ ok: false, error: { code: error.code, message: error.message, hint: error.hint } }, null, 2)}\n`,
      );
    }
    return interruptedBy ? exitCodeOfSignal(interruptedBy) : exitCodeOf(error);
  }
}
