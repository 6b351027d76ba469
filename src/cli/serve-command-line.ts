// An ordinary `staticmcp serve …` line, run from the serve bundle (scripts/bundle-cli.mjs bundles
// this module and everything it reaches into cli/staticmcp-serve.cjs), so the bridge's start reads
// one file, compiled from V8's code cache, instead of the command line's modules. Anything but an
// ordinary serve line (help, --version, another command, an unusual option) is left to the whole
// command line (run-command-line.ts), exactly as before.
import { runCommand } from './command-spec.js';
import { command } from './commands/serve.js';
import { exitCodeOf } from './exit-codes.js';
import { parseFast } from './parse-fast.js';

/** Runs `argv` when it is an ordinary serve line and resolves to true; false (nothing run) otherwise. */
export async function runServeCommandLine(argv: string[]): Promise<boolean> {
  const fast = argv[0] === 'serve' ? parseFast(command, argv.slice(1)) : null;
  if (!fast) return false;
  try {
    process.exitCode = await runCommand(command, fast.positionals, fast.found);
  } catch (error) {
    (await import('./print-error.js')).printError(error);
    process.exitCode = exitCodeOf(error);
  }
  return true;
}
