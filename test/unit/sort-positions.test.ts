// sortPositions (tree-writer/sort-positions.ts), the merge sort the tree writer and the pack step
// order paths and records with: the order a stable sort of the same keys gives, whether the input
// comes shuffled, already in order (runs left in place after one comparison), in runs, or
// reversed; with scratch for half the positions.
import { describe, expect, it } from 'vitest';
import { sortPositions } from '../../src/tree-writer/sort-positions.js';

function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** The positions of `keys` sorted by key, ties in position order (what a stable sort gives). */
function stableOrder(keys: readonly number[]): number[] {
  return keys.map((_, position) => position).sort((left, right) => keys[left]! - keys[right]! || left - right);
}

function sorted(keys: readonly number[]): number[] {
  const order = Uint32Array.from(keys, (_, position) => position);
  let comparisons = 0;
  sortPositions(order, (left, right) => {
    comparisons += 1;
    return keys[left]! - keys[right]!;
  });
  return [...order, comparisons];
}

describe('sortPositions', () => {
  const random = randomFrom(7);
  const count = 5000;
  const inputs: Record<string, number[]> = {
    shuffled: Array.from({ length: count }, () => Math.floor(random() * 1000)),
    'in order': Array.from({ length: count }, (_, index) => index),
    'in order with ties': Array.from({ length: count }, (_, index) => Math.floor(index / 7)),
    'two interleaved runs': Array.from({ length: count }, (_, index) =>
      index < count / 2 ? index * 2 : (index - count / 2) * 2 + 1,
    ),
    'runs of 100': Array.from({ length: count }, (_, index) => (index % 100) * 1000 + Math.floor(index / 100)),
    reversed: Array.from({ length: count }, (_, index) => count - index),
    'a few out of place': Array.from({ length: count }, (_, index) => (index % 997 === 0 ? count - index : index)),
  };
  for (const [name, keys] of Object.entries(inputs))
    it(`orders ${name} keys as a stable sort does`, () => {
      const result = sorted(keys);
      expect(result.slice(0, -1)).toEqual(stableOrder(keys));
    });

  it('holds scratch for at most half the positions while it sorts', () => {
    // A sort of a whole tree's files is part of the content hash's peak: its scratch counts there.
    // This many positions keep the scratch in a plain buffer (counted as array-buffer bytes).
    const many = 60_000;
    const keys = Array.from({ length: many }, () => Math.floor(random() * many));
    const order = Uint32Array.from(keys, (_, position) => position);
    const before = process.memoryUsage().arrayBuffers;
    let most = 0;
    let comparisons = 0;
    sortPositions(order, (left, right) => {
      if (++comparisons % 10_000 === 0) most = Math.max(most, process.memoryUsage().arrayBuffers - before);
      return keys[left]! - keys[right]!;
    });
    expect(most).toBeGreaterThanOrEqual((many / 2) * 4);
    expect(most).toBeLessThan((many / 2) * 4 + 16 * 1024);
    expect([...order]).toEqual(stableOrder(keys));
  });

  it('takes about one comparison a position for keys already in order', () => {
    const comparisons = sorted(inputs['in order']!).at(-1)!;
    expect(comparisons).toBeLessThan(count * 1.1);
  });
});
