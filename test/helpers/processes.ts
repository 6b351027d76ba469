// Watching processes and conditions from a test: liveness of a pid, polling with a deadline.
export { isProcessAlive as isAlive } from '../../src/shared/process-alive.js';

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
