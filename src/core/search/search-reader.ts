// Answers `search` and `fetch` from a tree's search index (search-index-format.ts) through the pack
// reader and whatever byte source the host has (a folder, a URL, the worker's assets): a query
// reads one record per distinct term and one title block per result, fetch one record; decoded
// postings and title blocks stay in a bounded LRU, parsed indexes in the pack reader's. Never
// throws on bad input or bad bytes: a bad query or unknown id is an isError result saying what to
// do, a term the index lacks finds nothing, a damaged part or one the host lacks is an isError
// result saying so (and `onProblem` hears why). Host I/O failures do throw, as every
// TreeSource read does.
import { callKeyOf, KEY_KIND } from '../packs/pack-format.js';
import {
  DEFAULT_PACK_CACHE_LIMITS,
  type PackCacheLimits,
  type PackFileSource,
  type PackIndexCache,
  PackReader,
  textOfBody,
} from '../packs/pack-reader.js';
import type { ToolResult } from '../results/tool-result.js';
import { utf8Bytes } from '../tree/utf8.js';
import { rankBm25, type ScoredDocument } from './bm25.js';
import { BoundedCache } from './bounded-cache.js';
import { decodePostings, type PostingList } from './postings.js';
import {
  MAX_DOCUMENT_ID_LENGTH,
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  parseTitleBlock,
  SEARCH_RESULT_LIMIT,
  type SearchIndexTable,
  type TitleEntry,
  titleBlockKeyOf,
} from './search-index-format.js';
import {
  fetchToolResult,
  parseDocumentBody,
  type SearchHit,
  searchErrorResult,
  searchToolResult,
} from './search-results.js';
import { tokenize } from './tokenize.js';

export interface SearchReaderOptions {
  /** The pack reader's index cache: its limits, or one shared with the tree's packed calls. */
  indexCache?: PackCacheLimits | PackIndexCache;
  /** Bytes of decoded postings and title blocks kept (default 8 MiB). */
  maxCachedBytes?: number;
  /** Told why a part of the index was refused (damaged, edited, hostile). */
  onProblem?: (reason: string) => void;
}

export const DEFAULT_SEARCH_CACHE_BYTES = 8 * 1024 * 1024;

/** A search's hits, or the message of its isError result. */
export type SearchOutcome = { status: 'ok'; hits: SearchHit[] } | { status: 'error'; message: string };

/** Refused parts surface as this, turned into an isError result at the top. */
class DamagedIndex {
  constructor(readonly reason: string) {}
}

