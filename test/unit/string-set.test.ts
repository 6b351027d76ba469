// The document lister's set of URIs listed so far (src/core/search/string-set.ts): it answers as a
// Set of the strings would, so a repeated resource is skipped and no other one is, past its table's
// and its chunks' growth, for any characters (lone surrogates, which UTF-8 cannot tell apart, too).
import { describe, expect, it } from 'vitest';
import { StringSet } from '../../src/core/search/string-set.js';

describe('StringSet', () => {
  it('adds each string once, as a Set does, past its growth', () => {
    const set = new StringSet();
    const reference = new Set<string>();
    const texts = Array.from(
      { length: 20_000 },
      (_, position) => `resource://part-${(position % 15_000) % 97}/doc-${position % 15_000}-é😀.md`,
    );
    for (const text of texts) {
      expect(set.add(text)).toBe(!reference.has(text));
      reference.add(text);
    }
    expect(set.size).toBe(reference.size);
    expect(set.size).toBe(15_000);
  });

  it('tells apart strings of one hash length and prefix, the empty one, and one longer than a chunk', () => {
    const set = new StringSet();
    const long = 'x'.repeat(100_000);
    for (const text of ['', 'a', 'b', 'ab', 'ba', long, `${long}y`]) expect(set.add(text)).toBe(true);
    for (const text of ['', 'ab', long, `${long}y`]) expect(set.add(text)).toBe(false);
    expect(set.add('c')).toBe(true);
    expect(set.size).toBe(8);
  });

  it('keeps strings with lone surrogates apart (UTF-8 would make each one U+FFFD)', () => {
    const set = new StringSet();
    expect(set.add('doc-\ud800')).toBe(true);
    expect(set.add('doc-\udc00')).toBe(true);
    expect(set.add('doc-\ufffd')).toBe(true);
    expect(set.add('doc-\ud800')).toBe(false);
    expect(set.add('doc-\ud83d\ude00')).toBe(true);
    expect(set.add('doc-😀')).toBe(false);
  });
});
