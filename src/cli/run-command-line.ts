// The command line, run: the only place that sets the process's exit code (which code:
// exit-codes.ts). An ordinary command line is read without yargs (parse-fast.ts), so `serve` and a
// no-op rebuild never wait for yargs to load (~150 ms); help, --version and anything unusual go
// through yargs (parse-with-yargs.ts). Both read the options each command declares once. Run by
// start-cli.ts from its bundle (staticmcp-command-line.cjs, scripts/bundle-cli.mjs: yargs and every
// command in one file) for the lines no command bundle takes, or from this module without bundles.
import { loadCommand } from './command-list.js';
import { runCommand } from './command-spec.js';
import { exitCodeOf } from './exit-codes.js';
import { parseFast } from './parse-fast.js';

/** Runs `argv` (process.argv without node and the script); always true: every line is its own. */
export async function runCommandLine(argv: string[]): Promise<boolean> {
  try {
    const command = await loadCommand(argv[0]);
    const fast = command ? parseFast(command, argv.slice(1)) : null;
    process.exitCode =
      command && fast
        ? await runCommand(command, fast.positionals, fast.found)
        : await (await import('./parse-with-yargs.js')).parseWithYargs(argv);
  } catch (error) {
    // Loaded only now: a command that succeeds never pays for it.
    (await import('./print-error.js')).printError(error);
    process.exitCode = exitCodeOf(error);
  }
  return true;
}
