// Every process a run started, even one that left the run's process group with `setsid`: each run
// gets a random marker in its environment (STATICMCP_RUN_ID), which descendants inherit however
// they detach, and on Linux /proc/<pid>/environ shows it (as the process was started, even if it
// unset the variable later). Killing a run kills its group and every process with its marker.
// Elsewhere (no /proc) only the process group is guaranteed, and a process that clears its whole
// environment before exec escapes the marker: both are documented in docs/scripts.md.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

export const RUN_MARKER_VARIABLE = 'STATICMCP_RUN_ID';

export function createRunMarker(): string {
  return randomBytes(12).toString('hex');
}

/**
 * Where each environment is read: one buffer for every scan (a build scans at each runner close),
 * grown when an environment does not fit. A fresh buffer and a stat per process, as `readFileSync`
 * makes them, cost more CPU than the reads.
 */
let environBuffer = Buffer.allocUnsafe(64 * 1024);

/** How many bytes of /proc/<entry>/environ are now in `environBuffer` (0 when it cannot be read). */
function readEnviron(entry: string): number {
  let descriptor: number;
  try {
    descriptor = openSync(`/proc/${entry}/environ`, 'r');
  } catch {
    return 0; // Gone already, not ours to read, or a kernel thread (no environment).
  }
  let total = 0;
  try {
    for (;;) {
      if (total === environBuffer.length) {
        const grown = Buffer.allocUnsafe(environBuffer.length * 2);
        environBuffer.copy(grown, 0, 0, total);
        environBuffer = grown;
      }
      // The kernel fills a read of environ until the environment ends: a short read is its end,
      // which saves a second read per process.
      const room = environBuffer.length - total;
      const bytesRead = readSync(descriptor, environBuffer, total, room, null);
      total += bytesRead;
      if (bytesRead < room) return total;
    }
  } catch {
    return total; // Ended while being read: what was read is still searched.
  } finally {
    closeSync(descriptor);
  }
}

/** Whether `needle` starts a variable in `environ`: at the start, or right after the NUL ending another. */
function holdsVariable(environ: Buffer, needle: Buffer): boolean {
  for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/** The pids whose environment holds a marker starting with `markerPrefix` (none without /proc). */
export function findMarkedProcesses(markerPrefix: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(`${RUN_MARKER_VARIABLE}=${markerPrefix}`);
  const found: number[] = [];
  // Most entries that cannot be opened are kernel threads: without a stack trace, each failed open
  // costs a fraction of what it would.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (const entry of entries) {
      const first = entry.charCodeAt(0);
      if (first < 48 || first > 57) continue; // Not a process: self, sys, meminfo…
      const pid = Number(entry);
      if (pid === process.pid) continue;
      const length = readEnviron(entry);
      if (length > 0 && holdsVariable(environBuffer.subarray(0, length), needle)) found.push(pid);
    }
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return found;
}

/** Sends `signal` to every process carrying the marker; returns how many were signalled. */
export function killMarkedProcesses(markerPrefix: string, signal: NodeJS.Signals): number {
  let signalled = 0;
  for (const pid of findMarkedProcesses(markerPrefix)) {
    try {
      process.kill(pid, signal);
      signalled += 1;
    } catch {
      // Exited between the scan and the kill.
    }
  }
  return signalled;
}