const DAMAGED_ADVICE = "this server's search index is damaged; its owner should build and deploy the tree again";
// A lone surrogate has no UTF-8 form: such an id could only be forged, and would hash as U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export class SearchReader {
  private readonly packs: PackReader;
  private readonly postings: BoundedCache<PostingList | null>;
  private readonly blocks: BoundedCache<TitleEntry[]>;

  constructor(
    files: PackFileSource,
    private readonly table: SearchIndexTable,
    private readonly options: SearchReaderOptions = {},
  ) {
    this.packs = new PackReader(files, options.indexCache ?? DEFAULT_PACK_CACHE_LIMITS);
    const cacheBytes = options.maxCachedBytes ?? DEFAULT_SEARCH_CACHE_BYTES;
    // Postings take most of the budget; title blocks are small and few per query.
    this.postings = new BoundedCache(Math.floor(cacheBytes * 0.75));
    this.blocks = new BoundedCache(Math.floor(cacheBytes * 0.25));
  }

  /** Bytes held by the reader's caches now (for benches and the bound's tests). */
  cacheSize(): { indexes: number; indexBytes: number; postingBytes: number; blockBytes: number } {
    const indexes = this.packs.cacheSize();
    return {
      indexes: indexes.indexes,
      indexBytes: indexes.bytes,
      postingBytes: this.postings.size().bytes,
      blockBytes: this.blocks.size().bytes,
    };
  }

  /** The `search` tool's result for its arguments. */
  async search(argumentsValue: unknown): Promise<ToolResult> {
    const query = (argumentsValue as { query?: unknown } | null | undefined)?.query;
    const outcome = await this.searchHits(query);
    return outcome.status === 'ok' ? searchToolResult(outcome.hits) : searchErrorResult(outcome.message);
  }

  async searchHits(query: unknown): Promise<SearchOutcome> {
    if (typeof query !== 'string') return { status: 'error', message: 'search needs a query: {"query": "some words"}' };
    if (query.length > MAX_QUERY_LENGTH) {
      return {
        status: 'error',
        message: `The query is ${query.length} characters long; search takes at most ${MAX_QUERY_LENGTH}. Ask with a few words.`,
      };
    }
    if (query.trim() === '') return { status: 'error', message: 'The query is empty: give a few words to look for.' };
    // Only letters and numbers make terms: a query of punctuation alone finds nothing, which is an answer.
    const terms = [...new Set(tokenize(query))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || this.table.documentCount === 0) return { status: 'ok', hits: [] };
    try {
      const lists = await Promise.all(terms.map((term) => this.postingsOf(term)));
      const found = lists.filter((list): list is PostingList => list !== null);
      const best = rankBm25(found, this.table, SEARCH_RESULT_LIMIT);
      return { status: 'ok', hits: await this.hitsOf(best) };
    } catch (error) {
      if (error instanceof DamagedIndex) return this.damaged(error.reason);
      throw error;
    }
  }

  /** The `fetch` tool's result for its arguments. */
  async fetch(argumentsValue: unknown): Promise<ToolResult> {
    const id = (argumentsValue as { id?: unknown } | null | undefined)?.id;
    if (typeof id !== 'string' || id === '')
      return searchErrorResult('fetch needs the id of a search result: {"id": "…"}');
    const unknown = searchErrorResult(
      `No document has the id ${JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id)}; use an id that search returned.`,
    );
    if (id.length > MAX_DOCUMENT_ID_LENGTH || LONE_SURROGATE.test(id) || this.table.documents.length === 0)
      return unknown;
    const found = await this.packs.lookup(this.table.documents, KEY_KIND.call, callKeyOf(id), id);
    if (found.status !== 'ok') {
      // A record that does not name the id is a hash collision with a forged id, not damage.
      if (found.status === 'missing' || found.reason.includes('does not name it')) return unknown;
      return searchErrorResult(this.damaged(found.reason).message);
    }
    const document = parseDocumentBody(textOfBody(found.body), id);
    if (document === undefined)
      return searchErrorResult(this.damaged(`the document record of ${id} is not a document`).message);
    return fetchToolResult(document);
  }

  private damaged(reason: string): { status: 'error'; message: string } {
    this.options.onProblem?.(reason);
    return { status: 'error', message: `Search failed: ${DAMAGED_ADVICE} (${reason}).` };
  }

  /** A term's postings, null when the index does not hold it; throws DamagedIndex when refused. */
  private async postingsOf(term: string): Promise<PostingList | null> {
    const cached = this.postings.get(term);
    if (cached !== undefined) return cached;
    const found = await this.packs.lookup(this.table.terms, KEY_KIND.term, utf8Bytes(term), term);
    if (found.status !== 'ok') {
      // The term is not in the corpus; any other `missing` is a part the host lacks (a deploy cut
      // short), which would silently drop results, so it is reported. The pack reader says which
      // in its reason only: a typed field there would be sturdier.
      if (found.status === 'missing' && found.reason.startsWith(`${term} is not in this tree`)) return null;
      throw new DamagedIndex(found.reason);
    }
    const list = decodePostings(found.body, this.table.documentCount);
    if ('problem' in list) throw new DamagedIndex(`the postings of "${term}" in ${found.pack}: ${list.problem}`);
    this.postings.set(term, list, 64 + term.length * 2 + list.documents.length * 12);
    return list;
  }

  private async hitsOf(best: readonly ScoredDocument[]): Promise<SearchHit[]> {
    const blockSize = this.table.blockSize;
    const blockNumbers = [...new Set(best.map((scored) => Math.floor(scored.document / blockSize)))];
    const blocks = new Map<number, TitleEntry[]>();
    await Promise.all(
      blockNumbers.map(async (block) => {
        blocks.set(block, await this.titleBlock(block));
      }),
    );
    // Every block was read or threw: get() finds each.
    return best.map((scored) => blocks.get(Math.floor(scored.document / blockSize))![scored.document % blockSize]!);
  }

  private async titleBlock(block: number): Promise<TitleEntry[]> {
    const key = titleBlockKeyOf(block);
    const cached = this.blocks.get(key);
    if (cached !== undefined) return cached;
    const found = await this.packs.lookup(this.table.titles, KEY_KIND.term, utf8Bytes(key), key);
    // The postings named this document, so its block must exist: a missing one is damage too.
    if (found.status !== 'ok') throw new DamagedIndex(found.reason);
    const count = Math.min(this.table.blockSize, this.table.documentCount - block * this.table.blockSize);
    const text = textOfBody(found.body);
    const entries = parseTitleBlock(text, count);
    if (entries === undefined)
      throw new DamagedIndex(`title block ${key} in ${found.pack} is not ${count} [id, title, url] entries`);
    this.blocks.set(key, entries, 64 + text.length * 2);
    return entries;
  }
}
