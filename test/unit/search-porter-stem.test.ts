// The Porter stems search indexes and queries with (issue #40) are npm `stemmer`'s, the algorithm
// of SQLite FTS5's `porter` tokenizer, though ours are found by string tests, not its regular
// expressions: a stem that differed would put a word under another key than an index built before
// holds it, and move the ranking away from FTS5's. Compared over real English (the words of this
// repository's docs, its packages' READMEs and TypeScript's documented library and compiler),
// every word of up to four letters,
// and words made of Porter's suffixes, doubled letters and y's in every order.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { porterStemOf } from '../../src/core/search/porter-stem.js';
import { stemOf } from '../../src/core/search/stem.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { pick, random } from '../helpers/random.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Words whose stems differ, as `word: ours ≠ stemmer's`; empty when all agree. */
function differences(words: Iterable<string>): string[] {
  const found: string[] = [];
  for (const word of words) {
    const expected = stemmer(word);
    const ours = porterStemOf(word);
    if (ours !== expected) found.push(`${word}: ${ours} ≠ ${expected}`);
  }
  return found;
}

/** The distinct lowercase ASCII words of `files` (those that exist); how many were read. */
async function addWordsOf(files: string[], into: Set<string>): Promise<number> {
  let read = 0;
  for (const file of files) {
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    read += 1;
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) into.add(word);
  }
  return read;
}

/** The docs, each package's README and TypeScript's library declarations and compiler. */
async function englishFiles(): Promise<string[]> {
  const modules = path.join(REPO_ROOT, 'node_modules');
  const files = (await fs.readdir(path.join(REPO_ROOT, 'docs'))).map((name) => path.join(REPO_ROOT, 'docs', name));
  for (const name of await fs.readdir(modules)) {
    const scoped = name.startsWith('@') ? await fs.readdir(path.join(modules, name)) : [''];
    for (const inner of scoped) files.push(path.join(modules, name, inner, 'README.md'));
  }
  const typescript = path.join(modules, 'typescript', 'lib');
  for (const name of await fs.readdir(typescript))
    if (name.endsWith('.d.ts') || name === 'typescript.js') files.push(path.join(typescript, name));
  return files;
}

describe('Porter stems without regular expressions', () => {
  it('stems the words of real English text as stemmer does', async () => {
    const words = new Set<string>();
    expect(await addWordsOf(await englishFiles(), words)).toBeGreaterThan(100);
    expect(words.size).toBeGreaterThan(30_000);
    expect(differences(words)).toEqual([]);
  });

  it('stems every word of up to four letters as stemmer does', () => {
    const words: string[] = [];
    const grow = (prefix: string): void => {
      if (prefix.length >= 1) words.push(prefix);
      if (prefix.length < 4) for (const letter of LETTERS) grow(prefix + letter);
    };
    grow('');
    expect(words.length).toBe(26 + 26 ** 2 + 26 ** 3 + 26 ** 4);
    expect(differences(words)).toEqual([]);
  });

  it("stems words made of Porter's endings, doubled letters and y's as stemmer does", () => {
    const pieces = [
      ...['sses', 'ies', 's', 'ss', 'eed', 'ed', 'ing', 'at', 'bl', 'iz', 'll', 'e', 'y', 'ion', 'tion', 'sion'],
      ...['ational', 'tional', 'enci', 'anci', 'izer', 'bli', 'alli', 'entli', 'eli', 'ousli', 'ization'],
      ...['ation', 'ator', 'alism', 'iveness', 'fulness', 'ousness', 'aliti', 'iviti', 'biliti', 'logi'],
      ...['icate', 'ative', 'alize', 'iciti', 'ical', 'ful', 'ness', 'al', 'ance', 'ence', 'er', 'ic'],
      ...['able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'],
      ...['ay', 'oy', 'yy', 'ye', 'ey', 'w', 'x', 'zz', 'ff', 'tr', 'str', 'hop', 'fil'],
    ];
    const next = random(40);
    const words: string[] = [];
    while (words.length < 300_000) {
      let word = '';
      const parts = 1 + Math.floor(next() * 4);
      for (let part = 0; part < parts; part += 1) word += next() < 0.5 ? pick(next, pieces) : pick(next, [...LETTERS]);
      words.push(word);
    }
    expect(differences(words)).toEqual([]);
  });

  it('leaves what is not ASCII letters, and words of two letters, as they are', () => {
    expect(stemOf('checksums')).toBe('checksum');
    expect(stemOf('compressing')).toBe(stemOf('compresses'));
    expect(stemOf('yelling')).toBe('yell');
    expect(stemOf('as')).toBe('as');
    expect(stemOf('caffè')).toBe('caffè');
    expect(stemOf('x86s')).toBe('x86s');
    expect(stemOf('日本語')).toBe('日本語');
  });
});
