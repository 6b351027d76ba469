// Setup file (vitest.config.ts) that, when STATICMCP_TEST_CPU_LOG names a file, appends one JSON
// line per test file to it: the file and the CPU seconds its worker and the processes it started
// and waited for used while the file ran (Linux /proc; user + system, children included), and what
// the processes it started left unreaped (a browser's renderers: process-tree-cpu.ts). On
// 2 cores the suite is bound by CPU, so this says which file to make cheaper; wall times only
// say which file waited longest. With STATICMCP_TEST_CPU_LOG_TESTS=1 it also appends a line per
// test (`test` names it), to find the test that costs a file its CPU.
// A file's line also splits out the system seconds and the minor page faults (its worker's own
// and, in all, with the waited-for children's): in a virtual machine where each fault traps to the
// hypervisor, faults are much of the system time, and a worker's own faults grow with each process
// it forks (every page it writes afterwards faults once more).
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { takeUnreapedCpu } from './process-tree-cpu.js';

const CLOCK_TICKS_PER_SECOND = 100;

interface Usage {
  /** User + system seconds of this process and of its waited-for children. */
  cpuSeconds: number;
  /** The system part of cpuSeconds. */
  systemSeconds: number;
  /** Minor page faults of this process alone. */
  ownFaults: number;
  /** Minor page faults of this process and of its waited-for children. */
  faults: number;
}

/** What this process and its waited-for children have used so far; undefined off Linux. */
function readUsage(): Usage | undefined {
  try {
    // Fields after the command's closing parenthesis: minflt, cminflt are 10–11 of the line;
    // utime, stime, cutime, cstime 14–17.
    const fields = (readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? []).map(Number);
    const at = (index: number): number => fields[index] ?? 0;
    return {
      cpuSeconds: (at(11) + at(12) + at(13) + at(14)) / CLOCK_TICKS_PER_SECOND,
      systemSeconds: (at(12) + at(14)) / CLOCK_TICKS_PER_SECOND,
      ownFaults: at(7),
      faults: at(7) + at(8),
    };
  } catch {
    return undefined;
  }
}

const readCpuSeconds = (): number | undefined => readUsage()?.cpuSeconds;

const logFile = process.env.STATICMCP_TEST_CPU_LOG;
if (logFile) {
  const start = readUsage();
  // A previous file's leftovers, had its line not been written.
  takeUnreapedCpu();
  let file = '';
  beforeAll(() => {
    file = expect.getState().testPath ?? '';
  });
  afterAll(() => {
    const end = readUsage();
    if (start === undefined || end === undefined) return;
    const cpuSeconds = end.cpuSeconds - start.cpuSeconds + takeUnreapedCpu();
    const line = {
      file,
      cpuSeconds: Math.round(cpuSeconds * 10) / 10,
      systemSeconds: Math.round((end.systemSeconds - start.systemSeconds) * 10) / 10,
      faults: end.faults - start.faults,
      workerFaults: end.ownFaults - start.ownFaults,
    };
    appendFileSync(logFile, `${JSON.stringify(line)}\n`);
  });
  if (process.env.STATICMCP_TEST_CPU_LOG_TESTS === '1') {
    let testStart: number | undefined;
    beforeEach(() => {
      testStart = readCpuSeconds();
    });
    afterEach((context) => {
      const end = readCpuSeconds();
      if (testStart === undefined || end === undefined) return;
      const cpuSeconds = Math.round((end - testStart) * 100) / 100;
      appendFileSync(logFile, `${JSON.stringify({ file, test: context.task.name, cpuSeconds })}\n`);
    });
  }
}
