// Watching processes and conditions from a test: liveness of a pid or a process group, polling
// with a deadline.
export { isProcessAlive as isAlive } from '../../src/shared/process-alive.js';

/** Whether any process is in process group `pgid`. */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export const isRoot = process.getuid?.() === 0;

/** Polls `check` every 50 ms until it returns a value other than undefined/false. */
export async function waitUntil<T>(
  check: () => T | undefined | false,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
