// Answers `search` and `fetch` from a tree's search index (search-index-format.ts) through the pack
// reader and whatever byte source the host has (a folder, a URL, the worker's assets): a query
// reads one record per key its words are looked up under (format 6: each word's stem list and its
// own, query-terms.ts; a prefix's words, from the term indexes), one title block per result and
// each result's excerpt source (search-hits.ts), and counts the matching documents
// (rank-and-count.ts); fetch reads one record (and, for a precomputed call's document, the call
// itself, through `readCall`: the index keeps no copy of a call's text; a call the host lacks or
// that no longer reads as a document is an isError result saying to build again); decoded postings
// and title blocks stay in a bounded LRU, parsed indexes in the pack reader's. A table kept in its
// own file (search-index-format.ts) is read when a search or fetch first needs it, and kept: a
// word whose term pack mcp.json names is found, or known missing, without it, and a result's title
// pack through the title pack rows' file when mcp.json names one (title-pack-rows.ts).
// A term in at least half the documents (FTS5's idf floor: it adds ~1e-6 to a score) has the
// longest postings (2.5 MB at 650,000 documents) for nothing: when the other terms of the query
// already find a page of results, its postings are not read, only its count of documents (the
// first bytes of its record, read only when the record is long enough to hold that many). Never
// throws on bad input or bad bytes: a bad query or unknown id is an isError result saying what to
// do, a term the index lacks finds nothing, a damaged part or one the host lacks is an isError
// result saying so (and `onProblem` hears why). Host I/O failures do throw, as every
// TreeSource read does, except a call's read for fetch: that one document's isError result.
import { KEY_KIND } from '../packs/pack-format.js';
import {
  DEFAULT_PACK_CACHE_LIMITS,
  type PackCacheLimits,
  type PackFileSource,
  PackIndexCache,
  PackReader,
  type WholePackKeeping,
} from '../packs/pack-reader.js';
import type { ReadOutcome } from '../tree/tree-source.js';
import type { ToolResult } from '../results/tool-result.js';
import { decodeUtf8, utf8Bytes } from '../tree/utf8.js';
import { inverseDocumentFrequency } from './bm25.js';
import { BoundedCache } from '../packs/bounded-cache.js';
import type { PostingList } from './postings.js';
import { decodePostingsOnce } from './recent-postings.js';
import {
  MAX_DOCUMENT_ID_LENGTH,
  MAX_QUERY_LENGTH,
  parseSearchTableFile,
  SEARCH_RESULT_LIMIT,
  type SearchIndexCounts,
  type SearchIndexTable,
  type SearchPackRows,
  type SearchTableFileSource,
} from './search-index-format.js';
import {
  type FetchedDocument,
  fetchToolResult,
  type SearchHit,
  searchErrorResult,
  searchToolResult,
} from './search-results.js';
import { rankAndCount } from './rank-and-count.js';
import {
  MAX_PREFIX_INDEXES,
  MAX_PREFIX_KEYS,
  MAX_PREFIX_TERMS,
  parseQuery,
  tokenMatcherOf,
  wordLookupsOf,
} from './query-terms.js';
import { commonFrequencyOf } from './common-term-frequency.js';
import { readStoredDocument, textOfCall } from './stored-documents.js';
import { isStemKey, shownKeyOf, wordOfStemKey } from './stem.js';
import type { ReadTitleBlock } from './result-excerpts.js';
import { DamagedIndex } from './damaged-index.js';
import { readHits } from './search-hits.js';
import { SharedReads } from '../packs/shared-reads.js';
import { lookupSearchRecord, wholePackOf } from './search-pack-rows.js';
import { type TitlePackFile, titlePackLookupOf } from './title-pack-rows.js';

export interface SearchReaderOptions {
  /** The pack reader's index cache: its limits, or one shared with the tree's packed calls. */
  indexCache?: PackCacheLimits | PackIndexCache;
  /** Bytes of decoded postings and title blocks kept (default 8 MiB). */
  maxCachedBytes?: number;
  /** Told why a part of the index was refused (damaged, edited, hostile). */
  onProblem?: (reason: string) => void;
  /**
   * Reads a precomputed call's file as the tree answers tools/call (plain, or packed), for the
   * documents whose text is their call's (format 2). Absent: such a fetch is an isError result.
   */
  readCall?: (treePath: string) => Promise<ReadOutcome>;
}

