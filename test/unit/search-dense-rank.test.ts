// The page and `total` of a query whose counted lists are decoded whole (issue #40): ranked by
// scoring every posting in fixed point (dense-rank.ts) instead of skipping blocks (bm25.ts), a
// search must answer exactly what it answered before: the same 10 documents in the same order
// with the same scores (ties by lower document number), and the same count; a damaged block is
// refused, naming its list.
import { describe, expect, it } from 'vitest';
import { rankBm25, type ScoredDocument } from '../../src/core/search/bm25.js';
import { rankAndCountDense, ranksDensely } from '../../src/core/search/dense-rank.js';
import { countMatchingDocuments } from '../../src/core/search/match-count.js';
import { decodePostings, encodeImpactPostings, PostingList } from '../../src/core/search/postings.js';
import { rankAndCount } from '../../src/core/search/rank-and-count.js';
import type { SearchIndexCounts } from '../../src/core/search/search-index-format.js';
import { random as seededRandom } from '../helpers/random.js';

const corpus = { documentCount: 30_000, tokenCount: 3_000_000 };

function listOf(documents: number[], impacts: number[]): PostingList {
  const list = decodePostings(encodeImpactPostings(documents, impacts), corpus, 6);
  if ('problem' in list) throw new Error(list.problem);
  return list;
}

/** What the search answered before: bm25.ts's page and match-count.ts's count of the lists of full weight. */
function expectedOf(made: () => PostingList[], weights: number[]): { best: ScoredDocument[]; total: number } {
  const lists = made();
  const best = rankBm25(lists, corpus, 10, weights);
  if ('problem' in best) throw new Error(best.problem);
  const total = countMatchingDocuments(
    lists.filter((_, index) => weights[index] === 1),
    corpus.documentCount,
  );
  if (typeof total !== 'number') throw new Error(total.problem);
  return { best, total };
}

describe('the dense ranking', () => {
  it('answers the page, scores and count that skipping blocks answers', () => {
    const random = seededRandom(66);
    const sortedDocuments = (size: number) =>
      [...new Set(Array.from({ length: size }, () => Math.floor(random() * corpus.documentCount)))].sort(
        (a, b) => a - b,
      );
    let ties = 0;
    for (let round = 0; round < 48; round += 1) {
      // Two to four words, each a stem list (weight 1) and its word's own (0.02): the same list
      // when the stem has no record of its own, else a part of it. Impacts from few values in some
      // rounds, so that many documents tie at the 10th score.
      const impactValues = round % 3 === 0 ? 2 : 255;
      const words = Array.from({ length: 2 + (round % 3) }, () => {
        const documents = sortedDocuments(Math.floor(random() ** 2 * 12_000) + 1);
        const impacts = documents.map(() => 1 + Math.floor(random() * impactValues) * Math.floor(254 / impactValues));
        const sameList = random() < 0.5;
        const kept = sameList ? [] : documents.flatMap((_, at) => (random() < 0.6 ? [at] : []));
        const own = sameList ? undefined : kept.map((at) => documents[at]!);
        const ownImpacts = kept.map((at) => impacts[at]!);
        return { documents, impacts, own, ownImpacts };
      });
      const made = () =>
        words.flatMap(({ documents, impacts, own, ownImpacts }) => {
          const stem = listOf(documents, impacts);
          return [stem, own === undefined || own.length === 0 ? stem : listOf(own, ownImpacts!)];
        });
      const weights = words.flatMap(() => [1, 0.02]);
      const expected = expectedOf(made, weights);
      const lists = made();
      expect(ranksDensely(lists, corpus.documentCount)).toBe(true);
      const counted = weights.map((weight) => weight === 1);
      expect(rankAndCountDense(lists, corpus, 10, weights, counted)).toEqual(expected);
      // Coarse fixed-point scores tie and swap near the page's last: its bar still lets every one in.
      expect(rankAndCountDense(made(), corpus, 10, weights, counted, 4 * weights.length)).toEqual(expected);
      // The search's own choice takes this path for two counted lists or more, and answers the same.
      expect(rankAndCount(made(), corpus as SearchIndexCounts, weights)).toEqual(expected);
      const best = expected.best;
      if (best.length === 10 && best.some((scored, at) => at > 0 && scored.score === best[at - 1]!.score)) ties += 1;
    }
    // Rounds where the page held equal scores, ordered by document number.
    expect(ties).toBeGreaterThan(5);
  });

  it('answers every matching document, ranked, when fewer than a page match', () => {
    const lists = [listOf([3, 9], [200, 40]), listOf([9, 12_000], [10, 255])];
    const outcome = rankAndCountDense(lists, corpus, 10, [1, 1], [true, true]);
    expect(outcome).toEqual(expectedOf(() => [listOf([3, 9], [200, 40]), listOf([9, 12_000], [10, 255])], [1, 1]));
    expect('best' in outcome && outcome.best.map((scored) => scored.document)).toEqual([12_000, 3, 9]);
    expect('total' in outcome && outcome.total).toBe(3);
  });

  it('refuses a damaged block, naming its list, and leaves lists without impact bytes to bm25.ts', () => {
    const sound = listOf([1, 2, 3], [9, 9, 9]);
    const bytes = encodeImpactPostings([5, 6, 7], [4, 4, 4]);
    // The second posting's impact byte (after the 4-byte table: count, last, length, max): 0 is no weight.
    bytes[bytes.length - 3] = 0;
    const damaged = decodePostings(bytes, corpus, 6) as PostingList;
    expect(rankAndCountDense([sound, damaged], corpus, 10, [1, 1], [true, true])).toEqual({
      problem: 'a posting has no weight',
      list: 1,
    });
    // The list walked first is the counted one; the damaged one is still the one named.
    const again = decodePostings(bytes, corpus, 6) as PostingList;
    expect(rankAndCountDense([again, listOf([1, 2], [9, 9])], corpus, 10, [0.02, 1], [false, true])).toEqual({
      problem: 'a posting has no weight',
      list: 0,
    });
    expect(ranksDensely([sound, PostingList.ofDecoded([4], [1.5])], corpus.documentCount)).toBe(false);
    expect(ranksDensely([sound], 3_000_000)).toBe(false);
  });

  it('answers a query after a refused one, and over lists decoded before, as it answers fresh lists', () => {
    const random = seededRandom(40);
    const made = () =>
      [800, 5_000, 12_000].map((size) => {
        const documents = [...new Set(Array.from({ length: size }, () => Math.floor(random() * corpus.documentCount)))];
        documents.sort((a, b) => a - b);
        return listOf(
          documents,
          documents.map(() => 1 + Math.floor(random() * 255)),
        );
      });
    const weights = [1, 1, 0.02];
    const counted = [true, true, false];
    const lists = made();
    const fresh = rankAndCountDense(lists, corpus, 10, weights, counted);
    expect(fresh).toEqual(expectedOf(() => lists, weights));
    // A damaged list walked after scores were added: the scores it left must not count in the next query.
    const bytes = encodeImpactPostings([5, 6, 7], [4, 4, 4]);
    bytes[bytes.length - 1] = 9;
    const damaged = decodePostings(bytes, corpus, 6) as PostingList;
    expect(rankAndCountDense([lists[2]!, damaged], corpus, 10, [1, 1], [true, true])).toEqual({
      problem: 'a posting weighs more than its block says',
      list: 1,
    });
    // The same lists again, every block decoded by the first query (a reader keeps decoded lists).
    expect(rankAndCountDense(lists, corpus, 10, weights, counted)).toEqual(fresh);
  });
});
