// The one place that spawns: runs a script (or `--help`, `--state`) as a child process in its own
// process group and returns what happened as data. Timeouts and cancellation kill the whole group;
// output of any size is drained and capped, so no child can hang or flood the caller.
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { CLIENT_CHANNEL_FD, formatClientAnswer, MAX_CLIENT_REQUEST_BYTES, refusedAnswer } from './client-requests.js';
import { createRunMarker, killMarkedProcesses, RUN_MARKER_VARIABLE } from './kill-marked-processes.js';
import { parseLogLine, type LogLine } from './log-lines.js';
import { parseProgressLine, type ProgressLine } from './progress-lines.js';

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

const DEFAULT_KILL_GRACE_MS = 1000;
/** After the child exits, how long its pipes may stay quiet but open (a daemonised grandchild) before we stop reading. */
const PIPE_CLOSE_GRACE_MS = 200;

/** The run's process group, and every process that carries its marker (a `setsid` child too). */
function killRun(pid: number | undefined, marker: string, signal: NodeJS.Signals): void {
  killGroup(pid, signal);
  killMarkedProcesses(marker, signal);
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

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

function spawnErrorText(error: NodeJS.ErrnoException): string {
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

export function runScript(options: RunScriptOptions): Promise<ScriptRun> {
  const startedAt = performance.now();
  const { timeoutMs, maxOutputBytes } = options;
  const reportedTimeoutMs = options.budgetMs ?? timeoutMs;
  return new Promise((resolve) => {
    const stdoutChunks: Buffer[] = [];
    const stderrChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let timedOut = false;
    let cancelled = false;
    let outputTooLarge = false;
    let spawnError: string | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let pendingLogText = '';
    let killTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    let chunksRead = 0;

    if (options.signal?.aborted) {
      const run = {
        displayName: options.displayName,
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: true,
        outputTooLarge: false,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        durationMs: 0,
        failed: true,
      };
      resolve({ ...run, message: describeRun(run, reportedTimeoutMs, maxOutputBytes) });
      return;
    }

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
      const run = {
        displayName: options.displayName,
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: false,
        outputTooLarge: false,
        spawnError: spawnErrorText(error as NodeJS.ErrnoException),
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        durationMs: performance.now() - startedAt,
        failed: true,
      };
      resolve({ ...run, message: describeRun(run, reportedTimeoutMs, maxOutputBytes) });
      return;
    }

    const terminate = (): void => {
      killRun(child.pid, marker, 'SIGTERM');
      killTimer ??= setTimeout(
        () => killRun(child.pid, marker, 'SIGKILL'),
        options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      );
    };

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener('abort', onAbort);
      channel?.destroy();
      if (pendingLogText) reportStderrLine(pendingLogText);
      const run = {
        displayName: options.displayName,
        exitCode,
        signal: exitSignal,
        timedOut,
        cancelled,
        outputTooLarge,
        spawnError,
        stdout: Buffer.concat(stdoutChunks),
        stderr: Buffer.concat(stderrChunks),
        durationMs: performance.now() - startedAt,
        failed: timedOut || cancelled || outputTooLarge || spawnError !== undefined || exitSignal !== null,
      };
      resolve({ ...run, message: describeRun(run, reportedTimeoutMs, maxOutputBytes) });
    };

    /** One whole stderr line: a log line or a progress line goes to its callback, anything else stays output only. */
    const reportStderrLine = (text: string): void => {
      const logLine = options.onLogLine ? parseLogLine(text) : null;
      if (logLine) {
        options.onLogLine!(logLine);
        return;
      }
      const progressLine = options.onProgressLine ? parseProgressLine(text) : null;
      if (progressLine) options.onProgressLine!(progressLine);
    };

    const onAbort = (): void => {
      cancelled = true;
      terminate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, timeoutMs);

    /** Keeps a chunk unless its stream passed the cap; the first overflow kills the group. */
    const keepWithinCap = (chunks: Buffer[], bytesSoFar: number, chunk: Buffer): boolean => {
      if (bytesSoFar > maxOutputBytes) {
        if (!outputTooLarge) {
          outputTooLarge = true;
          killRun(child.pid, marker, 'SIGKILL');
        }
        return false;
      }
      // Output past the cap is dropped and does not count as activity, so a chatty leftover
      // process cannot keep the run open.
      chunksRead += 1;
      chunks.push(chunk);
      return true;
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      keepWithinCap(stdoutChunks, stdoutBytes, chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderrBytes += chunk.length;
      if (!keepWithinCap(stderrChunks, stderrBytes, chunk) || (!options.onLogLine && !options.onProgressLine)) return;
      pendingLogText += chunk.toString('utf8');
      const lines = pendingLogText.split('\n');
      pendingLogText = lines.pop() ?? '';
      for (const text of lines) reportStderrLine(text);
    });
    const channel = options.onClientLine ? ((child.stdio[CLIENT_CHANNEL_FD] as Duplex | null) ?? undefined) : undefined;
    if (channel) readClientChannel(channel, options.onClientLine!, () => settled);

    // A script that never reads stdin closes the pipe early: that is its right, not an error.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.stdin ?? '');

    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = spawnErrorText(error);
      finish();
    });
    child.on('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // Descendants left in the group would hold our pipes open: end them with their parent.
      killGroup(child.pid, 'SIGKILL');
      // A run that was stopped leaves nothing behind, not even what detached with setsid.
      if (timedOut || cancelled || outputTooLarge) killMarkedProcesses(marker, 'SIGKILL');
      // Stop reading only when the pipes stayed quiet for the whole grace period. Timers run before
      // I/O in a turn of the event loop, so on a loaded machine (this process not scheduled for
      // longer than the grace) the timer fires while the child's last output and EOF still wait to
      // be read: let one I/O phase pass (setImmediate) and look again before giving up, or a
      // `--help` that printed its JSON is seen as printing nothing.
      const stopWhenQuiet = (): void => {
        const chunksBefore = chunksRead;
        closeTimer = setTimeout(
          () =>
            setImmediate(() => {
              if (settled) return;
              if (chunksRead !== chunksBefore) {
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

/**
 * Serves the client channel: splits what the script writes into lines, answers them in order
 * (a script asks, then reads its answer), and refuses a line longer than the cap without reading
 * it into memory. Writes stop once the run is over.
 */
function readClientChannel(channel: Duplex, answer: (line: string) => Promise<string>, isOver: () => boolean): void {
  const decoder = new TextDecoder();
  let pending = '';
  let skippingLongLine = false;
  let queue: Promise<void> = Promise.resolve();
  const reply = (line: string | undefined): void => {
    // Every line is handed over as soon as it is read (a host may gather several questions before
    // answering any: MCP 2026-07-28 asks them together); the answers go back in the order asked.
    const text =
      line === undefined
        ? Promise.resolve(
            formatClientAnswer(
              refusedAnswer(`a request on the client channel is longer than ${MAX_CLIENT_REQUEST_BYTES} bytes`),
            ),
          )
        : answer(line);
    text.catch(() => {});
    queue = queue
      .then(async () => {
        const written = await text;
        if (!isOver() && channel.writable) channel.write(`${written}\n`);
      })
      .catch(() => {});
  };
  // The script may close its end at any time (or never read): neither is an error here.
  channel.on('error', () => {});
  channel.on('data', (chunk: Buffer) => {
    pending += decoder.decode(chunk, { stream: true });
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline).replace(/\r$/, '');
      pending = pending.slice(newline + 1);
      if (skippingLongLine) skippingLongLine = false;
      else if (line.trim() !== '') reply(line);
    }
    if (pending.length > MAX_CLIENT_REQUEST_BYTES) {
      pending = '';
      if (!skippingLongLine) reply(undefined);
      skippingLongLine = true;
    }
  });
}
