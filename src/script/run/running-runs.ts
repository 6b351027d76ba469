// The script runs of this process that are running now (each as the function that kills it at
// once), so a process that must end at once (an uncaught exception, `process.exit` from anywhere)
// kills them rather than leave them reparented to PID 1: runs are detached into groups of their
// own, so nothing else would end them. No imports: every server's process guard loads this at
// start-up, and the killing code (terminate.ts, node:crypto behind it) loads with the first run.

const running = new Set<() => void>();

/** Records a started run and how to SIGKILL it; the function returned forgets it (call it once the run is over). */
export function trackRunningRun(pid: number | undefined, killNow: () => void): () => void {
  if (pid === undefined) return () => {};
  running.add(killNow);
  return () => {
    running.delete(killNow);
  };
}

/** SIGKILL to every running run's group and marked processes, synchronously; returns how many. */
export function killEveryRunningRun(): number {
  const count = running.size;
  for (const killNow of running) killNow();
  running.clear();
  return count;
}
