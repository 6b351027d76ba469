// What the search index writer produces, shared by the build's spilling writer
// (search-index-spill-writer.ts) and the in-memory reference writer the tests hold it to
// (test/helpers/in-memory-search-index.ts): the documents and options they take, mcp.json's
// `staticmcp.search` value and the files its rows go to when they are too long to inline (the
// table, and the title pack rows' binary file), and the content names and string order both use.
import { createHash } from 'node:crypto';
import type { PackTableRow } from '../core/packs/pack-table.js';
import {
  SEARCH_FOLDER,
  SEARCH_INDEX_FORMAT,
  SEARCH_TABLE_INLINE_BYTES,
  SEARCH_TERM_PACKS_INLINE_BYTES,
  type SearchPackRow,
} from '../core/search/search-index-format.js';
import { encodePackRows } from '../core/search/search-pack-rows.js';
import { encodeTitlePackRows } from '../core/search/title-pack-rows.js';
import type { IndexedDocument } from '../core/search/search-results.js';
import type { Stemming } from '../core/search/stem.js';
import { utf8Bytes } from '../core/tree/utf8.js';

/**
 * A document to index: what fetch will return for it (its text read from its call when
 * `textFrom` is "call"). Its id must be a plain tree path.
 */
export type SearchDocument = IndexedDocument;

export interface SearchIndexOptions {
  targetPackBytes?: number;
  /** Target bytes of the title and document indexes (default TITLE_INDEX_BYTES and DEFAULT_TARGET_INDEX_BYTES). */
  targetIndexBytes?: number;
  /** Target bytes of the term indexes (default TERM_INDEX_BYTES). */
  targetTermIndexBytes?: number;
  blockSize?: number;
  /** Rows' JSON above this goes to a table file (default SEARCH_TABLE_INLINE_BYTES). */
  inlineTableBytes?: number;
  /** How words are stemmed (default "porter": search.language "en"). */
  stemming?: Stemming;
}

/** The rows of a search table, inline in mcp.json or in its table file. */
export interface SearchIndexRows {
  terms: PackTableRow[];
  titles: PackTableRow[];
  documents: PackTableRow[];
  /** The term and title packs by their first keys (search-pack-rows.ts). */
  termPacks: SearchPackRow[];
  titlePacks: SearchPackRow[];
}

/** The rows as mcp.json or the table file holds them: the pack rows as a text each. */
type StoredSearchRows = Omit<SearchIndexRows, 'termPacks' | 'titlePacks'> & { termPacks: string; titlePacks: string };

/**
 * mcp.json's `staticmcp.search`: the rows inline, or `table` naming the file that holds them (and
 * the term pack rows beside it when they are small enough, and `titlePackFile` naming the title
 * pack rows' binary file).
 */
export type SearchIndexExtension = {
  format: typeof SEARCH_INDEX_FORMAT;
  documentCount: number;
  tokenCount: number;
  blockSize: number;
  stemming: Stemming;
} & (StoredSearchRows | { table: string; termPacks?: string; titlePackFile?: string });

/** A file the rows go to beside mcp.json. */
export interface SearchTableFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * mcp.json's `staticmcp.search` for the rows, and the files holding them when they are too long to
 * inline: the table, and the title pack rows' binary file (title-pack-rows.ts), which a query reads
 * for its results' title packs instead of the table (at 650,000 documents ~120 KB of rows instead of
 * a 342 KB table to parse).
 */
export function searchExtensionOf(
  documentCount: number,
  tokenCount: number,
  blockSize: number,
  rows: SearchIndexRows,
  options: Pick<SearchIndexOptions, 'inlineTableBytes' | 'stemming'>,
): { extension: SearchIndexExtension; files: SearchTableFile[] } {
  const stemming = options.stemming ?? 'porter';
  const counts = { format: SEARCH_INDEX_FORMAT, documentCount, tokenCount, blockSize, stemming } as const;
  // The pack rows go as one text each (search-pack-rows.ts), which a cold reader parses as a string.
  const stored: StoredSearchRows = {
    ...rows,
    termPacks: encodePackRows(rows.termPacks),
    titlePacks: encodePackRows(rows.titlePacks),
  };
  if (utf8Bytes(JSON.stringify(stored)).length <= (options.inlineTableBytes ?? SEARCH_TABLE_INLINE_BYTES))
    return { extension: { ...counts, ...stored }, files: [] };
  // The term pack rows stay beside the table's name: a word's lookup then needs no table read.
  const { termPacks, titlePacks, ...rest } = stored;
  const termPacksInline = utf8Bytes(termPacks).length <= SEARCH_TERM_PACKS_INLINE_BYTES;
  const titleRowBytes = encodeTitlePackRows(rows.titlePacks);
  const files: SearchTableFile[] = [];
  let titlePackFile: string | undefined;
  if (titleRowBytes !== undefined) {
    titlePackFile = `${SEARCH_FOLDER}${contentName(titleRowBytes)}.title-packs`;
    files.push({ path: titlePackFile, bytes: titleRowBytes });
  }
  const inTable = {
    ...rest,
    ...(termPacksInline ? {} : { termPacks }),
    ...(titlePackFile === undefined ? { titlePacks } : {}),
  };
  const fileBytes = utf8Bytes(JSON.stringify(inTable));
  const table = `${SEARCH_FOLDER}${contentName(fileBytes)}.table.json`;
  files.unshift({ path: table, bytes: fileBytes });
  return {
    extension: {
      ...counts,
      table,
      ...(termPacksInline ? { termPacks } : {}),
      ...(titlePackFile === undefined ? {} : { titlePackFile }),
    },
    files,
  };
}

export function contentName(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

export function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
