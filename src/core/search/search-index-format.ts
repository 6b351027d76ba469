// The search index of a tree (issue #25), stored in the pack container unchanged
// (core/packs/pack-format.ts). Measured by bench/search-index.mjs: on Debian's 63,000 package
// descriptions the top 10 equal SQLite FTS5 bm25()'s on the same terms for 200 of 200 queries.
//
// Documents: `{id, title, text, url, metadata?}`, what `fetch` returns. An id is the tree path of
// the document's file (`resources/guide.md`, `tools/wiki/Japan.json`): stable across builds,
// unique, readable, and never turned back into a path to read (only ever a key into the document
// index), so a forged id is simply not found. Documents are numbered by id in UTF-8 order.
//
// Everything lives below packs/search.index/ (tool names hold no ".", so no tool's packs/<tool>/
// can meet it), content-addressed <sha256-16>.pack/.idx files, in three key spaces, each a set of
// indexes over contiguous sorted key ranges listed in mcp.json as `packs` rows are:
// - terms (KEY_KIND.term, key = the term's UTF-8): a record per term named by it, body = its
//   postings (postings.ts: df, a skip table, then blocks of (docDelta varint, impact byte); format
//   3 had no table, formats 1 and 2 held (docDelta, tf, docLength) varints);
// - titles (KEY_KIND.term, key = the block number as 8 hex digits, so keys sort as numbers): a
//   record per block of `blockSize` consecutive documents, what a search result needs without the
//   documents' text: body = JSON [[shared, rest of id, title, url], …], each id the first `shared`
//   UTF-16 units of the entry before's and its rest (format 5; formats 1-4: [[id, title, url], …]).
//   Consecutive ids share most of their path (`tools/wiki/Bude_`): at 650,000 Wikipedia-shaped
//   documents the title packs came to 31 MB instead of 40, inside an isolate's 32 MiB of whole packs;
// - documents (KEY_KIND.call, key = SipHash of the id, as a call's tree path): a record per
//   document named by its id, body = the fetch result's JSON. fetch = one cached index + one record.
//   A precomputed call's document (format 2) keeps no text: body = {id, title, textFrom: "call",
//   url, metadata}, and fetch reads the call (its id: plain file or packed record) and derives the
//   text as the lister did (call-text.ts). The call already holds the text; a Wikipedia-shaped
//   tree would otherwise store its 1.3 GB of articles twice, in 8-16 MiB document packs that a
//   host ignoring byte ranges sends whole for one article.
// Format 6 (issue #40): a term record per word and, stemming, one per Porter stem named
// stem + STEM_KEY_SUFFIX (stem.ts; sorted beside the words it stems) holding the postings of every
// word with that stem (none where that repeats the list of the word that is the stem:
// wordOfStemKey); a document
// record's body is its JSON compressed (document-body-codec.ts: length, then deflate-raw); and
// each title block record is followed in its pack by an excerpt source record per document of the
// block that stores its text (named by the block's key + the document number as 8 hex digits),
// body = the first few KiB of it compressed on its own (excerpt-source.ts), what a result's
// excerpt is cut from. Sources have no index entries: each title entry ends with its source
// record's length (0: none), so the block says where each source lies (they follow it in order),
// and a result's title and excerpt are one read of one pack. A document whose whole text fits in
// its source stores it there alone: the source is its fetch record too (named by its id as well,
// the documents index pointing at it in the title pack; excerpt-source.ts), and no document pack
// holds it. The table also names each term pack and title pack by its first key (`termPacks`,
// `titlePacks`: one text, a line per pack `<key hex> <content name> <bytes>`; a list of
// [key hex, content name, bytes] in earlier format 6 trees, absent in the first ones, which read
// through their indexes): a host that sends whole files serves a lookup with its pack alone
// (search-pack-rows.ts).
// mcp.json, extension `staticmcp.search`: {format: 1 to 6, documentCount, tokenCount, blockSize,
// stemming (format 6: "porter" or "none"), terms: rows, titles: rows, documents: rows} (rows:
// [{first: hex key, index: tree path}]); once
// the rows pass SEARCH_TABLE_INLINE_BYTES (≈ 1,000 rows at 650,000 documents, ~180 KB) they move
// into their own content-named file, packs/search.index/<sha256-16>.table.json = {terms, titles,
// documents, titlePacks}, and mcp.json says {format, documentCount, tokenCount, blockSize,
// stemming, table: its path, termPacks}: every reader of mcp.json (tools/list, a packed call)
// would otherwise parse them, and a search reads the file once per tree load (cached with the
// tree), when it first needs more than a word's term pack. The term pack rows stay in mcp.json
// (up to SEARCH_TERM_PACKS_INLINE_BYTES; else in the file, as earlier format 6 trees have them).
// The title pack rows then leave the table too, for a binary file mcp.json names beside it
// (`titlePackFile`, title-pack-rows.ts), which a query reads for its results' title packs, so a
// search for words reads no table (earlier format 6 trees keep them in the table, still read).
//
// A query: ≤ MAX_QUERY_TERMS distinct terms → per term its row (in memory) → its index (bounded
// LRU) → one record; BM25 (bm25.ts) over the postings; the top results' title blocks (≤ one
// record per result, read in parallel). Memory is bounded by the caches, not by the corpus.
// Own format rather than a library: in-memory engines (MiniSearch, lunr, FlexSearch) load a whole
// index, or a whole part split by document, per query; split by term, their part would be this
// format with their JSON as the record body. The same-run comparison with MiniSearch needs it as a
// dev dependency (not installed yet).
import { type IndexPathChecks, parsePackTable, type PackTableRow } from '../packs/pack-table.js';
import { isObject } from '../tree/json-object.js';
import { DamagedIndex } from './damaged-index.js';
import { STEMMINGS, type Stemming } from './stem.js';

