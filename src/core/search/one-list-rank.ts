// The page of a query whose lists are all one list (issue #40): a one-word query, or one whose
// other words are missing or too common to read, where a word's own list is its stem's (the stem's
// only form, as most rare words are). Every document then scores idf × weight of its impact byte,
// the same sum for all, so the best documents are those with the highest impact bytes, ties by
// lower document number: a block whose largest impact byte (the list's block table holds it) is
// below the 10th best found is never decoded, and no score is computed but for the page. The
// count is the list's length. bm25.ts's MaxScore answers the same page, but runs per-candidate
// floating-point code through every block it cannot rule out, which a cold worker runs first
// interpreted, then compiles. Portable.
import type { ScoredDocument } from './bm25.js';
import { inverseDocumentFrequency } from './bm25.js';
import { type CorpusStatistics, POSTING_BLOCK_SIZE, type PostingList } from './postings.js';
import { holdSameBytes } from './same-bytes.js';

/** The page, or the problem of the first list (by position: they are one) whose block did not decode. */
export type OneListOutcome = ScoredDocument[] | { problem: string; list: number };

/**
 * `lists` with each one whose bytes are an earlier one's replaced by that one: a word whose stem has
 * no other form (a rare word, "pacose" of stem "pacos") has two records of the same bytes, its own
 * and its stem's, and read as one list they are decoded and walked once (and a query of such words
 * alone is ranked here). The bytes are compared only for lists of the same count and length.
 */
export function mergeEqualLists(lists: readonly PostingList[]): PostingList[] {
  const merged: PostingList[] = [];
  for (const list of lists) merged.push(merged.find((earlier) => holdSameLists(earlier, list)) ?? list);
  return merged;
}

function holdSameLists(left: PostingList, right: PostingList): boolean {
  if (left === right) return true;
  const leftBytes = left.blockBytes?.bytes;
  const rightBytes = right.blockBytes?.bytes;
  if (leftBytes === undefined || rightBytes === undefined) return false;
  if (left.count !== right.count || leftBytes.length !== rightBytes.length) return false;
  return (
    holdSameBytes(left.blockLastDocuments, right.blockLastDocuments) &&
    holdSameBytes(left.blockMaxImpacts, right.blockMaxImpacts) &&
    holdSameBytes(leftBytes, rightBytes)
  );
}

/** Whether every one of `lists` is the same list (with impact bytes: index format 4 and later). */
export function isOneList(lists: readonly PostingList[]): boolean {
  return lists.length > 0 && lists[0]!.impacts !== undefined && lists.every((list) => list === lists[0]);
}

/**
 * rankBm25's page for `lists` (isOneList) and their weights: the `limit` postings with the highest
 * impact bytes, ties by lower document number, each scored as bm25.ts adds its parts (in list order).
 */
export function rankOneList(
  lists: readonly PostingList[],
  corpus: CorpusStatistics,
  limit: number,
  listWeights: readonly number[],
): OneListOutcome {
  const list = lists[0]!;
  if (corpus.documentCount === 0 || limit <= 0 || list.count === 0) return [];
  // Blocks by their largest impact, highest first (then in order): each may lift the page's last.
  // The first block is read first whatever its table says, as bm25.ts reads it: a block whose
  // table claims less than it holds is refused there, not only when a query needs it.
  const maxImpacts = list.blockMaxImpacts;
  const blocks = Array.from({ length: list.blockCount - 1 }, (_, block) => block + 1);
  blocks.sort((left, right) => maxImpacts[right]! - maxImpacts[left]! || left - right);
  blocks.unshift(0);
  // The page so far, best first: each posting's impact, document and position.
  const impacts: number[] = [];
  const documents: number[] = [];
  const positions: number[] = [];
  for (const block of blocks) {
    // A block whose best is below the page's last cannot enter it; an equal one may, by a lower number.
    if (impacts.length === limit && maxImpacts[block]! < impacts[limit - 1]!) break;
    const problem = list.readBlock(block);
    if (problem !== undefined) return { problem, list: 0 };
    const end = Math.min(list.count, (block + 1) * POSTING_BLOCK_SIZE);
    for (let position = block * POSTING_BLOCK_SIZE; position < end; position += 1) {
      const impact = list.impacts![position]!;
      const document = list.documents[position]!;
      if (impacts.length === limit && !ranksBefore(impact, document, impacts[limit - 1]!, documents[limit - 1]!))
        continue;
      let at = Math.min(impacts.length, limit - 1);
      if (impacts.length < limit) {
        impacts.push(impact);
        documents.push(document);
        positions.push(position);
      }
      for (; at > 0 && ranksBefore(impact, document, impacts[at - 1]!, documents[at - 1]!); at -= 1) {
        impacts[at] = impacts[at - 1]!;
        documents[at] = documents[at - 1]!;
        positions[at] = positions[at - 1]!;
      }
      impacts[at] = impact;
      documents[at] = document;
      positions[at] = position;
    }
  }
  const idfs = lists.map(
    (member, index) => inverseDocumentFrequency(corpus.documentCount, member.count) * listWeights[index]!,
  );
  return documents.map((document, rank) => {
    const weight = list.weightAt(positions[rank]!);
    // As bm25.ts adds a document's parts: one per list, in list order, from 0.
    let score = 0;
    for (const idf of idfs) score += idf * weight;
    return { document, score };
  });
}

function ranksBefore(impact: number, document: number, otherImpact: number, otherDocument: number): boolean {
  return impact > otherImpact || (impact === otherImpact && document < otherDocument);
}
