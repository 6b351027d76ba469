// Whether a process id names a running process (ours or another user's): how leftovers of a
// killed build (a half-written tree, a folder of job files) are told from those of a running one.
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