/**
 * The format an index is written in: 6, a list per Porter stem beside each word's own (stem.ts,
 * `stemming` in the manifest) and document bodies compressed (document-body-codec.ts); title
 * blocks with front-coded ids, postings of impacts in blocks behind a skip table (postings.ts),
 * documents storing their text or pointing at their call. Readers read 1 (texts, postings of tf
 * and length), 2 (pointers too), 3 (impacts, no blocks), 4 (whole ids in title blocks) and 5 (no
 * stems, plain bodies) as well; a reader of those refuses 6 by its format, saying to update.
 */
export const SEARCH_INDEX_FORMAT = 6;
const READABLE_FORMATS: readonly unknown[] = [1, 2, 3, 4, 5, SEARCH_INDEX_FORMAT];
/** The first format whose title blocks front-code their ids. */
const FRONT_CODED_TITLES_FORMAT = 5;
/** The first format with stem lists and compressed document bodies. */
export const STEMMED_FORMAT = 6;
/** Where the index lives: a folder no tool's packs/<tool>/ can be (tool names hold no "."). */
export const SEARCH_FOLDER = 'packs/search.index/';
/**
 * Documents per title block: ~1.5 KB of ids and titles, and their excerpt sources after them (~20 KB
 * in all), one pack read per search result. Ten results sit in ~10 blocks at 6,000 documents
 * whatever their size, so a host that sends packs whole sends half the bytes with 16 as with 32.
 */
export const DEFAULT_TITLE_BLOCK_SIZE = 16;
/** Results a search returns. */
export const SEARCH_RESULT_LIMIT = 10;
/** Longer queries are refused with a message (a question is a few hundred characters). */
export const MAX_QUERY_LENGTH = 4096;
/** Distinct terms of a query that are looked up; further terms are ignored (each costs a read). */
export const MAX_QUERY_TERMS = 32;
/** An id longer than any tree path the writer accepts: refused before hashing. */
export const MAX_DOCUMENT_ID_LENGTH = 4096;
/** Rows' JSON above this leaves mcp.json for a file of its own (16 KiB: mcp.json stays small). */
export const SEARCH_TABLE_INLINE_BYTES = 16 * 1024;
/**
 * Term pack rows up to this many bytes stay in mcp.json when the other rows leave for the table
 * file: the worker parsed mcp.json for `initialize` already, so a word's pack is found, and a
 * word the index lacks answered, with no table read (at 650,000 documents the table is 425 KB,
 * most of it title pack rows a missing word never needs). Term packs stop at ~1,500 (their size
 * grows past that), ~83 KB of rows at 650,000 documents.
 */
