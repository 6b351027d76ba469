// What a script run left behind (`ScriptRun`), built in one place for both ways of running a
// script (run-script.ts spawns one, batch-runner.ts hands it to a launcher shell), with the one
// line a user reads: what happened, naming the command.
import { closeSync, openSync, readSync } from 'node:fs';

export interface ScriptRun {
  displayName: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  outputTooLarge: boolean;
  spawnError?: string;
  stdout: Buffer;
  stderr: Buffer;
  durationMs: number;
  /** The run did not end by itself with an exit code (timeout, cancel, signal, cap, spawn error). */
  failed: boolean;
  /** One line that says what happened, naming the command. */
  message: string;
}

/** How a run ended: what the runner observed. */
export type RunEnd = Omit<ScriptRun, 'displayName' | 'durationMs' | 'failed' | 'message'>;

/** What the run was asked to do, for the message. */
export interface RunLimits {
  displayName: string;
  /** The budget a timeout message names (the whole budget when part of it went before the run). */
  timeoutMs: number;
  maxOutputBytes: number;
}

/**
 * The ScriptRun of a run that started at `startedAtMs` (a `performance.now()` reading) and ended
 * as `end`. One object literal, no spreads: spreading a run's fields into new objects per call
 * made V8 promote them to the old generation (~1 KB a call), which grew the heap by ~15 MB
 * between full collections in a 40,000-call build.
 */
export function createScriptRun(end: RunEnd, startedAtMs: number, limits: RunLimits): ScriptRun {
  const run: ScriptRun = {
    displayName: limits.displayName,
    exitCode: end.exitCode,
    signal: end.signal,
    timedOut: end.timedOut,
    cancelled: end.cancelled,
    outputTooLarge: end.outputTooLarge,
    stdout: end.stdout,
    stderr: end.stderr,
    durationMs: performance.now() - startedAtMs,
    failed: end.timedOut || end.cancelled || end.outputTooLarge || end.spawnError !== undefined || end.signal !== null,
    message: '',
  };
  if (end.spawnError !== undefined) run.spawnError = end.spawnError;
  run.message = describeRun(run, limits.timeoutMs, limits.maxOutputBytes);
  return run;
}

/** A run that never started: cancelled before it could, or refused by spawn. */
export function createUnstartedRun(
  reason: { cancelled?: true; spawnError?: string },
  startedAtMs: number,
  limits: RunLimits,
): ScriptRun {
  const end: RunEnd = {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: reason.cancelled === true,
    outputTooLarge: false,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
  };
  if (reason.spawnError !== undefined) end.spawnError = reason.spawnError;
  return createScriptRun(end, startedAtMs, limits);
}

function describeRun(run: Omit<ScriptRun, 'message'>, timeoutMs: number, maxOutputBytes: number): string {
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
