// The ranking of a query whose `total` decodes every posting anyway (issue #40): when two or more
// lists are counted (match-count.ts), each is decoded whole, so skipping blocks while ranking
// (bm25.ts's MaxScore) saves no decoding, only adds per-candidate work that a cold worker runs as
// first-run code, a few hundred thousand times. What costs a cold worker there is floating-point
// arithmetic (each number it makes is allocated until V8 has optimized the loop) and fresh memory
// (pages touched for the first time). So the lists are walked with integers only, into one small
// integer per document of the corpus: each posting's impact byte, through a table per list, adds a
// fixed-point part to its document's score (within one unit of the exact part), the counted lists
// walked first so that a document they meet at 0 is counted; the 10th best fixed-point score sets
// a bar every document of the page reaches (a document's fixed-point score is within one unit per
// list of its exact one), and only the documents at that bar (a few dozen) get their exact
// scores, their parts added in list order as bm25.ts adds them: the page is the same, ties by
// lower document number too. Portable.
import { inverseDocumentFrequency, type ScoredDocument } from './bm25.js';
import { type CorpusStatistics, type PostingList, weightOfImpact } from './postings.js';

/** The most documents this ranks (2 bytes each: 4 MiB); a larger corpus is ranked by bm25.ts. */
export const MAX_DENSE_RANK_DOCUMENTS = 2 * 1024 * 1024;
/** Fixed-point scores stay below this: a signed 16-bit number, its sign free to mark a document met. */
const MAX_FIXED_SCORE = 2 ** 15 - 1;
/** Impact bytes, 0 to 255. */
const IMPACTS = 256;

/** The page and the count of documents in the counted lists, or the first list (by position) whose block did not decode. */
export type DenseRankOutcome = { best: ScoredDocument[]; total: number } | { problem: string; list: number };

/** A distinct list (a word's list is often its stem's too) and what it adds. */
interface ListPart {
  list: PostingList;
  counts: boolean;
  /** Per impact byte, the fixed-point part it adds (at least 1). */
  fixedParts: Int16Array;
  /** The positions of the lists it stands for among the arguments, with their idf times share. */
  members: { index: number; idf: number }[];
}

/** Whether rankAndCountDense ranks these lists: each keeps its impact bytes (index format 4 and later). */
export function ranksDensely(lists: readonly PostingList[], documentCount: number): boolean {
  return documentCount <= MAX_DENSE_RANK_DOCUMENTS && lists.every((list) => list.impacts !== undefined);
}

/**
 * rankBm25's page for the same lists and weights, and countMatchingDocuments of the lists
 * `counted` marks: `lists` (ranksDensely) are decoded whole.
 */
export function rankAndCountDense(
  lists: readonly PostingList[],
  corpus: CorpusStatistics,
  limit: number,
  listWeights: readonly number[],
  counted: readonly boolean[],
  /** The fixed-point scale's top (tests take a coarse one: the page must not depend on it). */
  maxFixedScore = MAX_FIXED_SCORE,
): DenseRankOutcome {
  for (let index = 0; index < lists.length; index += 1) {
    const problem = lists[index]!.readEveryBlock();
    if (problem !== undefined) return { problem, list: index };
  }
  if (corpus.documentCount === 0 || limit <= 0) return { best: [], total: 0 };
  const parts = partsOf(lists, corpus.documentCount, listWeights, counted, maxFixedScore);
  const fixed = scoresFor(corpus.documentCount);
  let total = 0;
  for (const { list, counts, fixedParts } of parts) {
    const { documents, count } = list;
    const impacts = list.impacts!;
    for (let position = 0; position < count; position += 1) {
      const document = documents[position]!;
      const score = fixed[document]!;
      if (counts && score === 0) total += 1;
      fixed[document] = score + fixedParts[impacts[position]!]!;
    }
  }
  // A document of the page scores within 2 units a list of the `limit`-th best fixed-point score.
  const margin = 2 * lists.length + 1;
  const met: number[] = [];
  const bar = fixedBarOf(parts, fixed, limit, margin, met) - margin;
  // fixedBarOf turned every document's score negative.
  const candidates = met.filter((document) => -fixed[document]! >= bar);
  fixed.fill(0);
  const best = candidates.map((document) => ({ document, score: exactScoreOf(lists, parts, document) }));
  best.sort((left, right) => right.score - left.score || left.document - right.document);
  return { best: best.slice(0, limit), total };
}