export const SEARCH_TERM_PACKS_INLINE_BYTES = 128 * 1024;
/** The table file's name: content-addressed like packs, so a deploy never mixes two builds'. */
export const SEARCH_TABLE_FILE = /^packs\/search\.index\/[0-9a-f]{16}\.table\.json$/;
/** The title pack rows file's name (title-pack-rows.ts), content-addressed as the table file is. */
export const TITLE_PACK_ROWS_FILE = /^packs\/search\.index\/[0-9a-f]{16}\.title-packs$/;
/** Bytes a table file may have (≈ 90,000 rows): a larger one is refused before it is parsed. */
export const MAX_SEARCH_TABLE_FILE_BYTES = 8 * 1024 * 1024;

export interface SearchIndexTable {
  /** The format it was written in: how its postings read (postings.ts). */
  format: number;
  documentCount: number;
  tokenCount: number;
  blockSize: number;
  /** How words were stemmed (format 6; `none` before): how a query's words are looked up. */
  stemming: Stemming;
  terms: readonly PackTableRow[];
  /** Title blocks, and (format 6) each block's excerpt sources after it (excerpt-source.ts). */
  titles: readonly PackTableRow[];
  documents: readonly PackTableRow[];
  /**
   * Format 6's term and title packs by their first key, in key order (absent in trees written
   * before): a reader whose host sends whole files finds a record by reading its pack alone,
   * not the index first (search-pack-rows.ts).
   */
  termPacks?: SearchPackRows;
  titlePacks?: SearchPackRows;
}

/**
 * A pack of the search index named by its first record's key: [that key in lowercase hex, the
 * pack's 16-digit content name (the pack is <space folder>/<name>.pack), its bytes]. Checked when used.
 */
export type SearchPackRow = readonly [first: string, name: string, bytes: number];

/**
 * A space's pack rows as the table holds them: one text, a line per row (`<first key hex>
 * <name> <bytes>`, lines joined by "\n"), as written now; or a list of rows, as earlier format 6
 * trees wrote them. The text parses as one JSON string: at 650,000 documents (7,415 title packs)
 * the list form's thousands of small arrays took most of a cold worker's table parse.
 */
export type SearchPackRows = string | readonly SearchPackRow[];

/** The title block key of a block number: 8 hex digits, so keys sort as the numbers do. */
export function titleBlockKeyOf(block: number): string {
  return block.toString(16).padStart(8, '0');
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The counts of a search table, all a manifest that keeps its rows in a file holds inline. */
export type SearchIndexCounts = Pick<
  SearchIndexTable,
  'format' | 'documentCount' | 'tokenCount' | 'blockSize' | 'stemming'
>;

/**
 * The manifest's counts when its rows are in a table file, that file, and the term pack rows when
 * the manifest keeps them inline beside it (SEARCH_TERM_PACKS_INLINE_BYTES).
 */
export interface SearchTableFileSource {
  counts: SearchIndexCounts;
  tableFile: string;
  termPacks?: SearchPackRows;
  /** The binary file of the title pack rows (title-pack-rows.ts), when the table does not hold them. */
  titlePackFile?: string;
}

/** The manifest's `staticmcp.search`: the whole table, or its counts and the file holding its rows. */
export type SearchIndexManifest = { table: SearchIndexTable } | SearchTableFileSource;

/**
 * Parses the manifest's `staticmcp.search` (untrusted JSON), whose rows are inline or in a table
 * file (read it, then parseSearchTableFile); `problem` says what is wrong.
 */
export function parseSearchIndexManifest(
  value: unknown,
  pathChecks: IndexPathChecks = 'now',
): SearchIndexManifest | { problem: string } {
  if (!isObject(value)) return { problem: 'search is not an object' };
  if (!READABLE_FORMATS.includes(value.format)) {
    return {
      problem: `search.format is ${JSON.stringify(value.format)}, this reader knows ${READABLE_FORMATS.slice(0, -1).join(', ')} and ${READABLE_FORMATS.at(-1)}; update staticmcp or build the tree again`,
    };
  }
  const { documentCount, tokenCount, blockSize } = value;
  if (!isCount(documentCount) || !isCount(tokenCount) || !isCount(blockSize) || blockSize === 0)
    return { problem: 'search.documentCount, tokenCount and blockSize must be whole numbers' };
  const format = value.format as number;
  let stemming: Stemming = 'none';
  if (format >= STEMMED_FORMAT) {
    if (!STEMMINGS.includes(value.stemming as Stemming))
      return { problem: `search.stemming is ${JSON.stringify(value.stemming)}, not one of ${STEMMINGS.join(', ')}` };
    stemming = value.stemming as Stemming;
  }
  const counts = { format, documentCount, tokenCount, blockSize, stemming };
  if (value.table === undefined) return parseRows(value, counts, 'search', pathChecks);
  if (typeof value.table !== 'string' || !SEARCH_TABLE_FILE.test(value.table))
    return { problem: `search.table is not the path of a ${SEARCH_FOLDER}<hash>.table.json file` };
  const { titlePackFile } = value;
  if (titlePackFile !== undefined && (typeof titlePackFile !== 'string' || !TITLE_PACK_ROWS_FILE.test(titlePackFile)))
    return { problem: `search.titlePackFile is not the path of a ${SEARCH_FOLDER}<hash>.title-packs file` };
  return {
    counts,
    tableFile: value.table,
    ...(isPackRowsValue(value.termPacks) ? { termPacks: value.termPacks } : {}),
    ...(titlePackFile !== undefined ? { titlePackFile } : {}),
  };
}

/** Parses the manifest's `staticmcp.search` when its rows are inline (a table file is a problem here). */
export function parseSearchIndexTable(value: unknown): { table: SearchIndexTable } | { problem: string } {
  const parsed = parseSearchIndexManifest(value);
  if ('tableFile' in parsed) return { problem: `search keeps its rows in ${parsed.tableFile}: read it first` };
  return parsed;
}

/** The table from a table file's bytes and the manifest's counts; `problem` says what is wrong. */
export function parseSearchTableFile(
  bytes: Uint8Array,
  path: string,
  counts: SearchIndexCounts,
  pathChecks: IndexPathChecks = 'now',
): { table: SearchIndexTable } | { problem: string } {
  if (bytes.length > MAX_SEARCH_TABLE_FILE_BYTES)
    return { problem: `${path} has ${bytes.length} bytes, more than a search table's ${MAX_SEARCH_TABLE_FILE_BYTES}` };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { problem: `${path} is not JSON (truncated or replaced?)` };
  }
  if (!isObject(value)) return { problem: `${path} is not an object of rows` };
  return parseRows(value, counts, path, pathChecks);
}

