// The build's arguments parsed without yargs (which costs ~130 ms to load, more than a no-op
// rebuild's own work). Anything unusual (help, an unknown flag, a bad value) returns null, and
// main.ts hands the command line to yargs, which owns usage messages and errors.
import { parseArgs } from 'node:util';
import type { BuildCommandOptions } from './build-command.js';

export function parseBuildArgv(argv: readonly string[]): BuildCommandOptions | null {
  if (argv.some((argument) => argument === '--help' || argument === '-h' || argument === '--version')) return null;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: 'string' },
        tools: { type: 'string' },
        concurrency: { type: 'string' },
        force: { type: 'boolean' },
        json: { type: 'boolean' },
      },
    });
  } catch {
    return null;
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) return null;
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1) return null;
  }
  return {
    project: positionals[0] ?? '.',
    out: values.out,
    tools: values.tools,
    concurrency,
    force: values.force === true,
    json: values.json === true,
  };
}
