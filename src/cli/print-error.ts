// How a command-stopping error reaches a human: what happened, then what to do, on stderr.
import { StaticMcpError } from '../core/staticmcp-error.js';
import { writeHumanLines } from '../shared/terminal-text.js';

export function printError(error: unknown): void {
  if (error instanceof StaticMcpError) {
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
