// An ordinary command line of any command but `serve` (build, check, merge, index, dev, init),
// run from that command's own bundle (scripts/bundle-cli.mjs bundles this module, the command's
// module and everything they reach into cli/staticmcp-<command>.cjs), so a start reads one file,
// compiled from V8's code cache, instead of the command's dozens of ES modules, and none of the
// other commands' code. A line parse-fast.ts does not read (help, --version, an unusual option) is
// left to the whole command line with yargs (run-command-line.ts), which no bundle holds.
import type { CommandSpec } from './command-spec.js';
import { runCommand } from './command-spec.js';
import { exitCodeOf } from './exit-codes.js';
import { parseFast } from './parse-fast.js';

/** Runs `argv` (`command`'s name, then its words) when parse-fast.ts reads it and resolves to true; false (nothing run) otherwise. */
export async function runFastCommandLine(command: CommandSpec, argv: string[]): Promise<boolean> {
  try {
    const fast = parseFast(command, argv.slice(1));
    if (!fast) return false;
    process.exitCode = await runCommand(command, fast.positionals, fast.found);
  } catch (error) {
    (await import('./print-error.js')).printError(error);
    process.exitCode = exitCodeOf(error);
  }
  return true;
}
