// Waiting for an event with the work a process may spend on it as the bound, not the wall clock:
// the CPU a process uses for a task stays the same on a loaded machine, where its wall time grows
// with the load. A process that waits without working is left to the test's own timeout.
import { readCpuMs } from './process-tree-cpu.js';

/**
 * Resolves with `check`'s first value that is neither undefined nor false, polled every 50 ms;
 * throws once process `pid` has used more than `cpuBudgetMs` of CPU since the call without it.
 */
export async function waitUntilWithinCpu<T>(
  check: () => T | undefined | false,
  pid: number,
  cpuBudgetMs: number,
  what: string,
): Promise<T> {
  const cpuBeforeMs = readCpuMs(pid);
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    const spentMs = readCpuMs(pid) - cpuBeforeMs;
    if (spentMs > cpuBudgetMs)
      throw new Error(`${what} did not happen within ${cpuBudgetMs} ms of CPU (${spentMs} ms used)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
