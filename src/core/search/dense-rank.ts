// The ranking of a query whose `total` decodes every posting anyway (issue #40): when two or more
// lists are counted (match-count.ts), each is decoded whole, so skipping blocks while ranking
// (bm25.ts's MaxScore) saves no decoding, only adds per-candidate work that a cold worker runs as
// first-run code, a few hundred thousand times. What costs a cold worker there is floating-point
// arithmetic (each number it makes is allocated until V8 has optimized the loop), fresh memory
// (pages touched for the first time), and V8 optimizing each hot loop (it compiles the function
// holding the loop, once per isolate: a cost per loop, not per posting). So each list is walked
// once, in one small function that decodes its blocks and scores them as it goes, with integers
// only, into one small integer per document of the corpus: each posting's impact byte, through a
// table per list, adds a fixed-point part to its document's score (within one unit of the exact
// part), the counted lists walked first so that a document they meet at 0 is counted. A count of
// documents per fixed-point score, kept as they rise, gives the 10th best score as it stands (it
// only rises), and each document whose new score is within a margin of it is noted: every document
// of the page reaches the final 10th best score less that margin (a document's fixed-point score
// is within one unit per list of its exact one), and only those noted (a few dozen to a few
// thousand) are looked at again: the ones near the bar get their exact scores, their parts added
// in list order as bm25.ts adds them: the page is the same, ties by lower document number too.
// Portable.
import { inverseDocumentFrequency, type ScoredDocument } from './bm25.js';
import { type CorpusStatistics, POSTING_BLOCK_SIZE, type PostingList, weightOfImpact } from './postings.js';

/** The most documents this ranks (2 bytes each: 4 MiB); a larger corpus is ranked by bm25.ts. */
export const MAX_DENSE_RANK_DOCUMENTS = 2 * 1024 * 1024;
/** Fixed-point scores stay below this: a signed 16-bit number. */
const MAX_FIXED_SCORE = 2 ** 15 - 1;
/** Impact bytes, 0 to 255. */
const IMPACTS = 256;
/** Varints of a posting list are at most this long (postings.ts). */
const MAX_VARINT_BYTES = 5;

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
  return (
    documentCount <= MAX_DENSE_RANK_DOCUMENTS &&
    lists.every((list) => list.impacts !== undefined && list.blockBytes !== undefined)
  );
}

/** What a walk of the lists leaves: the `limit`-th best fixed score (when `met` reaches `limit`), the count, a problem. */
interface Walked {
  bar: number;
  met: number;
  total: number;
  problem: string | undefined;
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
  if (corpus.documentCount === 0 || limit <= 0) return firstProblemOf(lists) ?? { best: [], total: 0 };
  const parts = partsOf(lists, corpus.documentCount, listWeights, counted, maxFixedScore);
  const fixed = scoresFor(corpus.documentCount);
  const histogram = histogramFor(maxFixedScore + 1);
  // A document of the page scores within 2 units a list of the `limit`-th best fixed-point score.
  const margin = 2 * lists.length + 1;
  const noted: number[] = [];
  const walked = walkLists(parts, fixed, histogram, limit, margin, noted);
  const bar = walked.met < limit ? Number.NEGATIVE_INFINITY : walked.bar - margin;
  const candidates = new Set<number>();
  for (const document of noted) if (fixed[document]! >= bar) candidates.add(document);
  fixed.fill(0);
  histogram.fill(0);
  // The walk stopped at a damaged block: the first damaged list by position is the one named.
  if (walked.problem !== undefined) return firstProblemOf(lists) ?? { problem: walked.problem, list: 0 };
  for (const { list } of parts) list.decoded.fill(1);
  const best = [...candidates].map((document) => ({ document, score: exactScoreOf(lists, parts, document) }));
  best.sort((left, right) => right.score - left.score || left.document - right.document);
  return { best: best.slice(0, limit), total: walked.total };
}

function firstProblemOf(lists: readonly PostingList[]): { problem: string; list: number } | undefined {
  for (let index = 0; index < lists.length; index += 1) {
    const problem = lists[index]!.readEveryBlock();
    if (problem !== undefined) return { problem, list: index };
  }
  return undefined;
}

/** The scores' array and the histogram, kept from query to query (all zeros between them): a warm query touches no new memory. */
let keptScores = new Int16Array(0);
let keptHistogram = new Int32Array(0);

function scoresFor(documentCount: number): Int16Array {
  if (keptScores.length < documentCount) keptScores = new Int16Array(documentCount);
  return keptScores.subarray(0, documentCount);
}

