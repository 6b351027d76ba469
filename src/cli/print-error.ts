// How a command-stopping error reaches a human: what happened, then what to do, on stderr.
import { StaticMcpError } from '../core/staticmcp-error.js';
import { writeHumanLines } from '../shared/terminal-text.js';

export function printError(error: unknown): void {
  if (isStaticMcpError(error)) {
    writeHumanLines(process.stderr, [
      `staticmcp: error [${error.code}]: ${error.message}`,
      `  what to do: ${error.hint}`,
    ]);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeHumanLines(process.stderr, [
    `staticmcp: unexpected error: ${message}`,
    '  what to do: this is a bug in staticmcp; please report it with the command you ran',
  ]);
}

/**
 * By shape as well as by class: the CLI's bundles each hold their own copy of the class, and an
 * error thrown in one (the bin's `--version`) may be printed by a module loaded beside it.
 */
function isStaticMcpError(error: unknown): error is StaticMcpError {
  if (error instanceof StaticMcpError) return true;
  const { name, code, hint } = error as Partial<StaticMcpError>;
  return error instanceof Error && name === 'StaticMcpError' && typeof code === 'string' && typeof hint === 'string';
}
