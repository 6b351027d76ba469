// A value-list command (`"values": {"x": {"command": "…"}}` in staticmcp.json): run the one way
// the build runs it, and its run kept as a check the no-op replay can repeat (up-to-date.ts).
// No file fingerprint shows what such a command prints, so a replay runs it again and compares
// its stdout with the recorded build's: the same bytes mean the same values, hence the same tree.
import { createHash } from 'node:crypto';
import { runScript } from '../script/run-script.js';
import { createBaseEnvironment } from '../script/script-environment.js';

export interface ValueListRunOptions {
  projectRoot: string;
  toolsRoot: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  displayName: string;
}

/** A command that ran cleanly (exit 0), as a replay repeats and compares it. */
export interface CheckedCommand {
  command: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** sha256 of its stdout bytes. */
  stdoutSha256: string;
}

/** An input no file fingerprint sees: a replay repeats `check`; without one the build is never replayed. */
export interface VolatileInput {
  what: string;
  check?: CheckedCommand;
}

export function runValueListCommand(command: string, options: ValueListRunOptions) {
  return runScript({
    file: '/bin/sh',
    args: ['-c', command],
    cwd: options.projectRoot,
    env: createBaseEnvironment({ projectRoot: options.projectRoot, toolsRoot: options.toolsRoot, phase: 'build' }),
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
    displayName: options.displayName,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

export function digestStdout(stdout: Uint8Array): string {
  return createHash('sha256').update(stdout).digest('hex');
}

/**
 * Whether every command prints what the recorded build saw (and exits 0), run one at a time in
 * the recorded order. Any doubt (a failure, a timeout, other bytes) is "no": the build runs.
 */
export async function commandsPrintTheSame(
  checks: readonly CheckedCommand[],
  scope: { projectRoot: string; toolsRoot: string },
): Promise<boolean> {
  for (const check of checks) {
    try {
      const run = await runValueListCommand(check.command, {
        ...scope,
        timeoutMs: check.timeoutMs,
        maxOutputBytes: check.maxOutputBytes,
        displayName: `the value list command (${check.command})`,
      });
      if (run.failed || run.exitCode !== 0 || digestStdout(run.stdout) !== check.stdoutSha256) return false;
    } catch {
      return false;
    }
  }
  return true;
}
