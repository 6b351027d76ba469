// A term's postings as one record body, documents in ascending number (the first delta is the
// number itself), all counts unsigned LEB128 varints:
// - index format 3: `df`, then df × (docDelta, impact byte): the document's BM25 term-frequency
//   part, tf·(k1 + 1) / (tf + k1·(1 − b + b·|D|/avgdl)), computed by the writer, which knows avgdl,
//   and quantized to 1..255 steps of (k1 + 1)/255. Near half the bytes of format 2 (650,000
//   Wikipedia-shaped documents: 1,210 MB of term packs → 675 MB) and no arithmetic per posting but a
//   multiply; a query on a host that ignores byte ranges streams its terms' packs, so bytes are
//   its cost. Scores move by at most half a step per term: bench/search-index.mjs measures the
//   top 10 against SQLite FTS5's exact bm25().
// - formats 1 and 2 (trees built before): `df`, then df × (docDelta, tf, docLength); their weights
//   are computed exactly when decoded.
// Portable; the decoder never throws: bytes that do not parse as exactly what they claim are refused.

/** BM25's parameters, as FTS5 fixes them: the weights are made with them (bm25.ts ranks by them). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface CorpusStatistics {
  documentCount: number;
  /** Terms in all documents together: avgdl = tokenCount / documentCount. */
  tokenCount: number;
}

export interface Posting {
  document: number;
  termFrequency: number;
  documentLength: number;
}

/**
 * Postings as parallel arrays (a 2.5 MB list decodes without an object per posting): each
 * document's BM25 term-frequency part, which a query multiplies by the term's idf.
 */
export interface PostingList {
  documents: Uint32Array;
  weights: Float64Array;
}

/** The index format whose postings hold impacts; older ones hold (tf, docLength). */
export const IMPACT_POSTINGS_FORMAT = 3;

/** Varints above 2^35 are not ours: a count, number or length never gets near that. */
const MAX_VARINT_BYTES = 5;
const IMPACT_STEPS = 255;
const IMPACT_STEP = (BM25_K1 + 1) / IMPACT_STEPS;

/** BM25's term-frequency part of one posting, exact. */
export function termWeightOf(termFrequency: number, documentLength: number, averageLength: number): number {
  return (
    (termFrequency * (BM25_K1 + 1)) /
    (termFrequency + BM25_K1 * (1 - BM25_B + BM25_B * (documentLength / averageLength)))
  );
}

/** The average document length BM25 takes: tokens per document (1 for an empty corpus). */
export function averageLengthOf(corpus: CorpusStatistics): number {
  return corpus.tokenCount / corpus.documentCount || 1;
}

/** A posting's impact byte (1..255): its term weight in steps of (k1 + 1)/255, never 0 (it matched). */
export function impactOf(termFrequency: number, documentLength: number, averageLength: number): number {
  const steps = Math.round(termWeightOf(termFrequency, documentLength, averageLength) / IMPACT_STEP);
  return steps < 1 ? 1 : steps > IMPACT_STEPS ? IMPACT_STEPS : steps;
}

/** The term weight an impact byte stands for. */
const WEIGHT_OF_IMPACT = Float64Array.from({ length: IMPACT_STEPS + 1 }, (_, impact) => impact * IMPACT_STEP);

function writeVarint(target: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    target.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  target.push(rest);
}

/** `postings` sorted by document, numbers distinct, as format 3 writes them. */
export function encodePostings(postings: readonly Posting[], averageLength: number): Uint8Array {
  const bytes: number[] = [];
  writeVarint(bytes, postings.length);
  let previous = 0;
  for (const posting of postings) {
    writeVarint(bytes, posting.document - previous);
    bytes.push(impactOf(posting.termFrequency, posting.documentLength, averageLength));
    previous = posting.document;
  }
  return Uint8Array.from(bytes);
}

/** The fewest bytes a posting takes in `format`: a count beyond what the bytes can hold is damage. */
export function minimumPostingBytes(format: number): number {
  return format >= IMPACT_POSTINGS_FORMAT ? 2 : 3;
}

/**
 * The postings of a record body written in index `format`, or a reason when the body is not sound
 * (ends early, bytes left over, a count larger than the bytes can hold, documents out of order or
 * past the corpus, an impact of 0, a term counted more often than its document is long).
 */
export function decodePostings(
  body: Uint8Array,
  corpus: CorpusStatistics,
  format: number,
): PostingList | { problem: string } {
  let offset = 0;
  const read = (): number | undefined => {
    // Most varints here are one byte (deltas of common terms): no loop for those.
    if (offset < body.length && body[offset]! < 0x80) return body[offset++];
    let value = 0;
    let scale = 1;
    for (let used = 0; used < MAX_VARINT_BYTES; used += 1) {
      if (offset >= body.length) return undefined;
      const byte = body[offset]!;
      offset += 1;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    return undefined;
  };
  const impacts = format >= IMPACT_POSTINGS_FORMAT;
  const count = read();
  if (count === undefined || count * minimumPostingBytes(format) > body.length - offset)
    return { problem: 'its posting count does not fit its bytes' };
  const list: PostingList = { documents: new Uint32Array(count), weights: new Float64Array(count) };
  const averageLength = averageLengthOf(corpus);
  let document = 0;
  for (let position = 0; position < count; position += 1) {
    const delta = read();
    if (delta === undefined) return { problem: 'it ends inside a posting' };
    if (position > 0 && delta === 0) return { problem: 'its documents are not in ascending order' };
    document += delta;
    if (document >= corpus.documentCount)
      return { problem: `it names document ${document} of ${corpus.documentCount}` };
    list.documents[position] = document;
    if (impacts) {
      const impact = offset < body.length ? body[offset]! : undefined;
      offset += 1;
      if (impact === undefined) return { problem: 'it ends inside a posting' };
      if (impact === 0) return { problem: 'a posting has no weight' };
      list.weights[position] = WEIGHT_OF_IMPACT[impact]!;
      continue;
    }
    const termFrequency = read();
    const documentLength = read();
    if (termFrequency === undefined || documentLength === undefined) return { problem: 'it ends inside a posting' };
    if (termFrequency === 0 || termFrequency > documentLength)
      return { problem: 'a posting counts more terms than its document has' };
    list.weights[position] = termWeightOf(termFrequency, documentLength, averageLength);
  }
  if (offset !== body.length) return { problem: 'bytes follow its last posting' };
  return list;
}
