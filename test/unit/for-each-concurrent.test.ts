// The build's stream runner: items are pulled only as workers free up (so a stream of any length
// holds a bounded number in memory), each goes to exactly one worker, and the first error ends
// the stream (its generator is closed) once the items in flight are done, then is thrown.
import { describe, expect, it } from 'vitest';
import { forEachConcurrent } from '../../src/builder/map-concurrent.js';

describe('forEachConcurrent', () => {
  it('pulls at most `concurrency` items ahead of the workers and hands each to one worker', async () => {
    let pulled = 0;
    let finished = 0;
    let mostAhead = 0;
    async function* numbers(): AsyncGenerator<number> {
      for (let value = 0; value < 200; value++) {
        pulled += 1;
        mostAhead = Math.max(mostAhead, pulled - finished);
        yield value;
      }
    }
    const seen: number[] = [];
    await forEachConcurrent(
      numbers(),
      async (value) => {
        await new Promise((resolve) => setTimeout(resolve, value % 3));
        seen.push(value);
        finished += 1;
      },
      3,
    );
    expect(mostAhead).toBeLessThanOrEqual(3);
    expect(seen.sort((left, right) => left - right)).toEqual(Array.from({ length: 200 }, (_, index) => index));
  });

  it('throws the first error after the items in flight finish, and closes the stream', async () => {
    let closed = false;
    let started = 0;
    function* numbers(): Generator<number> {
      try {
        for (let value = 0; value < 1_000; value++) yield value;
      } finally {
        closed = true;
      }
    }
    const finishedAfterFailure: number[] = [];
    let failed = false;
    const run = forEachConcurrent(
      numbers(),
      async (value) => {
        started += 1;
        if (value === 5) {
          failed = true;
          throw new Error('disk full at 5');
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (failed) finishedAfterFailure.push(value);
      },
      2,
    );
    await expect(run).rejects.toThrow('disk full at 5');
    expect(closed).toBe(true);
    expect(started).toBeLessThan(10);
    expect(finishedAfterFailure.length).toBeGreaterThan(0);
  });
});
