// BM25 as SQLite FTS5's bm25() computes it (fts5_aux.c), so the ranking can be checked against it:
// idf = ln((N − df + 0.5) / (df + 0.5)), floored to 1e-6 when not positive; each distinct query
// term adds idf · tf·(k1 + 1) / (tf + k1·(1 − b + b·|D|/avgdl)), the second factor being the
// posting's weight (postings.ts: quantized by the writer since index format 3). FTS5 returns the
// negation (lower is better); this returns the score itself, highest first, ties by lower
// document number. A document matches when it holds any query term. Portable, allocation bounded by the postings read.
import { type CorpusStatistics, POSTING_BLOCK_SIZE, type PostingList } from './postings.js';

export interface ScoredDocument {
  document: number;
  score: number;
}

/** A ranking, or the problem of the list (by position) whose block did not decode. */
export type RankOutcome = ScoredDocument[] | { problem: string; list: number };

/**
 * A bound is trusted to prune only when it falls short by more than rounding could explain: the
 * bound adds the same products in another order than the score does.
 */
const BOUND_MARGIN = 1 + 1e-9;

/** FTS5's idf, floor included: a term in more than half the documents adds next to nothing. */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  const idf = Math.log((documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/**
 * The `limit` best documents for the postings of the query's distinct terms, exactly as scoring
 * every matching document would rank them, without scoring most of them (MaxScore, with each
 * block's largest weight): documents are met in ascending number; once the page is full, the
 * lists whose best weights together cannot lift a document past the page's last score are only
 * probed for the documents the other lists bring, and a probe skips whole blocks by their last
 * document and stops when the block's best weight cannot make the difference. At 650,000
 * documents a common term's list holds 100,000+ postings; a query pairing it with a rarer term
 * decodes and scores a few of its blocks, not all. Each document's terms add in list order.
 */
export function rankBm25(
  lists: readonly PostingList[],
  corpus: CorpusStatistics,
  limit: number,
  /** Each list's share of its score (default 1 each): a word's exact list counts less than its stem's. */
  listWeights?: readonly number[],
): RankOutcome {
  if (corpus.documentCount === 0 || limit <= 0) return [];
  const count = lists.length;
  const idfs = Float64Array.from(
    lists,
    (list, index) => inverseDocumentFrequency(corpus.documentCount, list.count) * (listWeights?.[index] ?? 1),
  );
  const bounds = Float64Array.from(lists, (list, index) => {
    let most = 0;
    for (const weight of list.blockMaxWeights) if (weight > most) most = weight;
    return idfs[index]! * most;
  });
  // Lists by their bound, smallest first; boundBelow[k] is what the first k can add at most.
  const order = Array.from({ length: count }, (_, index) => index).sort((a, b) => bounds[a]! - bounds[b]! || a - b);
  const boundBelow = new Float64Array(count + 1);
  for (let k = 0; k < count; k += 1) boundBelow[k + 1] = boundBelow[k]! + bounds[order[k]!]!;
  const positions = new Uint32Array(count);
  const parts = new Float64Array(count);
  // Per probed list, the first block that may hold a document of the range skipsBlocks weighs.
  const boundBlocks = new Uint32Array(count);
  const best: ScoredDocument[] = [];
  // The score a document needs to enter the page once it is full (the last one's), kept in locals:
  // most documents of a long list fall below it and cost one comparison.
  let floorScore = Number.NEGATIVE_INFINITY;
  let floorDocument = -1;
  // order[essential..] bring the candidates; order[..essential) are only probed.
  let essential = 0;
  candidates: while (essential < count) {
    if (
      floorScore !== Number.NEGATIVE_INFINITY &&
      skipsBlocks(lists, order, essential, idfs, positions, boundBlocks, floorScore)
    )
      continue;
    let document = Number.POSITIVE_INFINITY;
    for (let k = essential; k < count; k += 1) {
      const index = order[k]!;
      const list = lists[index]!;
      const position = positions[index]!;
      if (position >= list.count) continue;
      const block = (position / POSTING_BLOCK_SIZE) | 0;
      if (list.decoded[block] === 0) {
        const problem = list.readBlock(block);
        if (problem !== undefined) return { problem, list: index };
      }
      if (list.documents[position]! < document) document = list.documents[position]!;
    }
    if (document === Number.POSITIVE_INFINITY) break;
    parts.fill(0);
    let partial = 0;
    for (let k = essential; k < count; k += 1) {
      const index = order[k]!;
      const list = lists[index]!;
      const position = positions[index]!;
      if (position >= list.count || list.documents[position] !== document) continue;
      const part = idfs[index]! * list.weightAt(position);
      parts[index] = part;
      partial += part;
      positions[index] = position + 1;
    }
    for (let k = essential - 1; k >= 0; k -= 1) {
      if ((partial + boundBelow[k + 1]!) * BOUND_MARGIN < floorScore) continue candidates;
      const index = order[k]!;
      const list = lists[index]!;
      let position = positions[index]!;
      if (position >= list.count) continue;
      let block = (position / POSTING_BLOCK_SIZE) | 0;
      while (block < list.blockCount && list.blockLastDocuments[block]! < document) block += 1;
      if (block === list.blockCount) {
        positions[index] = list.count;
        continue;
      }
      position = Math.max(position, block * POSTING_BLOCK_SIZE);
      positions[index] = position;
      if ((partial + idfs[index]! * list.blockMaxWeights[block]! + boundBelow[k]!) * BOUND_MARGIN < floorScore)
        continue candidates;
      if (list.decoded[block] === 0) {
        const problem = list.readBlock(block);
        if (problem !== undefined) return { problem, list: index };
      }
      // The block's last document is at least this one: the walk stops inside it.
      while (list.documents[position]! < document) position += 1;
      positions[index] = position;
      if (list.documents[position] !== document) continue;
      const part = idfs[index]! * list.weightAt(position);
      parts[index] = part;
      partial += part;
      positions[index] = position + 1;
    }
    let score = 0;
    for (let index = 0; index < count; index += 1) score += parts[index]!;
    // The best `limit` so far, best first: inserting into a short sorted array beats sorting every match.
    if (score < floorScore || (score === floorScore && document > floorDocument)) continue;
    let at = best.length;
    while (at > 0 && ranksBefore(document, score, best[at - 1]!)) at -= 1;
    best.splice(at, 0, { document, score });
    if (best.length > limit) best.pop();
    if (best.length === limit) {
      floorScore = best[limit - 1]!.score;
      floorDocument = best[limit - 1]!.document;
      while (essential < count && boundBelow[essential + 1]! * BOUND_MARGIN < floorScore) essential += 1;
    }
  }
  return best;
}

/**
 * Before a block of the lists that bring candidates is decoded: when no document up to the first
 * of their current blocks to end can reach `floorScore` (each list's best weight in the blocks
 * that range spans), the lists whose block ends there move to their next block, undecoded, and
 * true is returned. A document in that range met later through another list scores less than it
 * would (the skipped postings are not added), which cannot lift it onto the page: its full score
 * is already below the floor, which only rises.
 */
function skipsBlocks(
  lists: readonly PostingList[],
  order: readonly number[],
  essential: number,
  idfs: Float64Array,
  positions: Uint32Array,
  boundBlocks: Uint32Array,
  floorScore: number,
): boolean {
  let entersBlock = false;
  let rangeStart = Number.POSITIVE_INFINITY;
  let rangeEnd = Number.POSITIVE_INFINITY;
  let bound = 0;
  for (let k = essential; k < order.length; k += 1) {
    const index = order[k]!;
    const list = lists[index]!;
    const position = positions[index]!;
    if (position >= list.count) continue;
    const block = (position / POSTING_BLOCK_SIZE) | 0;
    let start: number;
    if (list.decoded[block] === 0) {
      entersBlock = true;
      start = block === 0 ? 0 : list.blockLastDocuments[block - 1]! + 1;
    } else start = list.documents[position]!;
    if (start < rangeStart) rangeStart = start;
    if (list.blockLastDocuments[block]! < rangeEnd) rangeEnd = list.blockLastDocuments[block]!;
    bound += idfs[index]! * list.blockMaxWeights[block]!;
  }
  if (!entersBlock) return false;
  for (let k = 0; k < essential; k += 1) {
    const index = order[k]!;
    const list = lists[index]!;
    let block = Math.max(boundBlocks[index]!, (positions[index]! / POSTING_BLOCK_SIZE) | 0);
    while (block < list.blockCount && list.blockLastDocuments[block]! < rangeStart) block += 1;
    // Range starts only grow: the blocks before this one are never weighed again.
    boundBlocks[index] = block;
    let most = 0;
    for (; block < list.blockCount; block += 1) {
      if (list.blockMaxWeights[block]! > most) most = list.blockMaxWeights[block]!;
      if (list.blockLastDocuments[block]! >= rangeEnd) break;
    }
    bound += idfs[index]! * most;
    if (bound * BOUND_MARGIN >= floorScore) return false;
  }
  if (bound * BOUND_MARGIN >= floorScore) return false;
  for (let k = essential; k < order.length; k += 1) {
    const index = order[k]!;
    const list = lists[index]!;
    const block = (positions[index]! / POSTING_BLOCK_SIZE) | 0;
    if (positions[index]! < list.count && list.blockLastDocuments[block] === rangeEnd)
      positions[index] = Math.min(list.count, (block + 1) * POSTING_BLOCK_SIZE);
  }
  return true;
}

function ranksBefore(document: number, score: number, other: ScoredDocument): boolean {
  return score > other.score || (score === other.score && document < other.document);
}
