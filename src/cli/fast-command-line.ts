// An ordinary command line of any command but `serve` (build, check, merge, index, dev, init),
// run from the command-line bundle (scripts/bundle-cli.mjs bundles this module and everything it
// reaches into cli/staticmcp-cli.cjs), so a start reads one file, compiled from V8's code cache,
// instead of the command's dozens of ES modules. A line parse-fast.ts does not read (help,
// --version, an unknown command, an unusual option) is left to the whole command line with yargs
// (run-command-line.ts), which this bundle does not hold.
import { loadCommand } from './command-list.js';
import { runCommand } from './command-spec.js';
import { exitCodeOf } from './exit-codes.js';
import { parseFast } from './parse-fast.js';

/** Runs `argv` when parse-fast.ts reads it and resolves to true; false (nothing run) otherwise. */
export async function runFastCommandLine(argv: string[]): Promise<boolean> {
  try {
    const command = await loadCommand(argv[0]);
    const fast = command ? parseFast(command, argv.slice(1)) : null;
    if (!command || !fast) return false;
    process.exitCode = await runCommand(command, fast.positionals, fast.found);
  } catch (error) {
    (await import('./print-error.js')).printError(error);
    process.exitCode = exitCodeOf(error);
  }
  return true;
}
