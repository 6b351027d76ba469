// The tree writer's front- and back-coded path record (src/tree-writer/prefix-coded-paths.ts): every path
// comes back byte for byte whatever order it is asked for in (within a block, across blocks, the
// newest one, long paths whose lengths take more than one varint byte, paths sharing a prefix and a
// tail with the one before however the two meet), equality finds exactly the
// path recorded, and both comparisons give the orders the tree needs: by UTF-8 bytes (the content
// hash) and as `<` compares strings (the pack step), characters past U+FFFF included.
import { describe, expect, it } from 'vitest';
import { PrefixCodedPaths } from '../../src/tree-writer/prefix-coded-paths.js';

const compareStrings = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/** A deterministic pseudo-random number generator (mulberry32). */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function recorded(paths: readonly string[]): PrefixCodedPaths {
  const list = new PrefixCodedPaths();
  for (const path of paths) {
    const bytes = Buffer.from(path);
    // The caller's buffer is longer than the path and reused: only `length` bytes are the path.
    const probe = Buffer.concat([bytes, Buffer.from('garbage')]);
    list.push(probe, bytes.length);
    probe.fill(0);
  }
  return list;
}

function pathsLike(count: number, seed: number): string[] {
  const random = randomFrom(seed);
  const pieces = ['a', 'é', '中', '\uE000', '\uFFFF', '😀', '𐀀', 'z', '~'];
  const paths: string[] = [];
  for (let index = 0; index < count; index++) {
    const first = Math.floor(index / 7);
    const piece = pieces[Math.floor(random() * pieces.length)]!;
    // Mostly neighbours sharing a long prefix, now and then a long path or one sharing nothing.
    const roll = random();
    if (roll < 0.05) paths.push(`resources/${'long-segment/'.repeat(20)}${piece}${index}.json`);
    else if (roll < 0.1) paths.push(`${piece}${index}`);
    else paths.push(`tools/grid/${first}/${piece}${Math.floor(random() * 100)}-${index}.json`);
  }
  return paths;
}

describe('PrefixCodedPaths', () => {
  it('gives back paths that share both ends with the one before, however the two ends meet', () => {
    // Few characters and short paths: prefixes and tails of every length, overlapping ones too.
    const random = randomFrom(3);
    const alphabet = ['a', 'b', '/', '.', 'é'];
    const paths = Array.from({ length: 4000 }, () =>
      Array.from({ length: Math.floor(random() * 9) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
    paths.push('tools/grid/1/11.json', 'tools/grid/1/111.json', 'tools/grid/1/1.json', 'tools/grid/11/1.json', '');
    // Tails past one byte's worth (126, 127, 200 bytes shared at the end), middles past 7 bytes.
    for (const tail of [15, 16, 126, 127, 200])
      paths.push(`x${'t'.repeat(tail)}`, `y${'t'.repeat(tail)}`, `tools/grid/1/${'m'.repeat(8)}${'t'.repeat(tail)}`);
    const list = recorded(paths);
    const random2 = randomFrom(4);
    for (let round = 0; round < 8000; round++) {
      const slot = round < paths.length ? round : Math.floor(random2() * paths.length);
      const bytes = Buffer.from(paths[slot]!);
      expect(list.byteLengthAt(slot)).toBe(bytes.length);
      expect(list.bytesAt(slot).toString('utf8')).toBe(paths[slot]);
      expect(list.equals(slot, bytes, bytes.length)).toBe(true);
    }
  });

  it('gives back every path byte for byte, in order, backwards and at random', () => {
    const paths = pathsLike(5000, 1);
    const list = recorded(paths);
    expect(list.length).toBe(paths.length);
    const at = (slot: number) => list.bytesAt(slot).toString('utf8');
    expect(paths.map((_, slot) => at(slot))).toEqual(paths);
    for (let slot = paths.length - 1; slot >= 0; slot--) expect(at(slot)).toBe(paths[slot]);
    const random = randomFrom(2);
    for (let round = 0; round < 5000; round++) {
      const slot = Math.floor(random() * paths.length);
      expect(at(slot)).toBe(paths[slot]);
      expect(list.byteLengthAt(slot)).toBe(Buffer.byteLength(paths[slot]!));
    }
  });

  it('finds a path equal only to the very bytes recorded', () => {
    const paths = pathsLike(600, 3);
    const list = recorded(paths);
    for (const [slot, path] of paths.entries()) {
      const bytes = Buffer.from(`${path}!`);
      expect(list.equals(slot, bytes, bytes.length - 1)).toBe(true);
      expect(list.equals(slot, bytes, bytes.length)).toBe(false);
      expect(list.equals(slot, bytes, bytes.length - 2)).toBe(false);
      const other = paths[(slot + 1) % paths.length]!;
      if (other !== path) expect(list.equals(slot, Buffer.from(other), Buffer.byteLength(other))).toBe(false);
    }
  });

  it('compares as the bytes do and as the strings do, one side staying put or not', () => {
    const paths = pathsLike(400, 4);
    const list = recorded(paths);
    const random = randomFrom(5);
    for (let round = 0; round < 20_000; round++) {
      const left = Math.floor(random() * paths.length);
      // Merges keep one side for several comparisons: half the time the left one stays.
      const right =
        round % 2 === 0 ? (left + 1 + Math.floor(random() * 20)) % paths.length : Math.floor(random() * paths.length);
      const bytes = Math.sign(list.compare(left, right, false));
      expect(bytes).toBe(Math.sign(Buffer.compare(Buffer.from(paths[left]!), Buffer.from(paths[right]!))));
      expect(Math.sign(list.compare(left, right, true))).toBe(compareStrings(paths[left]!, paths[right]!));
    }
  });
});
