// Postings decoded once for two records of the same bytes (issue #40): a word whose stem has no
// other form (most rare words) has its own record and its stem's, byte for byte the same, and a
// query reads both. The second is compared with the few lists decoded last (natively where the
// host can, same-bytes.ts) and, when equal, is that list: its block table is not walked again, its
// blocks not copied again, and the ranking finds one list (one-list-rank.ts). Portable.
import { type CorpusStatistics, decodePostings, type PostingList } from './postings.js';
import { holdSameBytes } from './same-bytes.js';

/** Lists decoded last: a word's and its stem's records are read by one query, a few lookups apart. */
const RECENT_LISTS = 4;

interface RecentList {
  /** The record's bytes before its blocks (a copy): its count and block table. */
  table: Uint8Array;
  /** Held weakly: the reader's bounded cache decides how long a list stays. */
  list: WeakRef<PostingList>;
  documentCount: number;
  tokenCount: number;
  format: number;
}

const recent: RecentList[] = [];

/** decodePostings, answering a list decoded last when `body` holds its very bytes. */
export function decodePostingsOnce(
  body: Uint8Array,
  corpus: CorpusStatistics,
  format: number,
): PostingList | { problem: string } {
  for (const known of recent) {
    const list = known.list.deref();
    const blocks = list?.blockBytes?.bytes;
    if (
      list !== undefined &&
      blocks !== undefined &&
      known.documentCount === corpus.documentCount &&
      known.tokenCount === corpus.tokenCount &&
      known.format === format &&
      body.length === known.table.length + blocks.length &&
      holdSameBytes(body.subarray(0, known.table.length), known.table) &&
      holdSameBytes(body.subarray(known.table.length), blocks)
    )
      return list;
  }
  const list = decodePostings(body, corpus, format);
  // Only lists whose blocks stay bytes (format 4 and later) are kept: their table is what precedes them.
  if ('problem' in list || list.blockBytes === undefined) return list;
  const tableLength = body.length - list.blockBytes.bytes.length;
  recent.unshift({
    table: body.slice(0, tableLength),
    list: new WeakRef(list),
    documentCount: corpus.documentCount,
    tokenCount: corpus.tokenCount,
    format,
  });
  recent.length = Math.min(recent.length, RECENT_LISTS);
  return list;
}