/** The table's key spaces. */
const SPACES = ['terms', 'titles', 'documents'] as const;

function parseRows(
  value: Record<string, unknown>,
  counts: SearchIndexCounts,
  where: string,
  pathChecks: IndexPathChecks,
): { table: SearchIndexTable } | { problem: string } {
  const { format, documentCount, tokenCount, blockSize, stemming } = counts;
  // parsePackTable checks each list as a tool's rows; an empty corpus has empty lists.
  const lists: Record<string, unknown[]> = {};
  for (const name of SPACES) {
    const rows = value[name];
    if (!Array.isArray(rows)) return { problem: `${where}.${name} is not a list` };
    lists[name] = rows;
  }
  const table = { format, documentCount, tokenCount, blockSize, stemming, ...packRowsOf(value) };
  if (pathChecks === 'on-read') {
    // A reader checks a space's rows when a query first uses them: a worker whose host sends
    // whole packs finds a word through the pack rows, and a cold query then checks no index row.
    for (const name of SPACES) {
      let rows: readonly PackTableRow[] | undefined;
      Object.defineProperty(table, name, {
        enumerable: true,
        get: () => {
          if (rows !== undefined) return rows;
          const checked = checkedRowsOf(name, lists[name]!, where, pathChecks);
          if ('problem' in checked) throw new DamagedIndex(checked.problem);
          rows = checked.rows;
          return rows;
        },
      });
    }
    return { table: table as SearchIndexTable };
  }
  const checked: Record<string, readonly PackTableRow[]> = {};
  for (const name of SPACES) {
    const space = checkedRowsOf(name, lists[name]!, where, pathChecks);
    if ('problem' in space) return space;
    checked[name] = space.rows;
  }
  return { table: { ...table, terms: checked.terms!, titles: checked.titles!, documents: checked.documents! } };
}

/** One space's index rows, checked (parsePackTable's rules, and below the index's folder). */
function checkedRowsOf(
  name: string,
  rows: unknown[],
  where: string,
  pathChecks: IndexPathChecks,
): { rows: readonly PackTableRow[] } | { problem: string } {
  if (rows.length === 0) return { rows: [] };
  const parsed = parsePackTable({ [name]: rows }, pathChecks);
  if ('problem' in parsed) return { problem: `${where}: ${parsed.problem.replace(/^packs\./, '')}` };
  const checked = parsed.table.get(name)!;
  for (const row of checked)
    if (!row.index.startsWith(SEARCH_FOLDER))
      return { problem: `${where}.${name} names the index ${row.index}, which is not below ${SEARCH_FOLDER}` };
  return { rows: checked };
}

