import { hexOfBytes } from '../../src/core/packs/hex-of-bytes.js';
import {
  callKeyOf,
  compareKeys,
  INDEX_ENTRY_BYTES,
  KEY_KIND,
  type KeyKind,
  PACK_HEADER_BYTES,
} from '../../src/core/packs/pack-format.js';
import { encodeIndex, encodePack, encodeRecord, type IndexEntryInput } from '../../src/core/packs/pack-encoding.js';
import type { PackTableRow } from '../../src/core/packs/pack-table.js';
import { weightAverageLengthOf, encodePostings, type Posting } from '../../src/core/search/postings.js';
import {
  DEFAULT_TITLE_BLOCK_SIZE,
  SEARCH_FOLDER,
  type SearchPackRow,
  titleBlockEntryOf,
  titleBlockKeyOf,
} from '../../src/core/search/search-index-format.js';
import { encodeDocumentBody } from '../../src/core/search/search-results.js';
import { indexKeysOf } from '../../src/core/search/stem.js';
import {
  compressDocumentBody,
  compressDocumentSource,
  compressExcerptSource,
} from '../../src/tree-writer/search-document-compression.js';
import { excerptSourceKeyOf } from '../../src/core/search/excerpt-source.js';
import { tokenize } from '../../src/core/search/tokenize.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { assertPlainTreePath } from '../../src/core/tree/tree-path.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import {
  DEFAULT_TARGET_INDEX_BYTES,
  DEFAULT_TARGET_PACK_BYTES,
  MAX_PACK_BYTES,
} from '../../src/tree-writer/pack-writer.js';
import {
  SEARCH_FILE_LIMITS,
  titleFileLimits,
  type SearchPartFileLimits,
  TERM_INDEX_BYTES,
  TERM_PACK_BYTES,
  TITLE_INDEX_BYTES,
  TITLE_PACK_BYTES,
} from '../../src/tree-writer/search-index-targets.js';
import {
  compareStrings,
  contentName,
  type SearchDocument,
  searchExtensionOf,
  type SearchIndexExtension,
  type SearchIndexOptions,
  type SearchIndexRows,
} from '../../src/tree-writer/search-index-output.js';
import { boundaryHash, fitPartBoundaries } from '../../src/tree-writer/search-part-boundaries.js';
import { repeatsWordList } from '../../src/tree-writer/search-stem-lists.js';

export interface SearchIndexOutput {
  /** Tree path → bytes, sorted by path. */
  files: { path: string; bytes: Uint8Array }[];
  extension: SearchIndexExtension;
}

export interface KeyedRecord {
  key: Uint8Array;
  name: string;
  body: Uint8Array;
  /** Records that follow this one in its pack, with no index entry (a title block's excerpt sources). */
  followers?: Uint8Array[];
  /** A record that lies in another part's pack (a document source): its index entry points there. */
  placedAt?: RecordPlace;
}

/** Where a record lies: its pack, offset and length. */
export interface RecordPlace {
  pack: { path: string; length: number };
  offset: number;
  length: number;
}

