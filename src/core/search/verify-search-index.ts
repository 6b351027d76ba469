// What `check` asks of a tree's search index (issue #25), portable like verify-packs.ts: every
// index of the search table loads, holds the right kind of keys, lies in its row's range and is
// named by its content; every pack is whole and named by its content; every record is reachable
// by the lookup a reader does and its body is what a reader expects (postings that decode, title
// blocks of the right size, documents that decompress (format 6) and name their id, and whose call the tree has when they
// take their text from it, excerpt sources of a document number that inflate); there are as many title blocks and
// documents as the table says; and no file under packs/search.index/ is left that no index names.
// A table kept in its own file must be there, named by its content, and parse; so must the title
// pack rows' file mcp.json names beside it (title-pack-rows.ts), whose rows name the title packs
// by their first blocks as the table's text rows would. Each file is read
// once: a record is reachable when an index entry of its key, in the index its row covers, points
// at its offset and length (what the reader's lookup finds), or (an excerpt source, format 6) when
// it lies where its title block's entries place it; checked in memory rather than by a lookup per
// record (a range read each: minutes at 650,000 documents).
// Each problem is one line: what is wrong and where, then "; " and what to do.
import { hexOfBytes } from '../packs/hex-of-bytes.js';
import { sha256HexOfBytes } from '../tree/sha256.js';
import {
  callKeyOf,
  compareKeys,
  entryKey,
  KEY_KIND,
  type KeyKind,
  type ParsedIndex,
  parseIndex,
  parsePack,
  readEntry,
} from '../packs/pack-format.js';
import { type PackFileSource, textOfBody } from '../packs/pack-reader.js';
import { utf8Bytes } from '../tree/utf8.js';
import { decodePostings } from './postings.js';
import {
  parseSearchTableFile,
  parseTitleBlock,
  SEARCH_FOLDER,
  type SearchIndexTable,
  type SearchPackRow,
  type SearchTableFileSource,
  STEMMED_FORMAT,
  titleBlockKeyOf,
} from './search-index-format.js';
import { decompressDocumentBody } from './document-body-codec.js';
import { listPackRows } from './search-pack-rows.js';
import { TitlePackRows } from './title-pack-rows.js';
import {
  inflateExcerptSources,
  isDocumentSource,
  type SourceRecordPlace,
  sourceRecordsAfter,
} from './excerpt-source.js';
import { parseDocumentBody } from './search-results.js';
import { documentOfSource } from './stored-documents.js';

const REBUILD = 'build the tree again';
const MAX_PROBLEMS = 100;

type Space = 'terms' | 'titles' | 'documents';

/**
 * The problems of the search index `source` names, read through `files`; `treeFiles` lists the
 * tree (for strays). `hasCall` (when given) says whether the tree holds a call file, plain or
 * packed: a document that takes its text from its call is a problem when the tree lacks the call.
 */