function histogramFor(scores: number): Int32Array {
  if (keptHistogram.length < scores) keptHistogram = new Int32Array(scores);
  return keptHistogram.subarray(0, scores);
}

/**
 * Decodes every block of the parts' lists (as PostingList.readBlock does, with the same checks,
 * into their arrays) and adds each posting's fixed-point part to its document's score, keeping
 * `histogram` (documents per score) and the bar: the `limit`-th best score as it stands, which only
 * rises; a document whose new score is within `margin` of it is noted, so every document within
 * `margin` of the last one is. One function, as small as the loop, called once a query: V8
 * optimizes a hot loop by compiling the function that holds it, and drops that code when it
 * reaches a step that had not run before (as the steps between two lists would be), to compile it
 * again; so each step of the walk runs on the first list's first block.
 */
function walkLists(
  parts: readonly ListPart[],
  fixed: Int16Array,
  histogram: Int32Array,
  limit: number,
  margin: number,
  noted: number[],
): Walked {
  let bar = 1;
  let above = 0;
  let met = 0;
  let total = 0;
  let problem: string | undefined;
  // The blocks of every list in one loop, each block finding its list in a table: no step of the
  // loop runs once a list.
  const firstBlocks = new Int32Array(parts.length + 1);
  parts.forEach(({ list }, part) => {
    firstBlocks[part + 1] = firstBlocks[part]! + list.blockCount;
  });
  const blockCount = firstBlocks[parts.length]!;
  const partOfBlock = new Uint8Array(blockCount);
  for (let part = 0; part < parts.length; part += 1) partOfBlock.fill(part, firstBlocks[part]!, firstBlocks[part + 1]!);
  let global = -1;
  walk: while (++global < blockCount) {
    const part = partOfBlock[global]!;
    const block = global - firstBlocks[part]!;
    const { list, fixedParts, counts } = parts[part]!;
    const counting = counts ? 1 : 0;
    const { bytes, starts } = list.blockBytes!;
    const { documents, blockLastDocuments, blockMaxImpacts, count } = list;
    const impacts = list.impacts!;
    let offset = starts[block]!;
    const stop = starts[block + 1]!;
    const last = blockLastDocuments[block]!;
    const maxImpact = blockMaxImpacts[block]!;
    let document = block === 0 ? 0 : blockLastDocuments[block - 1]!;
    let reachesMax = false;
    const postingEnd = Math.min(count, (block + 1) * POSTING_BLOCK_SIZE);
    for (let position = block * POSTING_BLOCK_SIZE; position < postingEnd; position += 1) {
      let delta = 0;
      let scale = 1;
      let used = 0;
      for (;;) {
        if (offset >= stop || used === MAX_VARINT_BYTES) {
          problem = 'a block ends inside a posting';
          break walk;
        }
        const byte = bytes[offset++]!;
        used += 1;
        delta += (byte & 0x7f) * scale;
        // Before the test, so that a list's first long varint runs no step that has not run yet.
        scale *= 128;
        if (byte < 0x80) break;
      }
      if (offset >= stop) problem = 'a block ends inside a posting';
      else if (position > 0 && delta === 0) problem = 'its documents are not in ascending order';
      else if (document + delta > last) problem = 'a block holds a document past its last';
      if (problem !== undefined) break walk;
      document += delta;
      const impact = bytes[offset++]!;
      if (impact === 0 || impact > maxImpact) {
        problem = impact === 0 ? 'a posting has no weight' : 'a posting weighs more than its block says';
        break walk;
      }
      if (impact === maxImpact) reachesMax = true;
      documents[position] = document;
      impacts[position] = impact;
      // The same steps for a document met first or again (histogram[0] takes the first ones'
      // decrement): V8 drops optimized code that reaches a step which had not run before it was
      // optimized, and a list's later documents are met again where its first ones were not.
      const score = fixed[document]!;
      const next = score + fixedParts[impact]!;
      fixed[document] = next;
      histogram[score] = histogram[score]! - 1;
      histogram[next] = histogram[next]! + 1;
      const first = score === 0 ? 1 : 0;
      met += first;
      total += first & counting;
      above += score < bar && next >= bar ? 1 : 0;
      while (above - histogram[bar]! >= limit) {
        above -= histogram[bar]!;
        bar += 1;
      }
      if (next >= bar - margin) noted.push(document);
    }
    if (offset !== stop) problem = 'bytes follow the last posting of a block';
    else if (document !== last || !reachesMax) problem = 'a block does not end or weigh as its table says';
    if (problem !== undefined) break;
  }
  return { bar, met, total, problem };
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
  // The counted lists first: the count takes a score of 0 as a document not met yet.
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
