// Runs one script (or `--help`, `--state`, a value-list command, a live call) as a child process in
// its own process group and returns what happened as data. The build's many short calls go through
// batch-runner.ts instead, which starts them from long-lived shells. Stages, one file each under
// run/: spawn here; timeout and cancellation (timeout.ts) end the run through terminate.ts
// (SIGTERM, then SIGKILL after a grace period); capture-output.ts drains and caps the output;
// script-run.ts builds the ScriptRun and says what happened. No child can hang or flood the caller.
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { CLIENT_CHANNEL_FD } from '../core/mcp/client-requests.js';
import { createRunMarker, killMarkedProcesses, RUN_MARKER_VARIABLE } from './kill-marked-processes.js';
import type { LogLine } from '../core/results/log-lines.js';
import type { ProgressLine } from '../core/results/progress-lines.js';
import { captureOutput } from './run/capture-output.js';
import { readClientChannel } from './run/client-channel.js';
import {
  createScriptRun,
  createUnstartedRun,
  type RunLimits,
  type ScriptRun,
  spawnErrorText,
} from './run/script-run.js';
import { trackRunningRun } from './run/running-runs.js';
import { createTerminator, killGroup } from './run/terminate.js';
import { watchTimeoutAndCancel } from './run/timeout.js';

export interface RunScriptOptions {
  file: string;
  args?: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin, then stdin is closed. */
  stdin?: string;
  timeoutMs: number;
  /** The whole budget, when part of it went before the run (waiting for a live slot): messages name it. */
  budgetMs?: number;
  /** Cap on stdout and on stderr, each; past it the group is killed and the run fails. */
  maxOutputBytes: number;
  /** How long SIGTERM gets before SIGKILL. */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** Called for each prefixed stderr line as it arrives. */
  onLogLine?: (line: LogLine) => void;
  /** Called for each `PROGRESS <done> [<total>] [message]` stderr line as it arrives. */
  onProgressLine?: (line: ProgressLine) => void;
  /**
   * Opens the client channel on file descriptor 3 (see client-requests.ts): each line the script
   * writes there is passed here, one at a time, and what it resolves with is written back as a line.
   */
  onClientLine?: (line: string) => Promise<string>;
  /** How the command is named in messages (never an absolute path of this machine). */
  displayName: string;
}

/** After the child exits, how long its pipes may stay quiet but open (a daemonised grandchild) before we stop reading. */
const PIPE_CLOSE_GRACE_MS = 200;

export function runScript(options: RunScriptOptions): Promise<ScriptRun> {
  const startedAt = performance.now();
  const { timeoutMs, maxOutputBytes } = options;
  const runLimits: RunLimits = {
    displayName: options.displayName,
    timeoutMs: options.budgetMs ?? timeoutMs,
    maxOutputBytes,
  };
  if (options.signal?.aborted) return Promise.resolve(createUnstartedRun({ cancelled: true }, startedAt, runLimits));
  return new Promise((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let outputTooLarge = false;
    let spawnError: string | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let closeTimer: NodeJS.Timeout | undefined;

    const marker = createRunMarker();
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.file, options.args ?? [], {
        cwd: options.cwd,
        env: { ...options.env, [RUN_MARKER_VARIABLE]: marker },
        detached: true,
        stdio: options.onClientLine ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      const reason = { spawnError: spawnErrorText(error as NodeJS.ErrnoException, options.file) };
      resolve(createUnstartedRun(reason, startedAt, runLimits));
      return;
    }

    const terminator = createTerminator(child.pid, marker, options.killGraceMs);
    const untrack = trackRunningRun(child.pid, terminator.killNow);
    const output = captureOutput({
      maxOutputBytes,
      onOverflow: () => {
        outputTooLarge = true;
        terminator.killNow();
      },
      onLogLine: options.onLogLine,
      onProgressLine: options.onProgressLine,
    });
    const limits = watchTimeoutAndCancel(timeoutMs, options.signal, {
      timeout: () => {
        timedOut = true;
        terminator.terminate();
      },
      cancel: () => {
        cancelled = true;
        terminator.terminate();
      },
    });
    const channel = options.onClientLine ? ((child.stdio[CLIENT_CHANNEL_FD] as Duplex | null) ?? undefined) : undefined;

    const finish = (): void => {
      if (settled) return;
      settled = true;
      untrack();
      limits.dispose();
      terminator.dispose();
      clearTimeout(closeTimer);
      channel?.destroy();
      const { stdout, stderr } = output.finish();
      const end = { exitCode, signal: exitSignal, timedOut, cancelled, outputTooLarge, spawnError, stdout, stderr };
      resolve(createScriptRun(end, startedAt, runLimits));
    };

    child.stdout!.on('data', output.onStdout);
    child.stderr!.on('data', output.onStderr);
    if (channel) readClientChannel(channel, options.onClientLine!, () => settled);

    // A script that never reads stdin closes the pipe early: that is its right, not an error.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.stdin ?? '');

    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = spawnErrorText(error, options.file);
      finish();
    });
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // Descendants left in the group would hold our pipes open: end them with their parent. Just
      // reaped, so the group's number is still ours; later kills go by marker only.
      killGroup(child.pid, 'SIGKILL');
      terminator.forgetGroup();
      // A run that was stopped leaves nothing behind, not even what detached with setsid.
      if (timedOut || cancelled || outputTooLarge) killMarkedProcesses(marker, 'SIGKILL');
      // Stop reading only when the pipes stayed quiet for the whole grace period. Timers run before
      // I/O in a turn of the event loop, so on a loaded machine (this process not scheduled for
      // longer than the grace) the timer fires while the child's last output and EOF still wait to
      // be read: let one I/O phase pass (setImmediate) and look again before giving up, or a
      // `--help` that printed its JSON is seen as printing nothing.
      const stopWhenQuiet = (): void => {
        const chunksBefore = output.chunksRead();
        closeTimer = setTimeout(
          () =>
            setImmediate(() => {
              if (settled) return;
              if (output.chunksRead() !== chunksBefore) {
                stopWhenQuiet();
                return;
              }
              child.stdout?.destroy();
              child.stderr?.destroy();
              channel?.destroy();
              finish();
            }),
          PIPE_CLOSE_GRACE_MS,
        );
      };
      stopWhenQuiet();
    });
    child.on('close', finish);
  });
}
