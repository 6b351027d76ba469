// The spilling writer's key counter (tree-writer/search-key-counter.ts): the keys and counts it
// gives a document are the ones the index defines (tokenize, then indexKeysOf), across documents
// and across the dictionary starting again, so a search finds every form of a word as before.
import { describe, expect, it } from 'vitest';
import { indexKeysOf, type Stemming } from '../../src/core/search/stem.js';
import { tokenize } from '../../src/core/search/tokenize.js';
import { IndexKeyCounter } from '../../src/tree-writer/search-key-counter.js';

/** The definition: every key of the text, counted, in first-come order. */
function expectedCounts(text: string, stemming: Stemming) {
  const countOf = new Map<string, number>();
  const terms = tokenize(text);
  for (const key of indexKeysOf(terms, stemming)) countOf.set(key, (countOf.get(key) ?? 0) + 1);
  return { keys: [...countOf.keys()], counts: [...countOf.values()], tokenCount: terms.length };
}

const documents = [
  'Running runs ran; the runner RUNS connected connections connecting.',
  'Ｃａｆé ﬁle STRASSE Straße naïve 東京タワー and a caf\u00e9 again, café café',
  `${'x'.repeat(70)} short words words words generalizations generalization`,
  '',
  'connected running café tower Tokyo 東京 generalization 2024 v2 2024',
  // Man-page punctuation around plain words, and control characters that are not letters.
  'It\u2019s the \u201cQuoted\u201d WORD\u2010split\u0010ABC\u0019 x\u2014y FOO\u2022Bar \u00e9t\u00e9 ETE',
  `Title line\n${Array.from({ length: 400 }, (_, index) => `word${index % 37} relational relations`).join(' ')}`,
];

describe('index key counter', () => {
  for (const stemming of ['porter', 'none'] as const)
    it(`gives each document the keys and counts of tokenize and indexKeysOf (${stemming})`, () => {
      // A dictionary of 8 keys starts again every document or two: the answers stay the same.
      for (const limit of [65_536, 8]) {
        const counter = new IndexKeyCounter(stemming, limit);
        for (const round of [1, 2])
          for (const text of documents) {
            const { keys, counts, tokenCount } = counter.count(text);
            expect({ keys, counts, tokenCount }, `${stemming}, limit ${limit}, round ${round}`).toEqual(
              expectedCounts(text, stemming),
            );
          }
      }
    });

  it('counts a title and a text as the two joined by a line break', () => {
    const counter = new IndexKeyCounter('porter', 8);
    for (const [title, text] of [
      ['Café ﬁle', 'naïve 東京 file files'],
      ['tail 東京', '東京タワー Running RUNS'],
      ['', 'Only a text'],
    ] as const) {
      const { keys, counts, tokenCount } = counter.count(title, text);
      expect({ keys, counts, tokenCount }).toEqual(expectedCounts(`${title}\n${text}`, 'porter'));
    }
  });
});