/**
 * The table's pack rows, each when it is a text or a list: each row is checked when a lookup uses it
 * (search-pack-rows.ts), as a table with hundreds of rows is read for a query that needs a few.
 */
function packRowsOf(value: Record<string, unknown>): Pick<SearchIndexTable, 'termPacks' | 'titlePacks'> {
  const { termPacks, titlePacks } = value;
  return {
    ...(isPackRowsValue(termPacks) ? { termPacks } : {}),
    ...(isPackRowsValue(titlePacks) ? { titlePacks } : {}),
  };
}

function isPackRowsValue(value: unknown): value is SearchPackRows {
  return typeof value === 'string' || Array.isArray(value);
}

/** One search hit as a title block holds it. */
export interface TitleEntry {
  id: string;
  title: string;
  url: string;
  /** Format 6: the bytes of the document's excerpt source record after the block (0: none). */
  sourceBytes?: number;
}

/** The first format whose title entries end with their excerpt source record's length. */
const SOURCE_LENGTH_FORMAT = 6;
/** A source record's length a title entry may claim: a source body's 12 KiB at worst deflated, and its name. */
const MAX_SOURCE_RECORD_BYTES = 64 * 1024;

/**
 * How many UTF-16 units of `id` a title block entry takes from the id before it: their common
 * prefix, never ending between the halves of a surrogate pair (each part stays a string JSON
 * writes as it is).
 */
export function sharedIdPrefixLength(previousId: string, id: string): number {
  const most = Math.min(previousId.length, id.length);
  let shared = 0;
  while (shared < most && previousId.charCodeAt(shared) === id.charCodeAt(shared)) shared += 1;
  const last = id.charCodeAt(shared - 1);
  return shared > 0 && last >= 0xd800 && last <= 0xdbff ? shared - 1 : shared;
}

/**
 * A document's entry in its title block after the entry of `previousId` ('' for a block's first),
 * ending with the bytes of its excerpt source record (0: none).
 */
export function titleBlockEntryOf(
  previousId: string,
  entry: TitleEntry,
  sourceBytes: number,
): [number, string, string, string, number] {
  const shared = sharedIdPrefixLength(previousId, entry.id);
  return [shared, entry.id.slice(shared), entry.title, entry.url, sourceBytes];
}

/**
 * A title block's body in index `format`; undefined when it is not `count` entries: [shared, rest,
 * title, url, source record bytes] (format 6; format 5 without the last) with `shared` at most the
 * previous id's length (0 for the first), or, before format 5, [id, title, url] strings.
 */
export function parseTitleBlock(text: string, count: number, format: number): TitleEntry[] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw) || raw.length !== count) return undefined;
  const frontCoded = format >= FRONT_CODED_TITLES_FORMAT;
  const withSources = format >= SOURCE_LENGTH_FORMAT;
  const entries: TitleEntry[] = [];
  let previousId = '';
  for (const item of raw as unknown[]) {
    if (!Array.isArray(item) || item.length !== (frontCoded ? 4 : 3) + (withSources ? 1 : 0)) return undefined;
    const [first, ...strings] = item as unknown[];
    let sourceBytes: unknown;
    if (withSources) {
      sourceBytes = strings.pop();
      if (!Number.isSafeInteger(sourceBytes) || (sourceBytes as number) < 0) return undefined;
      if ((sourceBytes as number) > MAX_SOURCE_RECORD_BYTES) return undefined;
    }
    if (!strings.every((part) => typeof part === 'string')) return undefined;
    let id: string;
    if (!frontCoded) {
      if (typeof first !== 'string') return undefined;
      id = first;
    } else {
      if (typeof first !== 'number' || !Number.isInteger(first) || first < 0 || first > previousId.length)
        return undefined;
      id = previousId.slice(0, first) + (strings.shift() as string);
    }
    const [title, url] = strings as [string, string];
    entries.push(withSources ? { id, title, url, sourceBytes: sourceBytes as number } : { id, title, url });
    previousId = id;
  }
  return entries;
}
