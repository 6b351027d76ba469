// sameJson (canonical-json.ts) tells whether a call's arguments are the ones its file records: it
// must agree with comparing the two values' canonical JSON text, which is what it means, for
// every value a client or a tree can hold and for the odd ones (undefined members, NaN, -0).
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from '../../src/core/tree/canonical-json.js';
import { pick, random } from '../helpers/random.js';

const SCALARS: unknown[] = ['', 'a', 'b', '1', 0, -0, 1, 1.5, true, false, null, undefined, Number.NaN, Infinity];

/** A random JSON-ish value of at most `depth` levels, drawn from few values so that pairs often match. */
function randomValue(next: () => number, depth: number): unknown {
  const kind = depth > 0 ? pick(next, ['scalar', 'scalar', 'array', 'object']) : 'scalar';
  if (kind === 'scalar') return pick(next, SCALARS);
  const length = Math.floor(next() * 3);
  if (kind === 'array') return Array.from({ length }, () => randomValue(next, depth - 1));
  const object: Record<string, unknown> = {};
  for (let index = 0; index < length; index += 1) object[pick(next, ['a', 'b', 'c'])] = randomValue(next, depth - 1);
  return object;
}

describe('sameJson', () => {
  it('ignores key order and members that are undefined', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ n: 1 }, { n: '1' })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson([], {})).toBe(false);
  });

  it('agrees with comparing canonical JSON text over 20,000 random pairs', () => {
    const next = random(43);
    for (let index = 0; index < 20_000; index += 1) {
      const left = randomValue(next, 3);
      const right = next() < 0.3 ? structuredClone(left) : randomValue(next, 3);
      const expected = canonicalJson(left) === canonicalJson(right);
      if (sameJson(left, right) !== expected) expect({ left, right, same: sameJson(left, right) }).toBe(expected);
    }
  });
});
