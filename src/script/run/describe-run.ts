// A run's outcome as the one line a user reads: what happened, naming the command.
import type { ScriptRun } from '../run-script.js';

export function describeRun(run: Omit<ScriptRun, 'message'>, timeoutMs: number, maxOutputBytes: number): string {
  const name = run.displayName;
  if (run.spawnError) return `${name} could not be started: ${run.spawnError}`;
  if (run.cancelled) return `${name} was cancelled`;
  if (run.timedOut) return `${name} timed out after ${timeoutMs} ms and was killed`;
  if (run.outputTooLarge) return `${name} printed more than ${maxOutputBytes} bytes and was killed`;
  if (run.signal) return `${name} was killed by ${run.signal}`;
  if (run.exitCode === 0) return `${name} succeeded`;
  return `${name} failed with exit code ${run.exitCode}`;
}

export function spawnErrorText(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EACCES':
      return 'permission denied (is the file executable and its interpreter present?)';
    case 'ENOENT':
      return 'file or interpreter not found';
    case 'E2BIG':
      return 'argument list or environment too long';
    case 'ENOEXEC':
      return 'not an executable format (add a #! line)';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
