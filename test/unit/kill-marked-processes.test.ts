// The scan that finds a run's processes by the marker in their environment, against real
// processes: the marker is found wherever it sits and however large the environment, never in
// another variable's value, and the processes it finds are the ones killed.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRunMarker,
  findMarkedProcesses,
  killMarkedProcesses,
  RUN_MARKER_VARIABLE,
} from '../../src/script/kill-marked-processes.js';
import { isAlive, waitUntil } from '../helpers/processes.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A `sleep` with exactly `env` (PATH aside), its pid known. */
function sleeper(env: Record<string, string>): number {
  const child = spawn('sleep', ['60'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: 'ignore' });
  started.push(child);
  if (child.pid === undefined) throw new Error('sleep did not start');
  return child.pid;
}

describe.skipIf(process.platform !== 'linux')('findMarkedProcesses', () => {
  it('finds the marker after other variables and after an environment larger than its buffer', () => {
    const marker = createRunMarker();
    const first = sleeper({ [RUN_MARKER_VARIABLE]: `${marker}-1.` });
    const late = sleeper({ AAA: 'x'.repeat(60_000), BBB: 'y'.repeat(60_000), [RUN_MARKER_VARIABLE]: `${marker}-2.` });
    const other = sleeper({ [RUN_MARKER_VARIABLE]: `${createRunMarker()}-1.` });
    const found = findMarkedProcesses(`${marker}-`);
    expect(found).toEqual(expect.arrayContaining([first, late]));
    expect(found).not.toContain(other);
    expect(findMarkedProcesses(`${marker}-2.`)).toEqual([late]);
  });

  it('does not take the marker inside another variable for the variable itself', () => {
    const marker = createRunMarker();
    const decoyOnly = sleeper({ DECOY: `${RUN_MARKER_VARIABLE}=${marker}-1.` });
    const decoyThenReal = sleeper({
      A_DECOY: `${RUN_MARKER_VARIABLE}=${marker}-1.`,
      [RUN_MARKER_VARIABLE]: `${marker}-1.`,
    });
    const found = findMarkedProcesses(`${marker}-`);
    expect(found).toContain(decoyThenReal);
    expect(found).not.toContain(decoyOnly);
  });

  it('kills what it finds and nothing else', async () => {
    const marker = createRunMarker();
    const marked = sleeper({ [RUN_MARKER_VARIABLE]: `${marker}-1.` });
    const unmarked = sleeper({});
    expect(killMarkedProcesses(`${marker}-`, 'SIGKILL')).toBe(1);
    await waitUntil(() => !isAlive(marked), 5_000, 'the marked sleep to die');
    expect(isAlive(unmarked)).toBe(true);
  });
});