export async function verifySearchIndex(
  source: SearchIndexTable | SearchTableFileSource,
  files: PackFileSource,
  treeFiles: readonly string[],
  hasCall?: (treePath: string) => boolean,
): Promise<string[]> {
  const problems: string[] = [];
  const named = new Set<string>();
  let table: SearchIndexTable;
  if ('tableFile' in source) {
    named.add(source.tableFile);
    const read = await files.readBytes(source.tableFile);
    if (read.status === 'missing')
      return [`${source.tableFile} is missing: the search index cannot be read without it; deploy the whole tree`];
    const parsed = parseSearchTableFile(read.bytes, source.tableFile, source.counts);
    if ('problem' in parsed) return [`${parsed.problem}; ${REBUILD}`];
    if (!(await isNamedByContent(source.tableFile, read.bytes)))
      problems.push(`${source.tableFile} is not named by its content hash (edited?); ${REBUILD}`);
    // Term pack rows mcp.json keeps beside the file are the ones a reader uses.
    table = source.termPacks === undefined ? parsed.table : { ...parsed.table, termPacks: source.termPacks };
    if (source.titlePackFile !== undefined) {
      const titlePacks = await titlePackRowsOf(source.titlePackFile, files, named, problems);
      table = { ...table, ...(titlePacks === undefined ? {} : { titlePacks }) };
    }
  } else {
    table = source;
  }
  const counts: Record<Space, number> = { terms: 0, titles: 0, documents: 0 };
  const blocks = new Set<string>();
  for (const space of ['terms', 'titles', 'documents'] as const) {
    const keyKind = space === 'documents' ? KEY_KIND.call : KEY_KIND.term;
    const rows = table[space];
    // Pack → record offset → the index entry that points there (what a lookup of its key finds).
    const entriesAt = new Map<string, Map<number, { index: ParsedIndex; entry: number }>>();
    // The pack rows are compared with the packs the indexes name only when every file was read.
    let everyFileRead = true;
    for (const [position, row] of rows.entries()) {
      named.add(row.index);
      const read = await files.readBytes(row.index);
      if (read.status === 'missing') {
        problems.push(`${row.index} is missing: part of the search index cannot be read; deploy the whole tree`);
        everyFileRead = false;
        continue;
      }
      const parsed = parseIndex(read.bytes, row.index);
      if ('status' in parsed) {
        problems.push(parsed.reason);
        everyFileRead = false;
        continue;
      }
      if (parsed.keyKind !== keyKind) problems.push(`${row.index} does not hold ${space} keys; ${REBUILD}`);
      if (!(await isNamedByContent(row.index, read.bytes)))
        problems.push(`${row.index} is not named by its content hash (edited?); ${REBUILD}`);
      const next = rows[position + 1]?.first;
      for (let entry = 0; entry < parsed.entryCount; entry += 1) {
        const keyHex = hexOfBytes(entryKey(parsed, entry));
        if (keyHex < row.first || (next !== undefined && keyHex >= next)) {
          problems.push(
            `${row.index} entry ${entry} lies outside its row's key range, so no reader finds it; ${REBUILD}`,
          );
          break;
        }
        const { pack, recordOffset } = readEntry(parsed, entry);
        let offsets = entriesAt.get(pack.path);
        if (offsets === undefined) {
          offsets = new Map();
          entriesAt.set(pack.path, offsets);
        }
        offsets.set(recordOffset, { index: parsed, entry });
      }
    }
    // Each pack's first record key and bytes: what its row in the table's pack rows must say.
    const packRows: [string, string, number][] = [];
    for (const packPath of [...entriesAt.keys()].sort()) {
      const offsets = entriesAt.get(packPath)!;
      entriesAt.delete(packPath);
      named.add(packPath);
      const read = await files.readBytes(packPath);
      if (read.status === 'missing') {
        problems.push(`${packPath} is missing: part of the search index cannot be read; deploy the whole tree`);
        everyFileRead = false;
        continue;
      }
      const parsed = parsePack(read.bytes, packPath);
      if ('status' in parsed) {
        problems.push(parsed.reason);
        everyFileRead = false;
        continue;
      }
      if (!(await isNamedByContent(packPath, read.bytes)))
        problems.push(`${packPath} is not named by its content hash (edited?); ${REBUILD}`);
      const first = parsed.records[0]?.record.names[0];
      if (first !== undefined)
        packRows.push([
          hexOfBytes(keyOf(keyKind, first)),
          packPath.slice(packPath.lastIndexOf('/') + 1, -5),
          read.bytes.length,
        ]);
      if (space === 'documents' && packPath.startsWith(TITLES_FOLDER)) {
        const stop = await checkDocumentSources(packPath, parsed.records, offsets, table.format, problems);
        counts.documents += stop.documents;
        if (problems.length > MAX_PROBLEMS) return [...problems, `… and more; stopped after ${MAX_PROBLEMS} problems`];
        continue;
      }
      // The excerpt sources the last title block places after it (format 6), not yet met.
      let placed: SourceRecordPlace[] = [];
      const unmet = (block: string) =>
        `${packPath} lacks the excerpt source ${placed[0]!.name} where title block ${block} places it at byte ${placed[0]!.recordOffset}; ${REBUILD}`;
      let lastBlock = '';
      // A reader that reads a term pack whole stops at the first record after the word it wants.
      let previousKey: Uint8Array | undefined;
      for (const { record, offset, length } of parsed.records) {
        const name = record.names[0]!;
        const where = `${packPath} at byte ${offset} (${JSON.stringify(name.slice(0, 80))})`;
        if (space === 'terms') {
          const key = keyOf(keyKind, name);
          if (previousKey !== undefined && compareKeys(previousKey, key) >= 0)
            problems.push(`${where} is not after the record before it in key order, so readers miss words; ${REBUILD}`);
          previousKey = key;
        }
        const source = placed[0];
        if (source !== undefined && source.recordOffset === offset) {
          placed.shift();
          if (source.recordLength !== length || !record.names.includes(source.name))
            problems.push(`${where} is not the excerpt source its title block ${lastBlock} places there; ${REBUILD}`);
          else {
            const [inflated] = await inflateExcerptSources([record.body]);
            if ('problem' in inflated!)
              problems.push(`${where} is not a compressed excerpt source: ${inflated.problem}; ${REBUILD}`);
          }
          continue;
        }
        if (source !== undefined) {
          problems.push(unmet(lastBlock));
          placed = [];
        }
        counts[space] += 1;
        const pointer = offsets.get(offset);
        offsets.delete(offset);
        const entry = pointer && readEntry(pointer.index, pointer.entry);
        if (
          pointer === undefined ||
          entry!.recordLength !== length ||
          compareKeys(entryKey(pointer.index, pointer.entry), keyOf(keyKind, name)) !== 0
        ) {
          problems.push(`${where} is not reachable through the search table; ${REBUILD}`);
        }
        const bodyProblem = await checkBody(space, name, record.body, table, blocks, hasCall);
        if (bodyProblem !== undefined) problems.push(`${where} ${bodyProblem}; ${REBUILD}`);
        else if (space === 'titles' && table.format >= STEMMED_FORMAT) {
          const block = Number.parseInt(name, 16);
          const count = Math.min(table.blockSize, table.documentCount - block * table.blockSize);
          const entries = parseTitleBlock(textOfBody(record.body), count, table.format)!;
          const places = sourceRecordsAfter(
            { number: block, recordOffset: offset, recordLength: length },
            entries,
            table.blockSize,
          );
          placed = places.filter((place) => place !== undefined);
          lastBlock = name;
        }
        if (problems.length > MAX_PROBLEMS) return [...problems, `… and more; stopped after ${MAX_PROBLEMS} problems`];
      }
      if (placed.length > 0) problems.push(unmet(lastBlock));
      for (const offset of offsets.keys()) {
        problems.push(`${packPath} has no record at byte ${offset}, where the search index points; ${REBUILD}`);
        break;
      }
    }
    const listed = space === 'terms' ? table.termPacks : space === 'titles' ? table.titlePacks : undefined;
    packRows.sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0));
    if (
      everyFileRead &&
      listed !== undefined &&
      JSON.stringify(listPackRows(listed) ?? listed) !== JSON.stringify(packRows)
    )
      problems.push(
        `the search table's ${space === 'terms' ? 'termPacks' : 'titlePacks'} do not name the ${space} packs by their first keys, so a reader that reads packs whole misses records; ${REBUILD}`,
      );
  }
  const blockCount = Math.ceil(table.documentCount / table.blockSize);
  if (counts.titles !== blockCount || blocks.size !== blockCount)
    problems.push(`the search index holds ${blocks.size} title blocks, its table needs ${blockCount}; ${REBUILD}`);
  if (counts.documents !== table.documentCount)
    problems.push(
      `the search index holds ${counts.documents} documents, its table says ${table.documentCount}; ${REBUILD}`,
    );
  for (const file of treeFiles) {
    if (file.startsWith(SEARCH_FOLDER) && !named.has(file))
      problems.push(
        `${file} lies under ${SEARCH_FOLDER} but the search table names it nowhere; delete it, or ${REBUILD}`,
      );
  }
  return problems;
}

