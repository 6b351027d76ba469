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

export interface Terminator {
  /** SIGTERM now, SIGKILL after the grace period (once, however often it is called). */
  terminate(): void;
  /** SIGKILL now, no grace. */
  killNow(): void;
  /**
   * The run's leader was reaped (and its group killed with it): from now on only marked processes
   * are signalled. Once a group empties the system may give its number to an unrelated process
   * group, which a kill by that number would hit.
   */
  forgetGroup(): void;
  /** Forgets the pending SIGKILL (the run is over). */
  dispose(): void;
}

export function createTerminator(pid: number | undefined, marker: string, graceMs = DEFAULT_KILL_GRACE_MS): Terminator {
  let killTimer: NodeJS.Timeout | undefined;
  let group = pid;
  const killRun = (signal: NodeJS.Signals): void => {
    killGroup(group, signal);
    killMarkedProcesses(marker, signal);
  };
  return {
    terminate() {
      killRun('SIGTERM');
      killTimer ??= setTimeout(() => killRun('SIGKILL'), graceMs);
    },
    killNow: () => killRun('SIGKILL'),
    forgetGroup: () => {
      group = undefined;
    },
    dispose: () => clearTimeout(killTimer),
  };
}