/** The index of `documents`. Throws when an id is not a plain tree path or repeats, or a document passes MAX_PACK_BYTES. */
export function writeSearchIndex(
  documents: readonly SearchDocument[],
  options: SearchIndexOptions = {},
): SearchIndexOutput {
  const targetPackBytes = options.targetPackBytes ?? DEFAULT_TARGET_PACK_BYTES;
  const targetIndexBytes = options.targetIndexBytes ?? DEFAULT_TARGET_INDEX_BYTES;
  const targetTermIndexBytes = options.targetTermIndexBytes ?? TERM_INDEX_BYTES;
  const blockSize = options.blockSize ?? DEFAULT_TITLE_BLOCK_SIZE;
  const numbered = documents.map((document) => {
    assertPlainTreePath(document.id, 'A search document id');
    return { document, idBytes: utf8Bytes(document.id) };
  });
  numbered.sort((left, right) => compareKeys(left.idBytes, right.idBytes));
  for (let position = 1; position < numbered.length; position += 1) {
    if (numbered[position - 1]!.document.id === numbered[position]!.document.id)
      throw new Error(`two search documents have the id ${numbered[position]!.document.id}`);
  }

  // The inverted index: term → its postings in document order (documents are visited in order).
  const postingsOf = new Map<string, Posting[]>();
  let tokenCount = 0;
  numbered.forEach(({ document }, number) => {
    // Title and text are one column: no title boost, as the FTS5 comparison assumes.
    const terms = tokenize(`${document.title}\n${document.text}`);
    tokenCount += terms.length;
    const frequencies = new Map<string, number>();
    for (const key of indexKeysOf(terms, options.stemming ?? 'porter'))
      frequencies.set(key, (frequencies.get(key) ?? 0) + 1);
    for (const [term, termFrequency] of frequencies) {
      let list = postingsOf.get(term);
      if (list === undefined) {
        list = [];
        postingsOf.set(term, list);
      }
      list.push({ document: number, termFrequency, documentLength: terms.length });
    }
  });
  const averageLength = weightAverageLengthOf({ documentCount: numbered.length, tokenCount });
  const termRecords: KeyedRecord[] = [...postingsOf].map(([term, postings]) => ({
    key: utf8Bytes(term),
    name: term,
    body: encodePostings(postings, averageLength),
  }));
  termRecords.sort((left, right) => compareKeys(left.key, right.key));
  // A stem list that repeats its word's is left out (the reader reads the word's).
  const bodyOfWord = new Map(termRecords.map((record) => [record.name, record.body]));
  const keptTermRecords = termRecords.filter(
    (record) => !repeatsWordList(record.name, record.body, bodyOfWord.get(record.name.slice(0, -1))),
  );

  // Each title block, followed in its pack by the excerpt source of each of its documents that
  // stores its text (a call's is the call's), which its entries place by their lengths; a document
  // whose whole text fits in its source stores it once: its source is its fetch record too.
  const titleRecords: KeyedRecord[] = [];
  const sourceOfDocument = new Map<string, { block: number; follower: number }>();
  for (let start = 0; start < numbered.length; start += blockSize) {
    let previousId = '';
    const documentsOfBlock = numbered.slice(start, start + blockSize);
    const followers: Uint8Array[] = [];
    const block = documentsOfBlock.map(({ document }, position) => {
      let sourceBytes = 0;
      if (document.textFrom !== 'call' && document.text !== '') {
        const source = excerptSourceKeyOf(start + position, blockSize);
        const documentSource = compressDocumentSource(document);
        if (documentSource !== undefined)
          sourceOfDocument.set(document.id, { block: titleRecords.length, follower: followers.length });
        const encoded =
          documentSource === undefined
            ? encodeRecord({ names: [source], body: compressExcerptSource(document.text) })
            : encodeRecord({ names: [source, document.id], body: documentSource });
        followers.push(encoded);
        sourceBytes = encoded.length;
      }
      const entry = titleBlockEntryOf(previousId, document, sourceBytes);
      previousId = document.id;
      return entry;
    });
    const name = titleBlockKeyOf(start / blockSize);
    titleRecords.push({ key: utf8Bytes(name), name, body: utf8Bytes(JSON.stringify(block)), followers });
  }

  const targets = { targetPackBytes, targetIndexBytes };
  const terms = packSortedRecords(
    `${SEARCH_FOLDER}terms/`,
    KEY_KIND.term,
    keptTermRecords,
    { targetPackBytes: options.targetPackBytes ?? TERM_PACK_BYTES, targetIndexBytes: targetTermIndexBytes },
    SEARCH_FILE_LIMITS.terms,
  );
  const titles = packSortedRecords(
    `${SEARCH_FOLDER}titles/`,
    KEY_KIND.term,
    titleRecords,
    {
      targetPackBytes: options.targetPackBytes ?? TITLE_PACK_BYTES,
      targetIndexBytes: options.targetIndexBytes ?? TITLE_INDEX_BYTES,
    },
    titleFileLimits(titleRecords.some((record) => record.followers!.length > 0)),
  );
  const documentRecords: KeyedRecord[] = numbered.map(({ document }) => {
    const source = sourceOfDocument.get(document.id);
    if (source !== undefined)
      return {
        key: callKeyOf(document.id),
        name: document.id,
        body: new Uint8Array(0),
        placedAt: titles.followerPlaces[source.block]![source.follower]!,
      };
    return {
      key: callKeyOf(document.id),
      name: document.id,
      body: compressDocumentBody(encodeDocumentBody(document)),
    };
  });
  documentRecords.sort((left, right) => compareKeys(left.key, right.key) || compareStrings(left.name, right.name));
  const stored = packSortedRecords(
    `${SEARCH_FOLDER}documents/`,
    KEY_KIND.call,
    documentRecords,
    targets,
    SEARCH_FILE_LIMITS.documents,
  );
  const files = [...terms.files, ...titles.files, ...stored.files];
  const rows: SearchIndexRows = {
    terms: terms.rows,
    titles: titles.rows,
    documents: stored.rows,
    termPacks: terms.packRows,
    titlePacks: titles.packRows,
  };
  const { extension, files: tableFiles } = searchExtensionOf(numbered.length, tokenCount, blockSize, rows, options);
  files.push(...tableFiles);
  files.sort((left, right) => compareStrings(left.path, right.path));
  return { files, extension };
}

/**
 * Packs and indexes of records already sorted by key (one name each), below `folder`: packs of
 * whole records, indexes over contiguous key ranges, both cut at content-defined boundaries; a
 * record placed in another part's pack takes no bytes here, only its index entry. Says where each
 * record's followers lie.
 */
