// A term's postings as one record body, documents in ascending number, all counts unsigned LEB128
// varints:
// - index formats 4 and 5: `df`, then a skip table of one entry per block of POSTING_BLOCK_SIZE postings
//   (the block's last document as a delta from the previous block's, its bytes, its largest impact
//   byte), then the blocks: (docDelta varint, impact byte) per posting, each block's first delta
//   taken from the previous block's last document (the first block's from 0). An impact is the
//   document's BM25 term-frequency part, tf·(k1 + 1) / (tf + k1·(1 − b + b·|D|/avgdl)), computed by
//   the writer, which knows avgdl, in 1..255 steps of (k1 + 1)/255. The table lets a query skip
//   the blocks of a long list that cannot change its page (bm25.ts): a block is decoded only when
//   read. Scores move by at most half a step per term: bench/search-index.mjs measures the top 10
//   against SQLite FTS5's exact bm25().
// - format 3: `df`, then df × (docDelta, impact byte), no table.
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

/** The first index format whose postings hold impacts, and the first whose postings come in blocks. */
export const IMPACT_POSTINGS_FORMAT = 3;
export const BLOCKED_POSTINGS_FORMAT = 4;
/** Postings per block: a skip-table entry (~5 bytes) per ~250 bytes of postings. */
export const POSTING_BLOCK_SIZE = 128;

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

/**
 * Steps per doubling of the average length the writers weigh postings with. The exact average moves
 * with every edit that changes a document's length, and with it the impact bytes of most postings:
 * rounded to a step of 2^(1/32) (≈2.2 %), a one-document edit leaves it, and so every term record the
 * edit does not hold, unchanged. A posting's weight moves by less than 1.1 %.
 */
export const AVERAGE_LENGTH_STEPS_PER_DOUBLING = 32;

/** The average length both index writers weigh postings with: averageLengthOf on a coarse log scale. */
export function weightAverageLengthOf(corpus: CorpusStatistics): number {
  const exact = averageLengthOf(corpus);
  const step = Math.round(Math.log2(exact) * AVERAGE_LENGTH_STEPS_PER_DOUBLING);
  return 2 ** (step / AVERAGE_LENGTH_STEPS_PER_DOUBLING);
}

/** A posting's impact byte (1..255): its term weight in steps of (k1 + 1)/255, never 0 (it matched). */
export function impactOf(termFrequency: number, documentLength: number, averageLength: number): number {
  const steps = Math.round(termWeightOf(termFrequency, documentLength, averageLength) / IMPACT_STEP);
  return steps < 1 ? 1 : steps > IMPACT_STEPS ? IMPACT_STEPS : steps;
}

/** The term weight an impact byte stands for. */
const WEIGHT_OF_IMPACT = Float64Array.from({ length: IMPACT_STEPS + 1 }, (_, impact) => impact * IMPACT_STEP);

/** The term weight impact byte `impact` (0..255) stands for, as a decoded posting weighs. */
export function weightOfImpact(impact: number): number {
  return WEIGHT_OF_IMPACT[impact]!;
}