/** Where title packs lie: a documents index points into one at a document source. */
const TITLES_FOLDER = `${SEARCH_FOLDER}titles/`;

/**
 * The document sources (format 6, excerpt-source.ts) of a title pack that documents indexes point
 * at (`offsets`): each a record there, named by the id its key is of, that reads as that document.
 * The title walk checks the pack's other records (so a title pack is read once per part).
 */
async function checkDocumentSources(
  packPath: string,
  records: readonly { record: { names: string[]; body: Uint8Array }; offset: number; length: number }[],
  offsets: Map<number, { index: ParsedIndex; entry: number }>,
  format: number,
  problems: string[],
): Promise<{ documents: number }> {
  const recordAt = new Map(records.map((item) => [item.offset, item]));
  let documents = 0;
  for (const [offset, pointer] of offsets) {
    const found = recordAt.get(offset);
    const id = found?.record.names[1];
    if (
      found === undefined ||
      id === undefined ||
      readEntry(pointer.index, pointer.entry).recordLength !== found.length ||
      compareKeys(entryKey(pointer.index, pointer.entry), callKeyOf(id)) !== 0
    ) {
      problems.push(`${packPath} has no document source at byte ${offset}, where the search index points; ${REBUILD}`);
      continue;
    }
    documents += 1;
    const outcome =
      format >= STEMMED_FORMAT && isDocumentSource(found.record.body)
        ? await documentOfSource(found.record.body, id, packPath)
        : undefined;
    if (outcome?.status !== 'ok')
      problems.push(
        `${packPath} at byte ${offset} (${JSON.stringify(id.slice(0, 80))}): ${outcome !== undefined && 'reason' in outcome ? outcome.reason : 'not a document source'}; ${REBUILD}`,
      );
    if (problems.length > MAX_PROBLEMS) break;
  }
  return { documents };
}