/** The scores' array, kept from query to query (all zeros between them): a warm query touches no new memory. */
let keptScores = new Int16Array(0);

function scoresFor(documentCount: number): Int16Array {
  if (keptScores.length < documentCount) keptScores = new Int16Array(documentCount);
  return keptScores.subarray(0, documentCount);
}

function partsOf(
  lists: readonly PostingList[],
  documentCount: number,
  listWeights: readonly number[],
  counted: readonly boolean[],
  maxFixedScore: number,
): ListPart[] {
  const parts: ListPart[] = [];
  lists.forEach((list, index) => {
    const idf = inverseDocumentFrequency(documentCount, list.count) * listWeights[index]!;
    let part = parts.find((known) => known.list === list);
    if (part === undefined) {
      part = { list, counts: false, fixedParts: new Int16Array(IMPACTS), members: [] };
      parts.push(part);
    }
    part.counts ||= counted[index]!;
    part.members.push({ index, idf });
  });
  // The counted lists first: the count takes a document's first part as the sign it was not met.
  parts.sort((left, right) => Number(right.counts) - Number(left.counts));
  // Every part is at least one unit: the sum of all lists' best parts must still fit.
  let most = 0;
  for (const { members } of parts) for (const { idf } of members) most += idf * weightOfImpact(IMPACTS - 1);
  const unit = (maxFixedScore - lists.length) / most;
  for (const { members, fixedParts } of parts)
    for (let impact = 1; impact < IMPACTS; impact += 1)
      for (const { idf } of members)
        fixedParts[impact] = fixedParts[impact]! + Math.max(1, Math.floor(idf * weightOfImpact(impact) * unit));
  return parts;
}

/**
 * The `limit`-th best fixed-point score among the documents of `parts`, minus infinity when fewer
 * match; each document met is turned negative, so that it counts once. Each document within
 * `margin` of the bar as it stood when met goes into `met`: the bar only rises, so those within
 * `margin` of the last one are all there.
 */
function fixedBarOf(
  parts: readonly ListPart[],
  fixed: Int16Array,
  limit: number,
  margin: number,
  met: number[],
): number {
  // The best `limit` scores met so far, ascending: top[0] is the lowest kept.
  const top = new Int16Array(limit);
  let held = 0;
  for (const { list } of parts) {
    const { documents, count } = list;
    for (let position = 0; position < count; position += 1) {
      const document = documents[position]!;
      const score = fixed[document]!;
      if (score < 0) continue;
      fixed[document] = -score;
      if (held < limit) {
        let at = held;
        held += 1;
        for (; at > 0 && top[at - 1]! > score; at -= 1) top[at] = top[at - 1]!;
        top[at] = score;
        met.push(document);
        continue;
      }
      if (score > top[0]!) {
        let at = 0;
        for (; at + 1 < limit && top[at + 1]! < score; at += 1) top[at] = top[at + 1]!;
        top[at] = score;
      }
      if (score >= top[0]! - margin) met.push(document);
    }
  }
  return held < limit ? Number.NEGATIVE_INFINITY : top[0]!;
}

/** A document's score as bm25.ts adds it: each list holding it adds idf × weight, in argument order. */
function exactScoreOf(lists: readonly PostingList[], parts: readonly ListPart[], document: number): number {
  const scoreParts = new Float64Array(lists.length);
  for (const { list, members } of parts) {
    const position = positionOf(list.documents, list.count, document);
    if (position === -1) continue;
    const weight = list.weightAt(position);
    for (const { index, idf } of members) scoreParts[index] = idf * weight;
  }
  let score = 0;
  for (const part of scoreParts) score += part;
  return score;
}

/** Where `document` is in the ascending `documents` (the first `count`), or -1. */
function positionOf(documents: Uint32Array, count: number, document: number): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (documents[middle]! < document) low = middle + 1;
    else high = middle;
  }
  return low < count && documents[low] === document ? low : -1;
}