/** Writes `value` as an unsigned LEB128 varint at `at`; returns where the next byte goes. */
export function writeVarint(target: Uint8Array, at: number, value: number): number {
  let rest = value;
  let position = at;
  while (rest >= 0x80) {
    target[position++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  target[position++] = rest;
  return position;
}

/** Reads an unsigned LEB128 varint (at most 5 bytes) at `cursor.at` and moves past it; throws RangeError on bytes that end early. */
export function readVarint(bytes: Uint8Array, cursor: { at: number }): number {
  let value = 0;
  let scale = 1;
  for (let shift = 0; shift < 5; shift += 1) {
    const byte = bytes[cursor.at++];
    if (byte === undefined) throw new RangeError('a varint ends early');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
  }
  throw new RangeError('a varint is too long');
}

let blockScratch = new Uint8Array(4096);
let tableScratch = new Uint8Array(1024);

/**
 * Format 4's body for postings given as documents (ascending, distinct) and their impact bytes,
 * in the order `order` lists positions (default: as given). Shared by both index writers.
 */
export function encodeImpactPostings(
  documents: ArrayLike<number>,
  impacts: ArrayLike<number>,
  order?: ArrayLike<number>,
): Uint8Array {
  const count = documents.length;
  const blockCount = Math.ceil(count / POSTING_BLOCK_SIZE);
  // At most 5 bytes per varint (values < 2^35) and the impact byte; a table entry is 2 varints and a
  // byte. Both written into buffers kept from call to call: a writer encodes a record per term.
  if (count * 6 > blockScratch.length) blockScratch = new Uint8Array(Math.max(count * 6, blockScratch.length * 2));
  if (5 + blockCount * 11 > tableScratch.length)
    tableScratch = new Uint8Array(Math.max(5 + blockCount * 11, tableScratch.length * 2));
  const blocks = blockScratch;
  const table = tableScratch;
  let tableLength = writeVarint(table, 0, count);
  let length = 0;
  let previous = 0;
  for (let block = 0; block < blockCount; block += 1) {
    const blockStart = length;
    const blockPrevious = previous;
    let maxImpact = 0;
    const end = Math.min(count, (block + 1) * POSTING_BLOCK_SIZE);
    for (let index = block * POSTING_BLOCK_SIZE; index < end; index += 1) {
      const position = order === undefined ? index : order[index]!;
      const document = documents[position]!;
      const impact = impacts[position]!;
      length = writeVarint(blocks, length, document - previous);
      blocks[length++] = impact;
      if (impact > maxImpact) maxImpact = impact;
      previous = document;
    }
    tableLength = writeVarint(table, tableLength, previous - blockPrevious);
    tableLength = writeVarint(table, tableLength, length - blockStart);
    table[tableLength++] = maxImpact;
  }
  const body = new Uint8Array(tableLength + length);
  body.set(table.subarray(0, tableLength), 0);
  body.set(blocks.subarray(0, length), tableLength);
  return body;
}

/** `postings` sorted by document, numbers distinct, as the current format writes them. */
export function encodePostings(postings: readonly Posting[], averageLength: number): Uint8Array {
  return encodeImpactPostings(
    postings.map((posting) => posting.document),
    postings.map((posting) => impactOf(posting.termFrequency, posting.documentLength, averageLength)),
  );
}

/** The fewest bytes a posting takes in `format`: a count beyond what the bytes can hold is damage. */
export function minimumPostingBytes(format: number): number {
  return format >= IMPACT_POSTINGS_FORMAT ? 2 : 3;
}

/** Reads varints from `bytes`; undefined past the end or past MAX_VARINT_BYTES. */
class VarintCursor {
  constructor(
    readonly bytes: Uint8Array,
    public offset: number,
  ) {}

  read(): number | undefined {
    const bytes = this.bytes;
    // Most varints here are one byte (deltas of common terms): no loop for those.
    if (this.offset < bytes.length && bytes[this.offset]! < 0x80) return bytes[this.offset++];
    let value = 0;
    let scale = 1;
    for (let used = 0; used < MAX_VARINT_BYTES; used += 1) {
      if (this.offset >= bytes.length) return undefined;
      const byte = bytes[this.offset]!;
      this.offset += 1;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    return undefined;
  }
}

/**
 * A term's postings as parallel arrays (a 2.5 MB list decodes without an object per posting),
 * each document's BM25 term-frequency part beside it (weightAt), which a query multiplies by the
 * term's idf. Blocks of POSTING_BLOCK_SIZE postings, with each block's last document and largest
 * weight known before the block is decoded: `documents` and the weights hold a block's postings
 * once `readBlock` decoded it (formats 4 and later decode on demand, keeping each posting's impact
 * byte; older formats decode everything at once, with exact weights).
 */
export class PostingList {
  readonly documents: Uint32Array;
  /** Each posting's impact byte (formats 4 and later): integers, which first-run code adds without allocating. */
  readonly impacts: Uint8Array | undefined;
  private readonly exactWeights: Float64Array | undefined;
  readonly blockLastDocuments: Uint32Array;
  readonly blockMaxWeights: Float64Array;
  /** Each block's largest impact byte (formats 4 and later). */
  readonly blockMaxImpacts: Uint8Array;
  /** 1 for each block `documents` and the weights hold. */
  readonly decoded: Uint8Array;

  constructor(
    readonly count: number,
    blockCount: number,
    /** The blocks' bytes and where each block starts in them (format 4 and later). */
    readonly blockBytes?: { bytes: Uint8Array; starts: Uint32Array },
  ) {
    this.documents = new Uint32Array(count);
    if (blockBytes === undefined) this.exactWeights = new Float64Array(count);
    else this.impacts = new Uint8Array(count);
    this.blockLastDocuments = new Uint32Array(blockCount);
    this.blockMaxWeights = new Float64Array(blockCount);
    this.blockMaxImpacts = new Uint8Array(blockCount);
    this.decoded = new Uint8Array(blockCount);
  }

  get blockCount(): number {
    return this.decoded.length;
  }

  /** The weight of the posting at `position` (of a decoded block). */
  weightAt(position: number): number {
    const impacts = this.impacts;
    return impacts !== undefined ? WEIGHT_OF_IMPACT[impacts[position]!]! : this.exactWeights![position]!;
  }

  /** Bytes the list holds (its arrays, and the blocks' bytes not yet decoded). */
  get heldBytes(): number {
    const perPosting = this.impacts !== undefined ? 5 : 12;
    return this.count * perPosting + this.blockCount * 14 + (this.blockBytes?.bytes.length ?? 0);
  }

  /** Decodes `block` into `documents` and the weights unless done; a problem when its bytes are not sound. */
  readBlock(block: number): string | undefined {
    return this.decoded[block] === 1 ? undefined : this.readBlocks(block, block + 1);
  }

  /** Decodes every block; the first problem found, or undefined. */
  readEveryBlock(): string | undefined {
    return this.readBlocks(0, this.blockCount);
  }

  /**
   * Decodes the blocks `first` to `end` (exclusive) not yet decoded, in one loop with the varints
   * read inline and integers only: a cold query decodes 100,000+ postings here, where a call per
   * block and per varint, or a floating-point weight per posting (a number first-run code
   * allocates), would cost several times as much. dense-rank.ts decodes as this does, checks
   * included, while it scores.
   */
  private readBlocks(first: number, end: number): string | undefined {
    if (this.blockBytes === undefined) return undefined;
    const { bytes, starts } = this.blockBytes;
    const { documents, decoded, blockLastDocuments, blockMaxImpacts } = this;
    const impacts = this.impacts!;
    const count = this.count;
    for (let block = first; block < end; block += 1) {
      if (decoded[block] === 1) continue;
      let offset = starts[block]!;
      const stop = starts[block + 1]!;
      const last = blockLastDocuments[block]!;
      const maxImpact = blockMaxImpacts[block]!;
      let document = block === 0 ? 0 : blockLastDocuments[block - 1]!;
      let reachesMax = false;
      const postingEnd = Math.min(count, (block + 1) * POSTING_BLOCK_SIZE);
      for (let position = block * POSTING_BLOCK_SIZE; position < postingEnd; position += 1) {
        // An unsigned LEB128 varint of at most MAX_VARINT_BYTES, as VarintCursor reads it.
        let delta = 0;
        let scale = 1;
        let used = 0;
        for (;;) {
          if (offset >= stop || used === MAX_VARINT_BYTES) return 'a block ends inside a posting';
          const byte = bytes[offset++]!;
          used += 1;
          delta += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 128;
        }
        if (offset >= stop) return 'a block ends inside a posting';
        if (position > 0 && delta === 0) return 'its documents are not in ascending order';
        document += delta;
        if (document > last) return 'a block holds a document past its last';
        const impact = bytes[offset++]!;
        if (impact === 0) return 'a posting has no weight';
        if (impact > maxImpact) return 'a posting weighs more than its block says';
        if (impact === maxImpact) reachesMax = true;
        documents[position] = document;
        impacts[position] = impact;
      }
      if (offset !== stop) return 'bytes follow the last posting of a block';
      if (document !== last || !reachesMax) return 'a block does not end or weigh as its table says';
      decoded[block] = 1;
    }
    return undefined;
  }

  /** A list of postings already decoded: documents ascending and distinct, weights beside them. */
  static ofDecoded(documents: ArrayLike<number>, weights: ArrayLike<number>): PostingList {
    const list = new PostingList(documents.length, Math.ceil(documents.length / POSTING_BLOCK_SIZE));
    list.documents.set(documents);
    list.exactWeights!.set(weights);
    for (let block = 0; block < list.blockCount; block += 1) {
      const end = Math.min(list.count, (block + 1) * POSTING_BLOCK_SIZE);
      let max = 0;
      for (let position = block * POSTING_BLOCK_SIZE; position < end; position += 1)
        if (weights[position]! > max) max = weights[position]!;
      list.blockLastDocuments[block] = list.documents[end - 1]!;
      list.blockMaxWeights[block] = max;
      list.decoded[block] = 1;
    }
    return list;
  }
}

/**
 * The postings of a record body written in index `format`, or a reason when the body is not sound
 * (ends early, bytes left over, a count larger than the bytes can hold, documents out of order or
 * past the corpus, an impact of 0, a term counted more often than its document is long). Format
 * 4's blocks are checked as they are decoded (PostingList.readBlock), its table here.
 */
export function decodePostings(
  body: Uint8Array,
  corpus: CorpusStatistics,
  format: number,
): PostingList | { problem: string } {
  const cursor = new VarintCursor(body, 0);
  const count = cursor.read();
  if (count === undefined || count * minimumPostingBytes(format) > body.length - cursor.offset)
    return { problem: 'its posting count does not fit its bytes' };
  if (format >= BLOCKED_POSTINGS_FORMAT) return decodeBlockTable(cursor, count, corpus);
  const documents = new Uint32Array(count);
  const weights = new Float64Array(count);
  const impacts = format >= IMPACT_POSTINGS_FORMAT;
  const averageLength = averageLengthOf(corpus);
  let document = 0;
  for (let position = 0; position < count; position += 1) {
    const delta = cursor.read();
    if (delta === undefined) return { problem: 'it ends inside a posting' };
    if (position > 0 && delta === 0) return { problem: 'its documents are not in ascending order' };
    document += delta;
    if (document >= corpus.documentCount)
      return { problem: `it names document ${document} of ${corpus.documentCount}` };
    documents[position] = document;
    if (impacts) {
      const impact = cursor.offset < body.length ? body[cursor.offset]! : undefined;
      cursor.offset += 1;
      if (impact === undefined) return { problem: 'it ends inside a posting' };
      if (impact === 0) return { problem: 'a posting has no weight' };
      weights[position] = WEIGHT_OF_IMPACT[impact]!;
      continue;
    }
    const termFrequency = cursor.read();
    const documentLength = cursor.read();
    if (termFrequency === undefined || documentLength === undefined) return { problem: 'it ends inside a posting' };
    if (termFrequency === 0 || termFrequency > documentLength)
      return { problem: 'a posting counts more terms than its document has' };
    weights[position] = termWeightOf(termFrequency, documentLength, averageLength);
  }
  if (cursor.offset !== body.length) return { problem: 'bytes follow its last posting' };
  return PostingList.ofDecoded(documents, weights);
}

/** Format 4's skip table, read after `count`; the blocks stay bytes (a copy: not the pack's buffer). */
function decodeBlockTable(
  cursor: VarintCursor,
  count: number,
  corpus: CorpusStatistics,
): PostingList | { problem: string } {
  const blockCount = Math.ceil(count / POSTING_BLOCK_SIZE);
  const lastDocuments = new Uint32Array(blockCount);
  const maxImpacts = new Uint8Array(blockCount);
  const lengths = new Uint32Array(blockCount);
  let last = 0;
  let blockBytes = 0;
  for (let block = 0; block < blockCount; block += 1) {
    const delta = cursor.read();
    const length = cursor.read();
    const maxImpact = cursor.offset < cursor.bytes.length ? cursor.bytes[cursor.offset++] : undefined;
    if (delta === undefined || length === undefined || maxImpact === undefined)
      return { problem: 'it ends inside its block table' };
    const postings = Math.min(POSTING_BLOCK_SIZE, count - block * POSTING_BLOCK_SIZE);
    if ((block > 0 && delta < postings) || (block === 0 && delta < postings - 1))
      return { problem: 'its documents are not in ascending order' };
    last += delta;
    if (last >= corpus.documentCount) return { problem: `it names document ${last} of ${corpus.documentCount}` };
    if (maxImpact === 0) return { problem: 'a posting has no weight' };
    if (length < postings * 2) return { problem: 'a block is shorter than its postings' };
    lastDocuments[block] = last;
    maxImpacts[block] = maxImpact;
    lengths[block] = length;
    blockBytes += length;
  }
  if (blockBytes !== cursor.bytes.length - cursor.offset)
    return { problem: 'its blocks do not take the bytes its table says' };
  const starts = new Uint32Array(blockCount + 1);
  for (let block = 0; block < blockCount; block += 1) starts[block + 1] = starts[block]! + lengths[block]!;
  const list = new PostingList(count, blockCount, { bytes: cursor.bytes.slice(cursor.offset), starts });
  list.blockLastDocuments.set(lastDocuments);
  list.blockMaxImpacts.set(maxImpacts);
  for (let block = 0; block < blockCount; block += 1)
    list.blockMaxWeights[block] = WEIGHT_OF_IMPACT[maxImpacts[block]!]!;
  return list;
}
