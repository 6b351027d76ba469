// The content hash's walk of a tree writer's files (tree-writer/hash-walk-order.ts): the build's
// last walk gives the sorted order back window by window as it goes, and still yields every
// slot with its own digest, spilled to disk or held, in the order's sequence, as a generator or
// to a visitor; a walk after it sorts again and yields the same; a walk not told keeps its order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { grownTypedArray } from '../../src/tree-writer/grown-typed-array.js';
import { HashWalkOrder } from '../../src/tree-writer/hash-walk-order.js';
import { SpilledDigests } from '../../src/tree-writer/spilled-digests.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** `count` slots whose digests name them, spilled past the newest few thousand, and a scrambled order of them. */
function slotsAndOrder(count: number) {
  const folder = mkdtempSync(path.join(tmpdir(), 'staticmcp-hash-walk-'));
  folders.push(folder);
  const digests = new SpilledDigests(path.join(folder, 'digests'));
  const digest = Buffer.alloc(32);
  for (let slot = 0; slot < count; slot++) {
    digest.writeUInt32LE(slot, 0);
    digests.set(slot, digest);
  }
  const expected = Array.from({ length: count }, (_, position) => (position * 7_919) % count);
  const sorts: Uint32Array[] = [];
  const sort = (): Uint32Array => {
    // Grown as sort-positions.ts grows its order: in place, past the size kept in plain buffers.
    const order = grownTypedArray(new Uint32Array(0), count);
    order.set(expected);
    sorts.push(order);
    return order;
  };
  return { order: new HashWalkOrder(sort, digests), expected, sorts, digests };
}

/**
 * How many slots the walk yields, how many out of `expected`'s sequence or with a digest not their
 * own, and the order's bytes held early in each window (`watched`: the order walked).
 */
function walked(walk: Iterator<[number, Buffer]>, expected: readonly number[], watched?: Uint32Array) {
  const heldBytes: number[] = [];
  let slots = 0;
  let wrong = 0;
  for (let step = walk.next(); !step.done; step = walk.next()) {
    const [slot, digest] = step.value;
    if (slots % 16_384 === 1 && watched) heldBytes.push(watched.buffer.byteLength);
    if (digest.readUInt32LE(0) !== slot || expected[slots] !== slot) wrong += 1;
    slots += 1;
  }
  return { slots, wrong, heldBytes };
}

describe('the content hash walk order', () => {
  // 100,003 slots: six windows and part of a seventh, the order past the plain buffers' size.
  const count = 100_003;

  it('gives its order back window by window on the last walk, yielding the same slots and digests', () => {
    const { order, expected, sorts, digests } = slotsAndOrder(count);
    order.giveBackByNextWalk();
    const walk = order.walk();
    // The first slot taken sorts the order; its digest is a view, read before the next.
    const [firstSlot, firstDigest] = walk.next().value!;
    expect([firstSlot, firstDigest.readUInt32LE(0)]).toEqual([expected[0], expected[0]]);
    const sorted = sorts[0]!;
    const last = walked(walk, expected.slice(1), sorted);
    expect(last).toMatchObject({ slots: count - 1, wrong: 0 });
    // Each window given back as it is taken: the order held shrinks, and none is left at the end.
    expect(last.heldBytes.length).toBeGreaterThanOrEqual(5);
    for (let index = 1; index < last.heldBytes.length; index++)
      expect(last.heldBytes[index]!).toBeLessThan(last.heldBytes[index - 1]!);
    expect(last.heldBytes[0]!).toBeLessThan(count * 4);
    expect(sorted.buffer.byteLength).toBe(0);
    // A walk after it sorts again and yields the same.
    expect(walked(order.walk(), expected)).toMatchObject({ slots: count, wrong: 0 });
    expect(sorts).toHaveLength(2);
    digests.close();
  });

  it('walks the same with a visitor (the content hash walk), giving the order back likewise', () => {
    const { order, expected, sorts, digests } = slotsAndOrder(count);
    order.giveBackByNextWalk();
    const heldBytes: number[] = [];
    let visits = 0;
    let wrong = 0;
    order.forEach((slot, digest) => {
      if (visits % 16_384 === 1) heldBytes.push(sorts[0]!.buffer.byteLength);
      if (digest.readUInt32LE(0) !== slot || expected[visits] !== slot) wrong += 1;
      visits += 1;
    });
    expect({ visits, wrong }).toEqual({ visits: count, wrong: 0 });
    expect(heldBytes[0]!).toBeLessThan(count * 4);
    for (let index = 1; index < heldBytes.length; index++)
      expect(heldBytes[index]!).toBeLessThan(heldBytes[index - 1]!);
    expect(sorts[0]!.buffer.byteLength).toBe(0);
    // Not told: the order is kept, and the generator's walk after it yields the same.
    order.forEach(() => {});
    expect(walked(order.walk(), expected)).toMatchObject({ slots: count, wrong: 0 });
    expect(sorts).toHaveLength(2);
    expect(sorts[1]!.buffer.byteLength).toBe(count * 4);
    digests.close();
  });

  it('keeps its order for the next walk when not told the walk is the last', () => {
    const { order, expected, sorts, digests } = slotsAndOrder(count);
    expect(walked(order.walk(), expected)).toMatchObject({ slots: count, wrong: 0 });
    expect(walked(order.walk(), expected)).toMatchObject({ slots: count, wrong: 0 });
    expect(sorts).toHaveLength(1);
    expect(sorts[0]!.buffer.byteLength).toBe(count * 4);
    digests.close();
  });
});