export function packSortedRecords(
  folder: string,
  keyKind: KeyKind,
  records: readonly KeyedRecord[],
  givenTargets: { targetPackBytes: number; targetIndexBytes: number },
  limits: SearchPartFileLimits,
): {
  files: { path: string; bytes: Uint8Array }[];
  rows: PackTableRow[];
  packRows: SearchPackRow[];
  followerPlaces: RecordPlace[][];
} {
  if (records.length === 0) return { files: [], rows: [], packRows: [], followerPlaces: [] };
  const encoded = records.map((record) =>
    record.placedAt ? new Uint8Array(0) : encodeRecord({ names: [record.name], body: record.body }),
  );
  const followerPlaces: RecordPlace[][] = records.map(() => []);
  // A record's bytes in its pack: its own and its followers'.
  const placed = records.map((record, position) => {
    let bytes = encoded[position]!.length;
    for (const follower of record.followers ?? []) bytes += follower.length;
    return bytes;
  });
  let totalBytes = 0;
  for (const bytes of placed) totalBytes += bytes;
  let keyBytes = 0;
  for (const record of records) keyBytes += record.key.length;
  const boundaries = fitPartBoundaries(
    givenTargets,
    { count: records.length, totalBytes, keyBytes },
    limits,
    (visit) => {
      for (let position = 0; position < records.length; position += 1) visit(records[position]!.key, placed[position]!);
    },
  );
  const files: { path: string; bytes: Uint8Array }[] = [];
  const entries: RecordPlace[] = [];
  const packRows: SearchPackRow[] = [];

  let start = 0;
  while (start < records.length) {
    let end = start;
    let size = PACK_HEADER_BYTES;
    while (end < records.length) {
      size += placed[end]!;
      end += 1;
      if (size > PACK_HEADER_BYTES && boundaries.closesPack(size, boundaryHash(records[end - 1]!.key))) break;
    }
    const inPack = records
      .slice(start, end)
      .flatMap((record, position) =>
        record.placedAt ? [] : [encoded[start + position]!, ...(record.followers ?? [])],
      );
    // Placed records after the last pack: no pack of their own.
    if (inPack.length === 0) {
      for (let position = start; position < end; position += 1) entries.push(records[position]!.placedAt!);
      start = end;
      continue;
    }
    const packBytes = encodePack(inPack);
    if (packBytes.length > MAX_PACK_BYTES) {
      throw new StaticMcpError(
        'PACK_TOO_LARGE',
        `The search record ${records[start]!.name} would make a pack of ${packBytes.length} bytes, more than the ${MAX_PACK_BYTES} a host accepts in one file`,
        'Leave that document out of the search index, or make it smaller.',
      );
    }
    const name = contentName(packBytes);
    const pack = { path: `${folder}${name}.pack`, length: packBytes.length };
    const firstInPack = records.slice(start, end).find((record) => !record.placedAt)!;
    packRows.push([hexOfBytes(firstInPack.key), name, packBytes.length]);
    files.push({ path: pack.path, bytes: packBytes });
    let offset = PACK_HEADER_BYTES;
    for (let position = start; position < end; position += 1) {
      const record = records[position]!;
      if (record.placedAt) {
        entries.push(record.placedAt);
        continue;
      }
      entries.push({ pack, offset, length: encoded[position]!.length });
      offset += encoded[position]!.length;
      for (const follower of record.followers ?? []) {
        followerPlaces[position]!.push({ pack, offset, length: follower.length });
        offset += follower.length;
      }
    }
    start = end;
  }

  const rows: PackTableRow[] = [];
  start = 0;
  while (start < records.length) {
    let end = start;
    let size = 0;
    while (end < records.length) {
      size += INDEX_ENTRY_BYTES + records[end]!.key.length;
      end += 1;
      if (boundaries.closesIndex(size, boundaryHash(records[end - 1]!.key))) break;
    }
    const packPaths = [...new Set(entries.slice(start, end).map((entry) => entry.pack.path))].sort(compareStrings);
    const packNumber = new Map(packPaths.map((path, position) => [path, position]));
    const packs = packPaths.map((path) => ({
      path,
      length: entries.slice(start, end).find((entry) => entry.pack.path === path)!.pack.length,
    }));
    const indexEntries: IndexEntryInput[] = [];
    for (let position = start; position < end; position += 1) {
      const entry = entries[position]!;
      indexEntries.push({
        key: records[position]!.key,
        pack: packNumber.get(entry.pack.path)!,
        recordOffset: entry.offset,
        recordLength: entry.length,
      });
    }
    const indexBytes = encodeIndex(keyKind, packs, indexEntries);
    const indexPath = `${folder}${contentName(indexBytes)}.idx`;
    files.push({ path: indexPath, bytes: indexBytes });
    rows.push({ first: hexOfBytes(records[start]!.key), index: indexPath });
    start = end;
  }
  return { files, rows, packRows, followerPlaces };
}
