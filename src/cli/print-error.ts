// How a command-stopping error reaches a human: what happened, then what to do, on stderr.
import { StaticMcpError } from '../staticmcp-error.js';

export function printError(error: unknown): void {
  if (error instanceof StaticMcpError) {
    process.stderr.write(`staticmcp: error [${error.code}]: ${error.message}\n  what to do: ${error.hint}\n`);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `staticmcp: unexpected error: ${message}\n  what to do: this is a bug in staticmcp; please report it with the command you ran\n`,
  );
}
