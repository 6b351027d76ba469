// isProcessAlive: how a killed build's leftovers are told from a running build's. kill(2) reads 0
// and negative numbers as process groups (-1: every process), so a leftover naming such a pid
// (a damaged record) was taken for a running build's and never removed.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/shared/process-alive.js';

describe('isProcessAlive', () => {
  it('is true for this process and false for one that has ended', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const ended = spawnSync('true');
    expect(ended.error).toBeUndefined();
    expect(isProcessAlive(ended.pid)).toBe(false);
  });

  it('names no process with 0, a negative number or a non-integer', () => {
    for (const pid of [0, -1, -process.pid, Number.NaN, 1.5, Number.MAX_VALUE]) expect(isProcessAlive(pid)).toBe(false);
  });
});
