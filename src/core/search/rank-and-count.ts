// A search's page and `total` from its words' postings (issue #40): the page by BM25 (bm25.ts),
// the total by counting the documents of the lists of full weight (match-count.ts). Counting two
// lists or more decodes them whole, and then scoring every posting (dense-rank.ts) costs a cold
// worker less than skipping blocks does; one list is counted by its length, and ranked by skipping
// what cannot reach the page; the same list under every key (one-list-rank.ts) by its blocks'
// largest impacts. Portable.
import { rankBm25 } from './bm25.js';
import { type DenseRankOutcome, rankAndCountDense, ranksDensely } from './dense-rank.js';
import { countMatchingDocuments } from './match-count.js';
import { isOneList, mergeEqualLists, rankOneList } from './one-list-rank.js';
import type { PostingList } from './postings.js';
import { SEARCH_RESULT_LIMIT, type SearchIndexCounts } from './search-index-format.js';

/**
 * The best SEARCH_RESULT_LIMIT of `lists` (each with its share of the score) and how many documents
 * the lists of full weight hold: a word's own list is part of its stem's, and adds no document.
 */
export function rankAndCount(
  listsAsRead: readonly PostingList[],
  counts: SearchIndexCounts,
  weights: readonly number[],
): DenseRankOutcome {
  // A stem's record that holds its one word's bytes is that word's list.
  const lists = mergeEqualLists(listsAsRead);
  const counted = weights.map((weight) => weight === 1);
  // One list (a word's own list that is its stem's too): its length is the count.
  if (isOneList(lists)) {
    const best = rankOneList(lists, counts, SEARCH_RESULT_LIMIT, weights);
    return 'problem' in best ? best : { best, total: counted.includes(true) ? lists[0]!.count : 0 };
  }
  const countedLists = lists.filter((_, index) => counted[index]);
  if (countedLists.length > 1 && ranksDensely(lists, counts.documentCount))
    return rankAndCountDense(lists, counts, SEARCH_RESULT_LIMIT, weights, counted);
  const best = rankBm25(lists, counts, SEARCH_RESULT_LIMIT, weights);
  if ('problem' in best) return best;
  const total = countMatchingDocuments(countedLists, counts.documentCount);
  if (typeof total === 'number') return { best, total };
  // The count names its list among the counted ones.
  const positions = counted.flatMap((isCounted, index) => (isCounted ? [index] : []));
  return { problem: total.problem, list: positions[total.list]! };
}
