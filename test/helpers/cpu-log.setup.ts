// Setup file (vitest.config.ts) that, when STATICMCP_TEST_CPU_LOG names a file, appends one JSON
// line per test file to it: the file and the CPU seconds its worker and the processes it started
// and waited for used while the file ran (Linux /proc; user + system, children included), and what
// the processes it started left unreaped (a browser's renderers: process-tree-cpu.ts). On
// 2 cores the suite is bound by CPU, so this says which file to make cheaper; wall times only
// say which file waited longest. With STATICMCP_TEST_CPU_LOG_TESTS=1 it also appends a line per
// test (`test` names it), to find the test that costs a file its CPU.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { takeUnreapedCpu } from './process-tree-cpu.js';

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds of this process and of its waited-for children so far; undefined off Linux. */
function readCpuSeconds(): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are 14–17 of the line.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

const logFile = process.env.STATICMCP_TEST_CPU_LOG;
if (logFile) {
  const start = readCpuSeconds();
  // A previous file's leftovers, had its line not been written.
  takeUnreapedCpu();
  let file = '';
  beforeAll(() => {
    file = expect.getState().testPath ?? '';
  });
  afterAll(() => {
    const end = readCpuSeconds();
    if (start === undefined || end === undefined) return;
    const cpuSeconds = end - start + takeUnreapedCpu();
    appendFileSync(logFile, `${JSON.stringify({ file, cpuSeconds: Math.round(cpuSeconds * 10) / 10 })}\n`);
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
