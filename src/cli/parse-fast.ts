// An ordinary command line read without yargs, which costs ~150 ms to load: more than Node's own
// start, and more than a no-op rebuild's whole work. It reads the same declarations yargs does
// (command-spec.ts); anything unusual (help, --version, an unknown option, a missing value, a
// second positional where one is declared) returns null, and run-command-line.ts hands the line
// to yargs, which owns help texts and usage errors.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandSpec } from './command-spec.js';

export interface FastParse {
  positionals: string[];
  found: Record<string, unknown>;
}

export function parseFast(spec: CommandSpec, argv: readonly string[]): FastParse | null {
  if (argv.some((argument) => argument === '--help' || argument === '-h' || argument === '--version')) return null;
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = { type: option.type === 'boolean' ? 'boolean' : 'string', multiple: true };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch {
    return null;
  }
  if (parsed.positionals.length > 1 && !spec.positional.variadic) return null;
  return { positionals: parsed.positionals, found: parsed.values };
}
