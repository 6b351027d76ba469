// `staticmcp merge PART… --out DIR`: its declaration, and the handler that puts the parts of
// `build --shard I/N` together into one tree (packed past the shards' call-file budget, or
// --max-call-files) and prints what the shards reported (or the report as JSON on stdout with
// --json). Exit 0 ok, 1 when a shard reported failures (the tree is still written, as a
// one-machine build would), 2 when the parts are refused (nothing is written).
import path from 'node:path';
import type { MergeReport } from '../../merge/merge-parts.js';
import { StaticMcpError } from '../../core/staticmcp-error.js';
import { defineCommand, helpHint } from '../command-spec.js';
import { exitCodeOf, UsageError } from '../exit-codes.js';
import { countFailedRuns, describeReportBody } from '../describe-report.js';
import { printError } from '../print-error.js';
import { writeHumanLines } from '../../shared/terminal-text.js';
import { keepOldGenerationTight, keepYoungGenerationSmall } from '../young-generation.js';

export const command = defineCommand({
  name: 'merge',
  describe: 'merge the parts of staticmcp build --shard I/N into the tree a one-machine build writes',
  positional: { name: 'parts', describe: 'the --out folders of every shard build', variadic: true },
  options: {
    out: { type: 'string', describe: 'output folder of the merged tree' },
    json: { type: 'boolean', describe: 'print a machine-readable report on stdout' },
    'max-file-bytes': {
      type: 'number',
      // The default is merge/read-part-file.ts DEFAULT_MAX_PART_FILE_BYTES (not imported: this
      // declaration loads with every command).
      describe: 'refuse a part file bigger than this, from its size, before reading it (default: 104857600, 100 MiB)',
      check: (value: number, text: string) =>
        Number.isSafeInteger(value) && value >= 1
          ? undefined
          : `--max-file-bytes ${text} is not a whole number of bytes above 0`,
    },
    'max-call-files': {
      type: 'number',
      describe:
        'call files the merged tree may hold before it is packed, 0 for never (default: the budget the shards were built with)',
      check: (value: number, text: string) =>
        Number.isSafeInteger(value) && value >= 0
          ? undefined
          : `--max-call-files ${text} is not a whole number of files (0 for never)`,
    },
  },
  run: ({ positionals, options }) => {
    if (options.out === undefined) {
      throw new UsageError('merge needs --out, the folder of the merged tree', helpHint('merge'));
    }
    return runMergeCommand({
      parts: positionals,
      out: options.out,
      json: options.json,
      maxFileBytes: options['max-file-bytes'],
      maxCallFiles: options['max-call-files'],
    });
  },
});

interface MergeCommandOptions {
  parts: string[];
  out: string;
  json?: boolean;
  maxFileBytes?: number | undefined;
  maxCallFiles?: number | undefined;
}

function printSummary(report: MergeReport): void {
  const where = path.relative(process.cwd(), report.outDir) || '.';
  const lines = report.recovered.map((note) => `staticmcp: ${note}`);
  lines.push(`staticmcp: merged ${report.shards} shard(s) into ${where}: ${report.files} files`);
  lines.push(...describeReportBody(report));
  const failedRuns = countFailedRuns(report.tools);
  lines.push(
    report.ok
      ? `staticmcp: merge succeeded in ${Math.round(report.durationMs)} ms`
      : `staticmcp: merged, but the shards reported ${report.failures.length} failed item(s) and ${failedRuns} failed run(s); the tree holds everything else`,
  );
  writeHumanLines(process.stderr, lines);
}

async function runMergeCommand(options: MergeCommandOptions): Promise<number> {
  try {
    keepOldGenerationTight(keepYoungGenerationSmall());
    const { mergeParts } = await import('../../merge/merge-parts.js');
    const report = await mergeParts({
      parts: options.parts,
      outDir: options.out,
      ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
      ...(options.maxCallFiles !== undefined ? { maxCallFiles: options.maxCallFiles } : {}),
    });
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printSummary(report);
    return report.ok ? 0 : 1;
  } catch (error) {
    printError(error);
    if (options.json && error instanceof StaticMcpError) {
      process.stdout.write(
        `${JSON.stringify({ ok: false, error: { code: error.code, message: error.message, hint: error.hint } }, null, 2)}\n`,
      );
    }
    return exitCodeOf(error);
  }
}
