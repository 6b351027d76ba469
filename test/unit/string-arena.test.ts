// The pack step's compact string list (src/tree-writer/string-arena.ts): what goes in comes back
// the same, and its sort gives exactly the order a sort of the strings gives, characters past
// U+FFFF against U+E000-U+FFFF included (UTF-8 bytes and UTF-16 code units disagree there), so
// the records digest and the packs' order are the ones a string sort gives.
import { describe, expect, it } from 'vitest';
import { compareUtf8 } from '../../src/tree-writer/search-posting-runs.js';
import { StringArena } from '../../src/tree-writer/string-arena.js';

const compareStrings = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

describe('StringArena', () => {
  it('gives back every string as it went in, in order, past its first growth', () => {
    const arena = new StringArena();
    const texts = Array.from({ length: 3000 }, (_, position) => `tools/capital/country-${position}-é😀.json`);
    for (const text of texts) arena.push(text);
    expect(arena.length).toBe(texts.length);
    expect(Array.from({ length: arena.length }, (_, position) => arena.at(position))).toEqual(texts);
  });

  it('sorts as a sort of the strings does, whatever the characters', () => {
    const alphabet = [
      'a',
      'z',
      '~',
      'é',
      'ÿ',
      'Ā',
      '中',
      '\uD7FF',
      '\uE000',
      '\uFFFD',
      '\uFFFF',
      '😀',
      '𐀀',
      '\u{10FFFF}',
    ];
    const texts = mixedTexts(alphabet);
    const arena = new StringArena();
    for (const text of texts) arena.push(text);
    const sorted = Array.from(arena.sortedPositions(), (position) => arena.at(position));
    expect(sorted).toEqual([...texts].sort(compareStrings));
    // The search index numbers its documents in UTF-8 order, from the ids held here (compareBytes).
    const positions = texts.map((_, position) => position);
    const byBytes = positions.sort((left, right) => arena.compareBytes(left, right)).map((position) => texts[position]);
    expect(byBytes).toEqual([...texts].sort(compareUtf8));
    // Equal ids compare equal (the index writer refuses an id twice).
    const again = arena.push(texts[5]!);
    expect(arena.compareBytes(5, again)).toBe(0);
    expect(Math.sign(arena.compareBytes(again, 6))).toBe(Math.sign(compareUtf8(texts[5]!, texts[6]!)));
  });
});

/** 2,000 short strings of `alphabet`'s characters, and the empty one first. */
function mixedTexts(alphabet: readonly string[]): string[] {
  const texts: string[] = [''];
  let seed = 7;
  for (let count = 0; count < 2000; count++) {
    let text = '';
    for (let length = count % 5; length >= 0; length--) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      text += alphabet[seed % alphabet.length];
    }
    texts.push(text);
  }
  return texts;
}
