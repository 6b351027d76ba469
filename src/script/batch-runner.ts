// Runs many short scripts fast, for the build. Forking a Node process costs ~1.5 ms of the main
// thread per spawn (its page tables are copied, then every page it touches faults), which made a
// 2,000-call build twice as slow as `xargs`. Here a few long-lived `/bin/sh` launchers (tiny, so
// cheap to fork) start the scripts instead: each job is a small shell file that exports the job's
// environment, caps output size with `ulimit -f`, and `exec`s the script with its JSON on stdin
// (a here-document) and stdout/stderr in files. Each launcher runs one job at a time in its own
// process group, so a timeout or an interruption kills exactly that job's processes (and the
// launcher, which is started again). Each result is a ScriptRun built by run/script-run.ts, as
// runScript's are.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { closeSync, openSync, promises as fs, readSync, unlinkSync, writeFileSync } from 'node:fs';
import { createJobFolder } from './job-folder.js';
import { createRunMarker, killMarkedProcesses, RUN_MARKER_VARIABLE } from './kill-marked-processes.js';
import { createScriptRun, createUnstartedRun, type RunEnd, type RunLimits, type ScriptRun } from './run/script-run.js';

export interface BatchJob {
  file: string;
  env: Record<string, string>;
  stdin: string;
  timeoutMs: number;
  displayName: string;
}