function keyOf(keyKind: KeyKind, name: string): Uint8Array {
  return keyKind === KEY_KIND.call ? callKeyOf(name) : utf8Bytes(name);
}

/** What is wrong with a record's body for its space, or undefined. */
async function checkBody(
  space: Space,
  name: string,
  body: Uint8Array,
  table: SearchIndexTable,
  blocks: Set<string>,
  hasCall: ((treePath: string) => boolean) | undefined,
): Promise<string | undefined> {
  if (space === 'terms') {
    const postings = decodePostings(body, table, table.format);
    const problem = 'problem' in postings ? postings.problem : postings.readEveryBlock();
    return problem === undefined ? undefined : `holds postings that do not decode (${problem})`;
  }
  if (space === 'titles') {
    const block = Number.parseInt(name, 16);
    if (!/^[0-9a-f]{8}$/.test(name) || titleBlockKeyOf(block) !== name) return 'is not a title block';
    const count = Math.min(table.blockSize, table.documentCount - block * table.blockSize);
    if (count <= 0 || parseTitleBlock(textOfBody(body), count, table.format) === undefined)
      return `is not ${count} title entries`;
    blocks.add(name);
    return undefined;
  }
  let json = body;
  if (table.format >= STEMMED_FORMAT) {
    const inflated = await decompressDocumentBody(body);
    if (!(inflated instanceof Uint8Array)) return `is not a compressed document: ${inflated.problem}`;
    json = inflated;
  }
  const document = parseDocumentBody(textOfBody(json), name);
  if (document === undefined) return 'is not the document it is named for';
  // Only that the call is there: whether it still reads as the indexed text costs a read per document.
  if ('textFrom' in document && hasCall !== undefined && !hasCall(name))
    return `takes its text from the call ${name}, which the tree lacks (fetch of it fails)`;
  return undefined;
}

/**
 * The title pack rows of the file mcp.json names, as the table's rows list them, for the walk to
 * compare with the packs; undefined (and a problem) when it is missing, misnamed or not a rows file.
 */
async function titlePackRowsOf(
  path: string,
  files: PackFileSource,
  named: Set<string>,
  problems: string[],
): Promise<SearchPackRow[] | undefined> {
  named.add(path);
  const read = await files.readBytes(path);
  if (read.status === 'missing') {
    problems.push(
      `${path} is missing: a search finds its results' titles more slowly without it; deploy the whole tree`,
    );
    return undefined;
  }
  if (!(await isNamedByContent(path, read.bytes)))
    problems.push(`${path} is not named by its content hash (edited?); ${REBUILD}`);
  const rows = TitlePackRows.of(read.bytes);
  if (rows === undefined) {
    problems.push(`${path} is not a file of title pack rows (truncated or replaced?); ${REBUILD}`);
    return undefined;
  }
  return rows.list();
}

async function isNamedByContent(path: string, bytes: Uint8Array): Promise<boolean> {
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.(?:pack|idx|table\.json|title-packs)$/, '');
  return (await sha256HexOfBytes(bytes)).slice(0, 16) === name;
}
