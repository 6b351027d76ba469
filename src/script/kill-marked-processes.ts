// Every process a run started, even one that left the run's process group with `setsid`: each run
// gets a random marker in its environment (STATICMCP_RUN_ID), which descendants inherit however
// they detach, and on Linux /proc/<pid>/environ shows it (as the process was started, even if it
// unset the variable later). Killing a run kills its group and every process with its marker.
// Elsewhere (no /proc) only the process group is guaranteed, and a process that clears its whole
// environment before exec escapes the marker: both are documented in docs/scripts.md.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export const RUN_MARKER_VARIABLE = 'STATICMCP_RUN_ID';

export function createRunMarker(): string {
  return randomBytes(12).toString('hex');
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
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue; // Gone already, or not ours to read.
    }
    const at = environ.indexOf(needle);
    // A whole variable: at the start, or right after the NUL that ends the previous one.
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(pid);
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