export interface BatchRunnerOptions {
  cwd: string;
  concurrency: number;
  /** Cap on stdout and on stderr, each. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  killGraceMs?: number;
}

/**
 * Reads one job file per line of stdin and answers each with its exit status. A signal to the
 * group ends the job (subshells take the default action) while the launcher only notes it, so it
 * still reaps the job and reports before leaving: nothing outlives a build as a zombie.
 */
const LAUNCHER = 'trap "stop=1" TERM INT HUP; while [ -z "$stop" ] && IFS= read -r job; do (. "$job"); echo "$?"; done';
const SIGNAL_NAMES = new Map(
  Object.entries(osConstants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);
const DEFAULT_KILL_GRACE_MS = 1000;
const FILE_SIZE_LIMIT_EXIT = 128 + osConstants.signals.SIGXFSZ;

/** Most script outputs are far smaller; larger ones are read on in chunks. */
const SCRATCH_BYTES = 64 * 1024;

/** Removes a job's file if it is there (unlink: `rmSync` stats first, a Stats object per call). */
function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Never written (the job did not start), or removed already.
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

interface Launcher {
  process: ChildProcess;
  /** Resolves the running job with the status line, or null when the launcher died. */
  pending?: (status: number | null) => void;
  /** In the environment of the launcher and everything it starts (kill-marked-processes.ts). */
  marker: string;
  lineBuffer: string;
  alive: boolean;
  /** Sent a kill: it leaves after reporting its job, so it must not get another. */
  retiring?: boolean;
}

export class BatchRunner {
  private readonly idle: Launcher[] = [];
  private readonly waiting: ((launcher: Launcher) => void)[] = [];
  /** The launchers not yet reaped: their process group ids cannot have been given to anyone else. */
  private readonly all = new Set<Launcher>();
  private started = 0;
  private sequence = 0;
  private closed = false;
  private readonly marker = createRunMarker();
  private launchersStarted = 0;
  /**
   * Ends each job's stdin here-document. Made once: stdin is one line of JSON (an object, so it
   * starts with `{`) and can never be this line; a random bytes call per job cost ~35 µs each.
   */
  private readonly stdinDelimiter = `STATICMCP_STDIN_${randomBytes(8).toString('hex')}`;
  /** Where outputs are read first (they are copied out): most fit, so a run allocates only what it keeps. */
  private readonly scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

  private constructor(
    private readonly folder: string,
    private readonly options: BatchRunnerOptions,
  ) {
    options.signal?.addEventListener('abort', () => this.killAll(), { once: true });
  }

  static async open(options: BatchRunnerOptions): Promise<BatchRunner> {
    // Room for a full stdout and stderr of every job running at once.
    const folder = await createJobFolder(options.concurrency * 2 * (options.maxOutputBytes + 1));
    return new BatchRunner(folder, options);
  }

  private startLauncher(): Launcher {
    // An empty environment but the launcher's marker: every other variable a job sees comes from its job file.
    this.launchersStarted += 1;
    const marker = `${this.marker}-${this.launchersStarted}.`;
    const child = spawn('/bin/sh', ['-c', LAUNCHER], {
      cwd: this.options.cwd,
      env: { [RUN_MARKER_VARIABLE]: marker },
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const launcher: Launcher = { process: child, marker, lineBuffer: '', alive: true };
    this.all.add(launcher);
    child.stdin!.on('error', () => {});
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      launcher.lineBuffer += text;
      for (let newline = launcher.lineBuffer.indexOf('\n'); newline >= 0; newline = launcher.lineBuffer.indexOf('\n')) {
        const line = launcher.lineBuffer.slice(0, newline);
        launcher.lineBuffer = launcher.lineBuffer.slice(newline + 1);
        const pending = launcher.pending;
        launcher.pending = undefined;
        pending?.(Number(line));
      }
    });
    const onGone = (): void => {
      if (!launcher.alive) return;
      launcher.alive = false;
      this.all.delete(launcher);
      const pending = launcher.pending;
      launcher.pending = undefined;
      pending?.(null);
    };
    child.on('exit', onGone);
    child.on('error', onGone);
    return launcher;
  }

  private acquire(): Promise<Launcher> {
    let ready = this.idle.pop();
    // A launcher that died while idle (killed from outside) is replaced, not handed out.
    while (ready && (!ready.alive || ready.retiring)) {
      this.started -= 1;
      ready = this.idle.pop();
    }
    if (ready) return Promise.resolve(ready);
    if (this.started < this.options.concurrency) {
      this.started += 1;
      return Promise.resolve(this.startLauncher());
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(launcher: Launcher): void {
    // After an interruption nothing new is started: waiting jobs get the dead launcher and end as cancelled.
    const usable = launcher.alive && !launcher.retiring;
    const next = usable || this.closed || this.options.signal?.aborted ? launcher : this.startLauncher();
    const waiter = this.waiting.shift();
    if (waiter) waiter(next);
    else this.idle.push(next);
  }

  private killAll(): void {
    for (const launcher of this.all) this.killLauncher(launcher);
  }

  private killLauncher(launcher: Launcher): void {
    launcher.retiring = true;
    const pid = launcher.process.pid;
    if (pid === undefined) return;
    killMarkedProcesses(launcher.marker, 'SIGTERM');
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    setTimeout(() => {
      killMarkedProcesses(launcher.marker, 'SIGKILL');
      // By number only while the launcher is not reaped: its group's number is then still its own
      // (see close). A reaped launcher waited for its job first, so what could be left is marked.
      if (!launcher.alive) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS).unref();
  }

  private jobFile(job: BatchJob, outFile: string, errFile: string): string {
    const blocks = Math.ceil(this.options.maxOutputBytes / 512) + 1;
    const delimiter = this.stdinDelimiter;
    const exports = Object.entries(job.env)
      .map(([name, value]) => `export ${name}=${shellQuote(value)}`)
      .join('\n');
    // JSON.stringify never emits a raw newline, so the stdin text cannot end the here-document early.
    return `ulimit -f ${blocks}\n${exports}\nexec ${shellQuote(job.file)} > ${shellQuote(outFile)} 2> ${shellQuote(errFile)} <<'${delimiter}'\n${job.stdin}\n${delimiter}\n`;
  }

  async run(job: BatchJob): Promise<ScriptRun> {
    const startedAt = performance.now();
    const limits: RunLimits = {
      displayName: job.displayName,
      timeoutMs: job.timeoutMs,
      maxOutputBytes: this.options.maxOutputBytes,
    };
    const finish = (end: RunEnd): ScriptRun => createScriptRun(end, startedAt, limits);
    // A run that never started: the runner was closed or the build interrupted.
    const notStarted = (): ScriptRun => createUnstartedRun({ cancelled: true }, startedAt, limits);
    if (this.closed || this.options.signal?.aborted) {
      return notStarted();
    }
    const id = `${++this.sequence}`;
    // Concatenated, not path.join'ed: the folder is absolute and normalised, and this runs per call.
    const jobFile = `${this.folder}/${id}.sh`;
    const outFile = `${this.folder}/${id}.out`;
    const errFile = `${this.folder}/${id}.err`;
    // Small files on a hot path: synchronous calls cost a few microseconds, a thread-pool round trip
    // more. Written before a launcher is free: the build keeps more calls going than there are
    // launchers, so a freed launcher gets its next job at once instead of waiting for this write.
    writeFileSync(jobFile, this.jobFile(job, outFile, errFile));
    const launcher = await this.acquire();
    if (!launcher.alive || launcher.retiring) {
      this.release(launcher);
      removeFile(jobFile);
      return notStarted();
    }
    let timedOut = false;
    const status = await new Promise<number | null>((resolve) => {
      launcher.pending = resolve;
      const timer = setTimeout(() => {
        timedOut = true;
        this.killLauncher(launcher);
      }, job.timeoutMs);
      const previous = launcher.pending;
      launcher.pending = (value) => {
        clearTimeout(timer);
        previous(value);
      };
      if (launcher.alive) launcher.process.stdin!.write(`${jobFile}\n`);
      else launcher.pending(null);
    });
    const cancelled = !timedOut && (this.options.signal?.aborted === true || this.closed);
    this.release(launcher);
    // The job waiting for this launcher goes first (its continuation was queued by release): it
    // hands the launcher its job file before this one reads its output and unlinks its files.
    await Promise.resolve();
    const stdout = this.readCapped(outFile);
    const stderr = this.readCapped(errFile);
    // A daemon a script left behind may still hold these files: unlinking keeps it from writing into the next job's.
    for (const file of [jobFile, outFile, errFile]) removeFile(file);
    const outputTooLarge =
      status === FILE_SIZE_LIMIT_EXIT ||
      stdout.length > this.options.maxOutputBytes ||
      stderr.length > this.options.maxOutputBytes;
    const cappedStdout = stdout.subarray(0, this.options.maxOutputBytes);
    const cappedStderr = stderr.subarray(0, this.options.maxOutputBytes);
    if (status === null || timedOut || cancelled) {
      return finish({
        timedOut,
        cancelled,
        outputTooLarge: false,
        exitCode: null,
        signal: null,
        stdout: cappedStdout,
        stderr: cappedStderr,
        spawnError: timedOut || cancelled ? undefined : 'the launcher shell ended unexpectedly',
      });
    }
    // The shell reports a death by signal N as 128 + N, the convention scripts and shells share.
    const signal = status > 128 ? (SIGNAL_NAMES.get(status - 128) ?? null) : null;
    return finish({
      timedOut: false,
      cancelled: false,
      outputTooLarge,
      exitCode: signal ? null : status,
      signal: outputTooLarge ? null : signal,
      stdout: cappedStdout,
      stderr: cappedStderr,
    });
  }

  /**
   * The first maxOutputBytes + 1 bytes of `file` (empty when it is missing). Read without a stat:
   * each `fstat` allocates a Stats object (~1 KB of heap), garbage that at thousands of calls a
   * second kept the young generation busy.
   */
  private readCapped(file: string): Buffer {
    let descriptor: number;
    try {
      descriptor = openSync(file, 'r');
    } catch {
      return Buffer.alloc(0);
    }
    try {
      const limit = this.options.maxOutputBytes + 1;
      const scratch = this.scratch;
      let bytesRead = readSync(descriptor, scratch, 0, Math.min(scratch.length, limit), 0);
      // Buffer.from copies into Node's shared pool for small outputs: only the bytes read are kept.
      if (bytesRead < scratch.length || bytesRead === limit) return Buffer.from(scratch.subarray(0, bytesRead));
      const chunks = [Buffer.from(scratch)];
      let total = bytesRead;
      while (total < limit) {
        const chunk = Buffer.allocUnsafe(Math.min(total, limit - total));
        bytesRead = readSync(descriptor, chunk, 0, chunk.length, total);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        total += bytesRead;
      }
      return Buffer.concat(chunks, total);
    } finally {
      closeSync(descriptor);
    }
  }

  /** Ends the launchers (and anything still running) and removes the job folder. */
  async close(): Promise<void> {
    this.closed = true;
    // Every job has answered by now, so whatever is left in a launcher's group (a daemon a script
    // started) belongs to no one. Only the groups of launchers not yet reaped: once a group empties,
    // the system may give its number to an unrelated process group, which a kill by number would
    // hit. A launcher ended earlier had its group killed then (killLauncher), and what left a group
    // carries the marker.
    for (const launcher of this.all) {
      launcher.process.stdin!.end();
      try {
        process.kill(-launcher.process.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    // And what left its group with setsid: a build leaves no process of its scripts behind.
    killMarkedProcesses(`${this.marker}-`, 'SIGKILL');
    await fs.rm(this.folder, { recursive: true, force: true });
  }
}
