// The script runs of this process that are running now (pid of the run's process group and its
// marker), so a process that must end at once (an uncaught exception, `process.exit` from
// anywhere) kills them rather than leave them reparented to PID 1: runs are detached into groups
// of their own, so nothing else would end them.
import { killRun } from './terminate.js';

const running = new Map<number, string>();

/** Records a started run; the function returned forgets it (call it once the run is over). */
export function trackRunningRun(pid: number | undefined, marker: string): () => void {
  if (pid === undefined) return () => {};
  running.set(pid, marker);
  return () => {
    if (running.get(pid) === marker) running.delete(pid);
  };
}

/** SIGKILL to every running run's group and marked processes, synchronously; returns how many. */
export function killEveryRunningRun(): number {
  const count = running.size;
  for (const [pid, marker] of running) killRun(pid, marker, 'SIGKILL');
  running.clear();
  return count;
}
