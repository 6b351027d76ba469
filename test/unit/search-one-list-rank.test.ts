// The page of a query whose keys all name one list (issue #40: a one-word query whose word's own
// list is its stem's, or whose other words are missing): ranked by its blocks' largest impacts
// (one-list-rank.ts), it must be the page bm25.ts's MaxScore answers, scores, order and ties by
// lower document number included, with the list's length as the count; a damaged block is refused.
import { describe, expect, it } from 'vitest';
import { rankBm25 } from '../../src/core/search/bm25.js';
import { decodePostings, encodeImpactPostings, type PostingList } from '../../src/core/search/postings.js';
import { rankAndCount } from '../../src/core/search/rank-and-count.js';
import { isOneList, rankOneList } from '../../src/core/search/one-list-rank.js';
import type { SearchIndexCounts } from '../../src/core/search/search-index-format.js';
import { random as seededRandom } from '../helpers/random.js';

const corpus = { documentCount: 40_000, tokenCount: 4_000_000 };

function listOf(documents: number[], impacts: number[]): PostingList {
  const list = decodePostings(encodeImpactPostings(documents, impacts), corpus, 6);
  if ('problem' in list) throw new Error(list.problem);
  return list;
}

describe('the ranking of one list', () => {
  it('answers the page and scores that bm25.ts answers, and the list length as the count', () => {
    const random = seededRandom(27);
    let ties = 0;
    for (let round = 0; round < 60; round += 1) {
      const size = round % 5 === 0 ? 1 + Math.floor(random() * 12) : Math.floor(random() ** 2 * 20_000) + 1;
      const documents = [
        ...new Set(Array.from({ length: size }, () => Math.floor(random() * corpus.documentCount))),
      ].sort((a, b) => a - b);
      // Few impact values in some rounds: many documents tie at the page's last score.
      const values = round % 3 === 0 ? 3 : 255;
      const impacts = documents.map(() => 1 + Math.floor(random() * values) * Math.floor(254 / values));
      const weights = [[1], [1, 0.02], [0.02, 1, 1]][round % 3]!;
      const list = () => listOf(documents, impacts);
      const shared = list();
      const lists = weights.map(() => shared);
      expect(isOneList(lists)).toBe(true);
      // MaxScore over its own copy of the same list under every key.
      const own = list();
      const expected = rankBm25(
        weights.map(() => own),
        corpus,
        10,
        weights,
      );
      expect(rankOneList(lists, corpus, 10, weights)).toEqual(expected);
      const fresh = list();
      expect(
        rankAndCount(
          weights.map(() => fresh),
          corpus as SearchIndexCounts,
          weights,
        ),
      ).toEqual({
        best: expected,
        total: documents.length,
      });
      if (Array.isArray(expected) && expected.length === 10 && expected[9]!.score === expected[8]!.score) ties += 1;
    }
    expect(ties).toBeGreaterThan(5);
  });

  it('lets in a block whose best ties the last of the page, for its lower document numbers', () => {
    // Block 0 (documents 0-127) holds one document at impact 150; block 1 nine at 200 and one at
    // 150: read first, it fills the page down to 150, and document 5 still ranks before 200.
    const documents = Array.from({ length: 256 }, (_, document) => document);
    const impacts = documents.map((document) =>
      document === 5 || document === 200 ? 150 : document >= 130 && document < 139 ? 200 : 1,
    );
    const list = listOf(documents, impacts);
    const page = rankOneList([list, list], corpus, 10, [1, 0.02]);
    expect(Array.isArray(page) && page.map((scored) => scored.document)).toEqual([
      130, 131, 132, 133, 134, 135, 136, 137, 138, 5,
    ]);
    const own = listOf(documents, impacts);
    expect(page).toEqual(rankBm25([own, own], corpus, 10, [1, 0.02]));
  });

  it('reads two records of the same bytes (a rare word and its stem) as one list, and no others', () => {
    const random = seededRandom(72);
    const documents = [...new Set(Array.from({ length: 3_000 }, () => Math.floor(random() * corpus.documentCount)))];
    documents.sort((a, b) => a - b);
    const impacts = documents.map(() => 1 + Math.floor(random() * 255));
    // The word's own list is its stem's when the stem has no other form: the same bytes.
    const expected = rankBm25([listOf(documents, impacts), listOf(documents, impacts)], corpus, 10, [1, 0.02]);
    expect(
      rankAndCount([listOf(documents, impacts), listOf(documents, impacts)], corpus as SearchIndexCounts, [1, 0.02]),
    ).toEqual({ best: expected, total: documents.length });
    // The same documents, the best one weighed otherwise (another form of the word in it): two lists.
    const best = impacts.indexOf(Math.max(...impacts));
    const otherImpacts = impacts.map((impact, at) => (at === best ? impact - 1 : impact));
    const two = () => [listOf(documents, impacts), listOf(documents, otherImpacts)];
    expect(rankAndCount(two(), corpus as SearchIndexCounts, [1, 0.02])).toEqual({
      best: rankBm25(two(), corpus, 10, [1, 0.02]),
      total: documents.length,
    });
    expect(rankAndCount(two(), corpus as SearchIndexCounts, [1, 1])).toEqual({
      best: rankBm25(two(), corpus, 10, [1, 1]),
      total: documents.length,
    });
  });

  it('is not the path for two different lists, and refuses a damaged block', () => {
    expect(isOneList([listOf([1, 2], [3, 4]), listOf([1, 2], [3, 4])])).toBe(false);
    const bytes = encodeImpactPostings([5, 6, 7], [4, 4, 4]);
    bytes[bytes.length - 1] = 0;
    const damaged = decodePostings(bytes, corpus, 6) as PostingList;
    expect(rankOneList([damaged, damaged], corpus, 10, [1, 0.02])).toEqual({
      problem: 'a posting has no weight',
      list: 0,
    });
  });
});
