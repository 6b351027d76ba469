// Ending a run: SIGTERM to the run's process group and to every process that carries its marker
// (a `setsid` child too), then SIGKILL after a grace period if anything is left.
import { killMarkedProcesses } from '../kill-marked-processes.js';

export const DEFAULT_KILL_GRACE_MS = 1000;

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The run's process group, and every process that carries its marker. */
export function killRun(pid: number | undefined, marker: string, signal: NodeJS.Signals): void {
  killGroup(pid, signal);
  killMarkedProcesses(marker, signal);
}

export interface Terminator {
  /** SIGTERM now, SIGKILL after the grace period (once, however often it is called). */
  terminate(): void;
  /** SIGKILL now, no grace. */
  killNow(): void;
  /** Forgets the pending SIGKILL (the run is over). */
  dispose(): void;
}

export function createTerminator(pid: number | undefined, marker: string, graceMs = DEFAULT_KILL_GRACE_MS): Terminator {
  let killTimer: NodeJS.Timeout | undefined;
  return {
    terminate() {
      killRun(pid, marker, 'SIGTERM');
      killTimer ??= setTimeout(() => killRun(pid, marker, 'SIGKILL'), graceMs);
    },
    killNow: () => killRun(pid, marker, 'SIGKILL'),
    dispose: () => clearTimeout(killTimer),
  };
}
