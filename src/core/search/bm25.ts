// BM25 as SQLite FTS5's bm25() computes it (fts5_aux.c), so the ranking can be checked against it:
// idf = ln((N − df + 0.5) / (df + 0.5)), floored to 1e-6 when not positive; each distinct query
// term adds idf · tf·(k1 + 1) / (tf + k1·(1 − b + b·|D|/avgdl)), the second factor being the
// posting's weight (postings.ts: quantized by the writer since index format 3). FTS5 returns the
// negation (lower is better); this returns the score itself, highest first, ties by lower
// document number. A document matches when it holds any query term. Portable, allocation bounded by the postings read.
import type { CorpusStatistics, PostingList } from './postings.js';

export interface ScoredDocument {
  document: number;
  score: number;
}

/** FTS5's idf, floor included: a term in more than half the documents adds next to nothing. */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  const idf = Math.log((documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/**
 * The `limit` best documents for the postings of the query's distinct terms. The lists are sorted
 * by document, so they are walked together and each document's score is summed where it is met:
 * no map of every matching document (at 650,000 documents a common term's list holds 100,000+, and
 * a Map of them was 90% of a query's CPU). Each document's terms add in list order, as before.
 */
export function rankBm25(lists: readonly PostingList[], corpus: CorpusStatistics, limit: number): ScoredDocument[] {
  if (corpus.documentCount === 0 || limit <= 0) return [];
  const idfs = Float64Array.from(lists, (list) =>
    inverseDocumentFrequency(corpus.documentCount, list.documents.length),
  );
  const positions = new Uint32Array(lists.length);
  const best: ScoredDocument[] = [];
  // The score a document needs to enter the page once it is full (the last one's), kept in locals:
  // most documents of a long list fall below it and cost one comparison.
  let floorScore = Number.NEGATIVE_INFINITY;
  let floorDocument = -1;
  for (;;) {
    let document = Number.POSITIVE_INFINITY;
    for (let index = 0; index < lists.length; index += 1) {
      const documents = lists[index]!.documents;
      const position = positions[index]!;
      if (position < documents.length && documents[position]! < document) document = documents[position]!;
    }
    if (document === Number.POSITIVE_INFINITY) break;
    let score = 0;
    for (let index = 0; index < lists.length; index += 1) {
      const list = lists[index]!;
      const position = positions[index]!;
      if (position >= list.documents.length || list.documents[position] !== document) continue;
      score += idfs[index]! * list.weights[position]!;
      positions[index] = position + 1;
    }
    // The best `limit` so far, best first: inserting into a short sorted array beats sorting every match.
    if (score < floorScore || (score === floorScore && document > floorDocument)) continue;
    let at = best.length;
    while (at > 0 && ranksBefore(document, score, best[at - 1]!)) at -= 1;
    best.splice(at, 0, { document, score });
    if (best.length > limit) best.pop();
    if (best.length === limit) {
      floorScore = best[limit - 1]!.score;
      floorDocument = best[limit - 1]!.document;
    }
  }
  return best;
}

function ranksBefore(document: number, score: number, other: ScoredDocument): boolean {
  return score > other.score || (score === other.score && document < other.document);
}