export const DEFAULT_SEARCH_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Term packs a host sent whole are kept (in the pack reader's whole-pack cache) only this small,
 * and only into room no other pack holds: a corpus whose term packs stay at the writer's base size
 * (Debian's 63,000 descriptions: 4 MB of terms) is answered from memory once warm (workerd: 6.0 →
 * 4.2 ms a query, bench/search-query.mjs), while at 650,000 documents the term packs, read once in
 * a long while, would push out the title packs every query reads: the 247 of 1,406 under this
 * size did, and a query fetched ~2 title packs again. A document's pack is never kept: fetch reads
 * one record of it.
 */
const TERM_PACK_KEEPING: WholePackKeeping = { upToBytes: 256 * 1024 + 64 * 1024, pushesOut: false };

/** A search's hits, or the message of its isError result. */
export type SearchOutcome = { status: 'ok'; hits: SearchHit[]; total: number } | { status: 'error'; message: string };

const DAMAGED_ADVICE = "this server's search index is damaged; its owner should build and deploy the tree again";
// A lone surrogate has no UTF-8 form: such an id could only be forged, and would hash as U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A term at FTS5's idf floor whose postings were not read: only its document count is known. */
interface CommonTerm {
  common: true;
  documentFrequency: number;
}

type TermPostings = PostingList | CommonTerm | null;

function isPostingList(value: TermPostings): value is PostingList {
  return value !== null && !('common' in value);
}

/** One search's reads: a file two of its lookups need is read once (shared-reads.ts). */
interface QueryReads {
  packs: PackReader;
  files: SharedReads;
  /** Each term's postings as this search reads them, by `maySkip` and term: a word looked up for its stem's missing list too is decoded once. */
  postings: Map<string, Promise<TermPostings>>;
  /** The table as this search first asked for it: its lookups at once read and parse it once. */
  table?: Promise<SearchIndexTable>;
}

/**
 * The table inline (parsed from mcp.json), or its counts and the table file to read on first use
 * (and the term pack rows, when mcp.json keeps them beside it).
 */
export type SearchTableSource = SearchIndexTable | SearchTableFileSource;

export class SearchReader {
  private readonly packs: PackReader;
  private readonly indexCache: PackIndexCache;
  private lastReads: SharedReads | undefined;
  private readonly postings: BoundedCache<TermPostings>;
  private readonly blocks: BoundedCache<ReadTitleBlock>;
  private readonly counts: SearchIndexCounts;
  private readonly tableFile: string | undefined;
  private table: SearchIndexTable | undefined;
  /** The term pack rows mcp.json holds beside a table file: a word is found without the table. */
  private readonly inlineTermPacks: SearchPackRows | undefined;
  /** The title pack rows' file mcp.json names beside a table file: a result's title pack is found without the table. */
  private readonly titlePackFile: TitlePackFile | undefined;

  constructor(
    private readonly files: PackFileSource,
    source: SearchTableSource,
    private readonly options: SearchReaderOptions = {},
  ) {
    if ('tableFile' in source) {
      this.counts = source.counts;
      this.tableFile = source.tableFile;
      this.inlineTermPacks = source.termPacks;
      if (source.titlePackFile !== undefined) this.titlePackFile = { path: source.titlePackFile };
    } else {
      this.counts = source;
      this.table = source;
    }
    const cache = options.indexCache ?? DEFAULT_PACK_CACHE_LIMITS;
    this.indexCache = cache instanceof PackIndexCache ? cache : new PackIndexCache(cache);
    this.packs = new PackReader(files, this.indexCache);
    const cacheBytes = options.maxCachedBytes ?? DEFAULT_SEARCH_CACHE_BYTES;
    // Postings take most of the budget; title blocks are small and few per query.
    this.postings = new BoundedCache(Math.floor(cacheBytes * 0.75));
    this.blocks = new BoundedCache(Math.floor(cacheBytes * 0.25));
  }

  /** Bytes held by the reader's caches now (for benches and the bound's tests). */
  cacheSize(): {
    indexes: number;
    indexBytes: number;
    wholePackBytes: number;
    postingBytes: number;
    blockBytes: number;
  } {
    const indexes = this.packs.cacheSize();
    return {
      indexes: indexes.indexes,
      indexBytes: indexes.bytes,
      wholePackBytes: indexes.wholePackBytes,
      postingBytes: this.postings.size().bytes,
      blockBytes: this.blocks.size().bytes,
    };
  }

  /** Reads the last search asked of the host, and their bytes (for benches and tests). */
  lastSearchReads(): { reads: number; bytes: number } {
    return this.lastReads?.counts() ?? { reads: 0, bytes: 0 };
  }

  /** The `search` tool's result for its arguments. */
  async search(argumentsValue: unknown): Promise<ToolResult> {
    const query = (argumentsValue as { query?: unknown } | null | undefined)?.query;
    const outcome = await this.searchHits(query);
    return outcome.status === 'ok' ? searchToolResult(outcome.hits, outcome.total) : searchErrorResult(outcome.message);
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
    const parsed = parseQuery(query);
    if (parsed.words.length + parsed.prefixes.length === 0 || this.counts.documentCount === 0)
      return { status: 'ok', hits: [], total: 0 };
    const stemming = this.counts.stemming;
    const files = new SharedReads(this.files);
    const reads: QueryReads = { packs: new PackReader(files, this.indexCache), files, postings: new Map() };
    this.lastReads = files;
    try {
      // The table is read when first needed: a word whose term pack mcp.json names is found (or
      // known missing) without it.
      const weightOf = new Map<string, number>();
      for (const { key, weight } of wordLookupsOf(parsed.words, stemming))
        weightOf.set(key, Math.max(weight, weightOf.get(key) ?? 0));
      for (const prefix of parsed.prefixes)
        for (const key of await this.prefixKeysOf(reads, await this.tableFor(reads), prefix)) weightOf.set(key, 1);
      const keys = [...weightOf.keys()];
      if (keys.length === 0) return { status: 'ok', hits: [], total: 0 };
      const lists = await Promise.all(keys.map((key) => this.postingsOf(reads, key, keys.length > 1)));
      // No word of the query is in the index: the answer is known, and a cold worker runs none of
      // the ranking, matching and excerpt code, which it would compile for an empty page.
      if (lists.every((list) => list === null)) return { status: 'ok', hits: [], total: 0 };
      return await this.rankedHits(reads, parsed, keys, lists, weightOf);
    } catch (error) {
      if (error instanceof DamagedIndex) return this.damaged(error.reason);
      throw error;
    }
  }

  /**
   * The page and total of a query some of whose words the index holds. A method of its own: a
   * cold worker compiles a function whole when it first runs it, and a query of missing words
   * never runs this.
   */
  private async rankedHits(
    reads: QueryReads,
    parsed: ReturnType<typeof parseQuery>,
    keys: string[],
    lists: TermPostings[],
    weightOf: ReadonlyMap<string, number>,
  ): Promise<SearchOutcome> {
    const stemming = this.counts.stemming;
    let found = keys.flatMap((term, position) => {
      const list = lists[position]!;
      return isPostingList(list) ? [{ term, list }] : [];
    });
    // Left out, a common term only changes scores by ~1e-6 (FTS5's floor) as long as a term
    // above the floor fills a page on its own; else its documents are results too, or its 1e-6
    // is what orders them (the other terms are at the floor too), so it is read.
    const documentCount = this.counts.documentCount;
    const aboveFloor = ({ list }: { list: PostingList }) => inverseDocumentFrequency(documentCount, list.count) > 1e-6;
    let skippedFrequency = 0;
    if (found.some((term) => term.list.count >= SEARCH_RESULT_LIMIT && aboveFloor(term))) {
      // Also those read for an earlier query: the ranking must not depend on what is cached.
      for (const term of found) if (!aboveFloor(term)) skippedFrequency = Math.max(skippedFrequency, term.list.count);
      found = found.filter(aboveFloor);
      for (const list of lists)
        if (list !== null && !isPostingList(list))
          skippedFrequency = Math.max(skippedFrequency, list.documentFrequency);
    } else {
      const common = keys.filter((_, position) => lists[position] !== null && !isPostingList(lists[position]!));
      const read = await Promise.all(common.map((term) => this.postingsOf(reads, term, false)));
      read.forEach((list, position) => {
        if (isPostingList(list)) found.push({ term: common[position]!, list });
      });
    }
    const ranked = rankAndCount(
      found.map((term) => term.list),
      this.counts,
      found.map((term) => weightOf.get(term.term)!),
    );
    if ('problem' in ranked)
      throw new DamagedIndex(`the postings of "${shownKeyOf(found[ranked.list]!.term)}": ${ranked.problem}`);
    const { best, total } = ranked;
    const matcher = tokenMatcherOf(parsed, stemming);
    const hits = await readHits(
      {
        packs: reads.packs,
        files: reads.files,
        counts: this.counts,
        table: () => this.tableFor(reads),
        titlePackOf: await titlePackLookupOf(
          reads.files,
          this.titlePackFile,
          async () => (await this.tableFor(reads)).titlePacks,
          this.options.onProblem,
        ),
        blocks: this.blocks,
        options: this.options,
      },
      best,
      matcher,
      parsed.words.length + parsed.prefixes.length,
    );
    return { status: 'ok', hits, total: Math.max(total, skippedFrequency) };
  }

  /**
   * The words `prefix` stands for: of those the term index holds (within MAX_PREFIX_INDEXES
   * indexes and MAX_PREFIX_KEYS entries), the MAX_PREFIX_TERMS with the longest postings, so a
   * one-letter prefix costs a bounded number of reads and postings. Stem keys, among the words, are
   * passed over.
   */
  private async prefixKeysOf(reads: QueryReads, table: SearchIndexTable, prefix: string): Promise<string[]> {
    const walked = await reads.packs.keysWithPrefix(table.terms, KEY_KIND.term, utf8Bytes(prefix), {
      maxIndexes: MAX_PREFIX_INDEXES,
      maxKeys: MAX_PREFIX_KEYS,
      skips: isStemKey,
    });
    if (walked.status !== 'ok') {
      if (walked.status === 'missing' && table.terms.length === 0) return [];
      throw new DamagedIndex(walked.reason);
    }
    return walked.keys
      .map((entry, position) => ({ ...entry, position }))
      .sort((left, right) => right.recordLength - left.recordLength || left.position - right.position)
      .slice(0, MAX_PREFIX_TERMS)
      .map((entry) => decodeUtf8(entry.key).text);
  }

  /** The `fetch` tool's result for its arguments. */
  async fetch(argumentsValue: unknown): Promise<ToolResult> {
    const id = (argumentsValue as { id?: unknown } | null | undefined)?.id;
    if (typeof id !== 'string' || id === '')
      return searchErrorResult('fetch needs the id of a search result: {"id": "…"}');
    const unknown = searchErrorResult(
      `No document has the id ${JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id)}; use an id that search returned.`,
    );
    if (id.length > MAX_DOCUMENT_ID_LENGTH || LONE_SURROGATE.test(id) || this.counts.documentCount === 0)
      return unknown;
    let stored: Awaited<ReturnType<typeof readStoredDocument>>;
    try {
      // The table's document rows are checked here, when first used.
      const table = await this.tableOf();
      stored = await readStoredDocument(this.packs, table.documents, this.counts.format, id);
    } catch (error) {
      if (error instanceof DamagedIndex) return searchErrorResult(this.damaged(error.reason).message);
      throw error;
    }
    if (stored.status === 'missing') return unknown;
    if (stored.status === 'damaged') return searchErrorResult(this.damaged(stored.reason).message);
    const document = stored.document;
    if (!('textFrom' in document)) return fetchToolResult(document);
    const { textFrom: _, ...rest } = document;
    const text = await textOfCall(id, this.options);
    if (typeof text !== 'string') return text;
    // Keys in the order a stored text's result has them: the same JSON either way.
    const fetched: FetchedDocument = { id, title: rest.title, text, url: rest.url };
    if (rest.metadata !== undefined) fetched.metadata = rest.metadata;
    return fetchToolResult(fetched);
  }

  private damaged(reason: string): { status: 'error'; message: string } {
    this.options.onProblem?.(reason);
    return { status: 'error', message: `Search failed: ${DAMAGED_ADVICE} (${reason}).` };
  }

  /** The table for one search: a first read shared by its lookups. */
  private tableFor(reads: QueryReads): Promise<SearchIndexTable> {
    reads.table ??= this.tableOf();
    return reads.table;
  }

  /** The table, read from its file on first use; throws DamagedIndex when the file is missing or unsound. */
  private async tableOf(): Promise<SearchIndexTable> {
    if (this.table !== undefined) return this.table;
    const path = this.tableFile!;
    // Concurrent first requests may each read it: a pending read is not shared, as workerd wants
    // no promise of one request settled in another.
    const read = await this.files.readBytes(path);
    if (read.status === 'missing') throw new DamagedIndex(`the search table ${path} is missing on the host`);
    // A space's index rows are checked when a query first uses them (a lookup the pack rows did
    // not settle, a prefix, a fetch), each row's path when a query reads that index (the pack reader).
    const parsed = parseSearchTableFile(read.bytes, path, this.counts, 'on-read');
    if ('problem' in parsed) throw new DamagedIndex(parsed.problem);
    this.table = parsed.table;
    return parsed.table;
  }

  /**
   * A term's postings, null when the index does not hold it, a CommonTerm when `maySkip` and it
   * sits in at least half the documents; throws DamagedIndex when refused.
   */
  private postingsOf(reads: QueryReads, term: string, maySkip: boolean): Promise<TermPostings> {
    const readKey = `${maySkip ? 1 : 0}${term}`;
    const read = reads.postings.get(readKey) ?? this.readPostings(reads, term, maySkip);
    reads.postings.set(readKey, read);
    return read;
  }

  /** The term pack rows: mcp.json's, else the table's (read for them). */
  private async termPacksOf(reads: QueryReads): Promise<SearchPackRows | undefined> {
    return this.inlineTermPacks ?? (await this.tableFor(reads)).termPacks;
  }

  private async readPostings(reads: QueryReads, term: string, maySkip: boolean): Promise<TermPostings> {
    const cached = this.postings.get(term);
    if (cached !== undefined && (maySkip || cached === null || isPostingList(cached))) return cached;
    const key = utf8Bytes(term);
    // A host that reads ranges goes through the term index, so it reads the table either way.
    const termPacks = reads.files.sendsWholeFiles === true ? await this.termPacksOf(reads) : undefined;
    const wholePack = wholePackOf(reads.files, termPacks, 'terms', key);
    // A pack read whole holds the term's whole record anyway: its count is no cheaper.
    if (maySkip && cached === undefined && wholePack === undefined) {
      const table = await this.tableFor(reads);
      const documentFrequency = await commonFrequencyOf(reads, table.terms, this.counts, term, key);
      if (documentFrequency !== undefined) {
        const common: CommonTerm = { common: true, documentFrequency };
        this.postings.set(term, common, 64 + term.length * 2);
        return common;
      }
    }
    const termRows = async () => (await this.tableFor(reads)).terms;
    // Term packs hold their records in key order (`check` says when one does not).
    const found = await lookupSearchRecord(reads.packs, termRows, wholePack, key, term, TERM_PACK_KEEPING, true);
    if (found.status !== 'ok') {
      // The term is not in the corpus; any other `missing` is a part the host lacks (a deploy cut
      // short), which would silently drop results, so it is reported. The pack reader says which
      // in its reason only: a typed field there would be sturdier.
      if (found.status === 'missing' && found.reason.startsWith(`${term} is not in this tree`)) {
        // A stem's list that was its word's is left out (stem.ts): the word's stands for it.
        const word = wordOfStemKey(term);
        return word === undefined ? null : this.postingsOf(reads, word, maySkip);
      }
      throw new DamagedIndex(found.reason);
    }
    const list = decodePostingsOnce(found.body, this.counts, this.counts.format);
    if ('problem' in list)
      throw new DamagedIndex(`the postings of "${shownKeyOf(term)}" in ${found.pack}: ${list.problem}`);
    this.postings.set(term, list, 64 + term.length * 2 + list.heldBytes);
    return list;
  }
}
