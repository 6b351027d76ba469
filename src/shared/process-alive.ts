// Whether a process id names a running process (ours or another user's): how leftovers of a
// killed build (a half-written tree, a folder of job files) are told from those of a running one.
export function isProcessAlive(pid: number): boolean {
  // 0 and negative numbers name process groups (-1: every process) to kill(2), never one process.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
