// The one rule from how a command ended to the process's exit code, for every command (docs/cli.md
// "Exit codes"):
//   0  done;
//   1  done with failures, or problems found: a script or run failed, `check` found problems, the
//      project's own files are broken (staticmcp.json, register.json, a manifest over its limit),
//      or staticmcp itself failed (a bug);
//   2  refused as given, nothing done: bad usage (an unknown option, a refused value), or a folder,
//      URL or part that is not what the command needs (a missing project, an --out that would
//      destroy something, parts that do not go together, a folder init will not overwrite);
//   128 + N  ended by signal N (130 for Ctrl-C, 143 for SIGTERM), as shells report it.
import { StaticMcpError } from '../core/staticmcp-error.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A command line that cannot run as given: exit 2, with what to do. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * StaticMcpError codes that mean "refused as given" (2): what the command was pointed at, not what
 * it found inside. Every other code is a problem found (1). test/unit/exit-codes.test.ts holds
 * every code thrown in src/ to its exit code, so a new code is a decision, not an accident.
 */
const REFUSED_CODE =
  /^(OUT_|SHARD_|CHECK_|INIT_|PART_|PARTS_|NOT_A_PART$|NO_PARTS$|PROJECT_NOT_FOUND$|TOOLS_NOT_FOUND$|NOT_A_TREE$|TREE_NOT_FOUND$|SEARCH_TOOLS_TAKEN$|TOOL_NOT_IN_TREE$|ORIGIN_KEY$|ORIGIN_LIMIT$|INVALID_ENVIRONMENT$)/;

/** The exit code of a command stopped by `error`. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT_USAGE;
  if (error instanceof StaticMcpError) return REFUSED_CODE.test(error.code) ? EXIT_USAGE : EXIT_FAILED;
  return EXIT_FAILED;
}

/**
 * The signals a command ends its work on, by their POSIX numbers (the same on every system Node
 * runs this CLI on). Not os.constants: node:os would load at every start (~0.7 ms) for two numbers.
 */
const SIGNAL_NUMBER = { SIGINT: 2, SIGTERM: 15 } as const;
export type StopSignal = keyof typeof SIGNAL_NUMBER;

/** The exit code of a command that ended its work because the process got `signal`. */
export function exitCodeOfSignal(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBER[signal];
}
