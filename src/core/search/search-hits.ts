// A search's page of hits from its ranked documents (issue #40): each one's title entry, read from
// its title block (one record per block of documents, found in its pack whole when the title pack
// rows name the packs: the table's, or their own file's, title-pack-rows.ts), and its excerpt, cut from its excerpt source (result-excerpts.ts, excerpt.ts). A
// title block that cannot be read refuses the search (DamagedIndex: the postings named its
// documents); a source that cannot be read costs only its own result's excerpt. Portable.
import type { BoundedCache } from '../packs/bounded-cache.js';
import { type PackReader, textOfBody } from '../packs/pack-reader.js';
import type { SharedReads } from '../packs/shared-reads.js';
import { utf8Bytes } from '../tree/utf8.js';
import type { ScoredDocument } from './bm25.js';
import { DamagedIndex } from './damaged-index.js';
import { excerptOf } from './excerpt.js';
import type { TokenMatcher } from './query-terms.js';
import { type ReadTitleBlock, readExcerptTexts } from './result-excerpts.js';
import {
  parseTitleBlock,
  type SearchIndexCounts,
  type SearchIndexTable,
  titleBlockKeyOf,
} from './search-index-format.js';
import { lookupSearchRecord } from './search-pack-rows.js';
import type { SearchHit } from './search-results.js';

/**
 * What reading a search's hits takes: its reads, the index's counts, the table (read when a lookup
 * needs the title or document index), the pack of a title block when the host sends whole files
 * and the rows name it (null: before every pack; absent or undefined: ask the title index), the
 * reader's kept title blocks.
 */
export interface HitReads {
  packs: PackReader;
  files: SharedReads;
  counts: SearchIndexCounts;
  table: () => Promise<SearchIndexTable>;
  titlePackOf?: (block: number) => string | null | undefined;
  blocks: BoundedCache<ReadTitleBlock>;
  options: { onProblem?: (reason: string) => void };
}

/**
 * The hits of the ranked documents: their title entries, and each one's excerpt from its stored
 * text (none for a document that stores no text; a record that cannot be read costs only its
 * own excerpt, and `onProblem` hears why). Throws DamagedIndex when a title block is refused.
 */
export async function readHits(
  reads: HitReads,
  best: readonly ScoredDocument[],
  matchOf: TokenMatcher,
  termCount: number,
): Promise<SearchHit[]> {
  const { counts, options } = reads;
  const blockSize = counts.blockSize;
  const blockNumbers = [...new Set(best.map((scored) => Math.floor(scored.document / blockSize)))];
  const blocks = new Map<number, ReadTitleBlock>();
  // A refused title block is the search's error, once every block's read has settled.
  const settled = await Promise.allSettled(
    blockNumbers.map(async (block) => {
      blocks.set(block, await readTitleBlock(reads, block));
    }),
  );
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  // Every block was read: get() finds each. Its excerpt sources follow it in its pack.
  const entries = best.map(
    (scored) => blocks.get(Math.floor(scored.document / blockSize))!.entries[scored.document % blockSize]!,
  );
  const texts = await readExcerptTexts(reads.packs, blockSize, reads.table, counts.format, best, options, blocks);
  return entries.map((entry, position): SearchHit => {
    const hit: SearchHit = { id: entry.id, title: entry.title, url: entry.url };
    const text = texts[position];
    if (text !== undefined && 'problem' in text)
      options.onProblem?.(`the excerpt source of ${entry.id} ${text.problem}`);
    const excerpt =
      text === undefined || 'problem' in text ? undefined : excerptOf(text.text, matchOf, termCount, text.goesOn);
    if (excerpt !== undefined) {
      hit.excerpt = excerpt.text;
      hit.matches = excerpt.matches;
    }
    return hit;
  });
}

async function readTitleBlock(reads: HitReads, block: number): Promise<ReadTitleBlock> {
  const { counts } = reads;
  const key = titleBlockKeyOf(block);
  const cached = reads.blocks.get(key);
  if (cached !== undefined) return cached;
  const blockKey = utf8Bytes(key);
  const wholePack = reads.files.sendsWholeFiles === true ? reads.titlePackOf?.(block) : undefined;
  const titleRows = async () => (await reads.table()).titles;
  let found = await lookupSearchRecord(reads.packs, titleRows, wholePack, blockKey, key);
  // A sound pack without the block: the row that named it is wrong, and the title index says where it is.
  if (found.status === 'missing' && wholePack !== undefined)
    found = await lookupSearchRecord(reads.packs, titleRows, undefined, blockKey, key);
  // The postings named this document, so its block must exist: a missing one is damage too.
  if (found.status !== 'ok') throw new DamagedIndex(found.reason);
  const count = Math.min(counts.blockSize, counts.documentCount - block * counts.blockSize);
  const text = textOfBody(found.body);
  const entries = parseTitleBlock(text, count, counts.format);
  if (entries === undefined)
    throw new DamagedIndex(`title block ${key} in ${found.pack} is not ${count} title entries`);
  const { pack, packLength, recordOffset, recordLength } = found;
  const read = { entries, pack, packLength, recordOffset, recordLength };
  reads.blocks.set(key, read, 64 + pack.length * 2 + text.length * 2);
  return read;
}
