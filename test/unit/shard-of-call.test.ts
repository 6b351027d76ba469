// Which shard runs a call: a function of the call's key and N alone, spread evenly, and moving as
// few calls as possible when N grows (so the per-shard caches of a CI matrix stay warm).
import { describe, expect, it } from 'vitest';
import { parseShardSpec, shardOfCallKey } from '../../src/builder/shard-of-call.js';

const keys = Array.from({ length: 20_000 }, (_, index) => `tools/add/${index % 150}/${Math.floor(index / 150)}.json`);

describe('shardOfCallKey', () => {
  it('spreads calls evenly over the shards', () => {
    const counts = new Array(5).fill(0);
    for (const key of keys) counts[shardOfCallKey(key, 5) - 1] += 1;
    for (const count of counts) expect(Math.abs(count - keys.length / 5)).toBeLessThan(keys.length / 5 / 10);
  });

  it('going from N to N+1 shards moves only about 1/(N+1) of the calls, all into the new shard', () => {
    for (const count of [1, 2, 3, 7]) {
      const moved = keys.filter((key) => shardOfCallKey(key, count) !== shardOfCallKey(key, count + 1));
      expect(Math.abs(moved.length / keys.length - 1 / (count + 1))).toBeLessThan(0.02);
      expect(new Set(moved.map((key) => shardOfCallKey(key, count + 1)))).toEqual(new Set([count + 1]));
    }
  });

  it('gives the same shard for the same key, whatever else exists (fixed vectors)', () => {
    expect(keys.slice(0, 8).map((key) => shardOfCallKey(key, 3))).toMatchInlineSnapshot(`
      [
        1,
        3,
        3,
        3,
        3,
        1,
        2,
        2,
      ]
    `);
  });
});

describe('parseShardSpec', () => {
  it('reads I/N and refuses anything else with what a shard looks like', () => {
    expect(parseShardSpec('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShardSpec('1/1')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/3', '4/3', '1/0', '3', '1/3/5', 'a/b', 'two/3', '-1/3', '1/1001', ''])
      expect(() => parseShardSpec(bad), bad).toThrow(/--shard .* is not a shard: it takes I\/N/);
  });
});
