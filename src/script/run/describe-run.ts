// A run's outcome as the one line a user reads: what happened, naming the command.
import { closeSync, openSync, readSync } from 'node:fs';
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

export function spawnErrorText(error: NodeJS.ErrnoException, file: string): string {
  switch (error.code) {
    case 'EACCES':
      return 'permission denied (is the file executable and its interpreter present?)';
    case 'ENOENT':
      return hasCarriageReturnInShebang(file)
        ? `its #! line ends with a carriage return (the file has Windows CRLF line endings), so the system looks for an interpreter whose name ends in \\r; save it with LF line endings (your editor's line-ending setting, or: sed -i 's/\\r$//' ${file})`
        : 'file or interpreter not found';
    case 'E2BIG':
      return 'argument list or environment too long';
    case 'ENOEXEC':
      return 'not an executable format (add a #! line)';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

/**
 * Whether the script's `#!` line ends in CR LF: the kernel then looks for `/bin/sh\r`, and spawn
 * reports ENOENT for a file that is plainly there (read only on that error path).
 */
function hasCarriageReturnInShebang(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(256);
    const length = readSync(fd, head, 0, head.length, 0);
    const firstLine = head.subarray(0, length).toString('latin1').split('\n')[0] ?? '';
    return firstLine.startsWith('#!') && firstLine.endsWith('\r');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
