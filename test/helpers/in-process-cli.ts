// The human command line (help texts, usage errors, --version) without starting the CLI: the CLI
// hands every command line its fast parser declines to yargs (run-command-line.ts →
// parse-with-yargs.ts); here that parser runs in the test's process and what it prints is
// captured as the process would print it (help through console.log, refusals on stderr). A CLI
// test per kind of output shows the process prints the same. Likewise a line the fast parser reads
// whose values the command refuses before it does anything (runRefusedInProcess).
import { loadCommand } from '../../src/cli/command-list.js';
import { runCommand } from '../../src/cli/command-spec.js';
import { parseFast } from '../../src/cli/parse-fast.js';
import { parseWithYargs } from '../../src/cli/parse-with-yargs.js';

export interface InProcessCliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `staticmcp …argv` for a command line the CLI hands yargs; throws for one it would run at once. */
export async function runYargsInProcess(argv: readonly string[]): Promise<InProcessCliResult> {
  const command = await loadCommand(argv[0]);
  if (command && parseFast(command, argv.slice(1)))
    throw new Error(`staticmcp ${argv.join(' ')} runs the command: start the CLI as a process for it`);
  return capturingOutput(() => parseWithYargs([...argv]));
}

/**
 * `staticmcp …argv` for a command line the fast parser reads and the command refuses as bad usage
 * before it starts anything (a value its option's check refuses, a missing option): the exit code
 * and what it prints. Only for such lines: one the command would run must start the CLI as a process.
 */
export async function runRefusedInProcess(argv: readonly string[]): Promise<InProcessCliResult> {
  const command = await loadCommand(argv[0]);
  const fast = command && parseFast(command, argv.slice(1));
  if (!command || !fast) throw new Error(`staticmcp ${argv.join(' ')} is not read by the fast parser`);
  return capturingOutput(() => runCommand(command, fast.positionals, fast.found));
}

/** Runs `run` with console.log and process.stderr captured, as the process would print them. */
async function capturingOutput(run: () => Promise<number>): Promise<InProcessCliResult> {
  let stdout = '';
  let stderr = '';
  const log = console.log;
  const write = process.stderr.write;
  console.log = (...values: unknown[]) => {
    stdout += `${values.join(' ')}\n`;
  };
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await run();
    return { code, stdout, stderr };
  } finally {
    console.log = log;
    process.stderr.write = write;
  }
}
