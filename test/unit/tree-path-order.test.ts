// The order files enter the content hash is the byte order of their paths' UTF-8 (docs/tree-format.md "The
// content hash"): what `LC_ALL=C sort` gives and what the tree writer sorts on its stored bytes,
// so a tool in any language recomputes the same hash. Compared here with Buffer.compare over
// seeded random paths mixing ASCII, U+E000–U+FFFF and characters above U+FFFF (where JavaScript's
// default sort disagrees).
import { describe, expect, it } from 'vitest';
import { compareTreePaths, sortTreePaths } from '../../src/tree-writer/content-hash.js';
import { pick, random } from '../helpers/random.js';

const PIECES = ['a', 'b', 'Z', '/', '.', '-', 'é', '\u{e000}', '\u{ff01}', '\u{fffd}', '\u{1f600}', '\u{10000}', '日'];

function byUtf8(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left), Buffer.from(right));
}

describe('the content hash’s path order', () => {
  it('is the UTF-8 byte order, where JavaScript’s default sort is not', () => {
    expect(sortTreePaths(['t/\u{1f600}.json', 't/\u{ff01}.json'])).toEqual(['t/\u{ff01}.json', 't/\u{1f600}.json']);
    expect(['t/\u{1f600}.json', 't/\u{ff01}.json'].sort()).toEqual(['t/\u{1f600}.json', 't/\u{ff01}.json']);
  });

  it('agrees with Buffer.compare on 20,000 random pairs', () => {
    const next = random(14);
    const make = (): string => Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(next, PIECES)).join('');
    for (let pair = 0; pair < 20_000; pair++) {
      const left = make();
      const right = next() < 0.2 ? left : make();
      expect(Math.sign(compareTreePaths(left, right)), `${left} vs ${right}`).toBe(Math.sign(byUtf8(left, right)));
    }
  });
});
