// Term packs as a host that sends whole files (the Workers asset binding) reads them (issue #40):
// mcp.json keeps their rows beside a search table file, so a word's pack is found, or the word
// known missing, without reading the table (nor for titles: search-title-pack-rows.test.ts). An
// earlier format 6 tree, whose table file holds the term pack rows, answers the same; `check`
// holds mcp.json's rows to the packs, and a term pack's records to key order (a reader's walk of
// a pack stops at the first record after the word).
import { describe, expect, it } from 'vitest';
import type { BytesOutcome, PackFileSource } from '../../src/core/packs/pack-reader.js';
import { KEY_KIND, PACK_HEADER_BYTES, parsePack } from '../../src/core/packs/pack-format.js';
import { encodeIndex, encodePack } from '../../src/core/packs/pack-encoding.js';
import {
  parseSearchIndexManifest,
  type SearchIndexTable,
  SEARCH_TERM_PACKS_INLINE_BYTES,
  type SearchTableFileSource,
} from '../../src/core/search/search-index-format.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import { contentName } from '../../src/tree-writer/search-index-output.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { encodePackRows } from '../../src/core/search/search-pack-rows.js';
import { TitlePackRows } from '../../src/core/search/title-pack-rows.js';
import { random } from '../helpers/random.js';

/** Files as the asset binding sends them: whole, each read logged. */
class WholeFiles implements PackFileSource {
  readonly asked: string[] = [];
  readonly sendsWholeFiles = true;
  constructor(readonly files: Map<string, Uint8Array>) {}
  async readBytes(relativePath: string): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath);
    return bytes ? { status: 'ok', bytes, whole: true } : { status: 'missing' };
  }
}

/** Files read by range, as `serve` reads them: every word is found through its term index. */
class RangeFiles implements PackFileSource {
  constructor(readonly files: Map<string, Uint8Array>) {}
  async readBytes(relativePath: string, range?: { offset: number; length: number }): Promise<BytesOutcome> {
    const bytes = this.files.get(relativePath);
    if (!bytes) return { status: 'missing' };
    if (!range) return { status: 'ok', bytes, whole: true };
    return { status: 'ok', bytes: bytes.subarray(range.offset, range.offset + range.length), whole: false };
  }
}

const next = random(68);
const documents = Array.from({ length: 400 }, (_, position) => ({
  id: `resources/d${String(position).padStart(4, '0')}.json`,
  title: `Document ${position}`,
  text: Array.from({ length: 50 }, () => `w${Math.floor(next() ** 2 * 5000)}`).join(' '),
  url: '',
}));
const written = writeSearchIndex(documents, { inlineTableBytes: 0 });

function sourceOf(extension: unknown): SearchTableFileSource {
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(extension)));
  if (!('tableFile' in parsed)) throw new Error('the rows should be in a table file');
  return parsed;
}

function readerOver(files: Map<string, Uint8Array>, source: SearchTableFileSource) {
  const host = new WholeFiles(files);
  return { host, reader: new SearchReader(host, source) };
}

/** The same index as an earlier format 6 build wrote it: the term pack rows in the table file. */
function earlierTree(): { files: Map<string, Uint8Array>; source: SearchTableFileSource } {
  const { table, termPacks, titlePackFile, ...counts } = written.extension as {
    table: string;
    termPacks: string;
    titlePackFile: string;
  };
  const files = new Map(written.files.map((file) => [file.path, file.bytes]));
  const indexRows = JSON.parse(new TextDecoder().decode(files.get(table)));
  const titlePacks = encodePackRows(TitlePackRows.of(files.get(titlePackFile)!)!.list());
  const bytes = utf8Bytes(JSON.stringify({ ...indexRows, termPacks, titlePacks }));
  const path = `packs/search.index/${contentName(bytes)}.table.json`;
  files.delete(table);
  files.delete(titlePackFile);
  files.set(path, bytes);
  return { files, source: sourceOf({ ...counts, table: path }) };
}

describe('term pack rows beside the table file', () => {
  it('are written in mcp.json, not the table file, when the other rows leave it', () => {
    const extension = written.extension as Record<string, unknown>;
    expect(typeof extension.table).toBe('string');
    expect(extension.termPacks).toMatch(/^[0-9a-f]+ [0-9a-f]{16} \d+(\n[0-9a-f]+ [0-9a-f]{16} \d+)+$/);
    expect(utf8Bytes(extension.termPacks as string).length).toBeLessThanOrEqual(SEARCH_TERM_PACKS_INLINE_BYTES);
    const table = written.files.find((file) => file.path === extension.table)!;
    expect(Object.keys(JSON.parse(new TextDecoder().decode(table.bytes)))).toEqual(['terms', 'titles', 'documents']);
  });

  it('let a word the index lacks be answered with one read, its term pack, and no table', async () => {
    const { host, reader } = readerOver(
      new Map(written.files.map((file) => [file.path, file.bytes])),
      sourceOf(written.extension),
    );
    for (const query of ['qqqqzzzzxxxx', 'w4999x nothingness']) {
      host.asked.length = 0;
      const result = await reader.search({ query });
      expect(result.isError, query).toBeUndefined();
      expect(result.structuredContent, query).toEqual({ results: [], total: 0 });
      expect(
        host.asked.every((path) => /\/terms\/[0-9a-f]{16}\.pack$/.test(path)),
        host.asked.join(' '),
      ).toBe(true);
      expect(host.asked.length).toBeLessThanOrEqual(query.split(' ').length);
    }
    // A word found needs its results' titles, found through the title pack rows' file, not the table.
    host.asked.length = 0;
    const found = await reader.search({ query: 'w3 w17' });
    expect((found.structuredContent as { results: unknown[] }).results).toHaveLength(10);
    expect(host.asked.filter((path) => path.endsWith('.table.json'))).toHaveLength(0);
  });

  it('answer as the rows of an earlier tree’s table file do, which are still read', async () => {
    const current = readerOver(
      new Map(written.files.map((file) => [file.path, file.bytes])),
      sourceOf(written.extension),
    );
    const earlier = earlierTree();
    const before = readerOver(earlier.files, earlier.source);
    const throughIndexes = new SearchReader(
      new RangeFiles(new Map(written.files.map((file) => [file.path, file.bytes]))),
      sourceOf(written.extension),
    );
    // Words before, inside and after each pack's range, and missing ones: the walk of a pack read
    // whole stops at the first record past the word, and finds what the indexes find.
    const queries = ['w3 w17', 'w250', 'w1* w40', 'qqqqzzzzxxxx', 'w4000 w4999', 'a w0', 'w2499x w99999', 'zzz w4'];
    for (let word = 0; word < 5000; word += 97) queries.push(`w${word} w${word}0`);
    for (const query of queries) {
      const answer = await current.reader.search({ query });
      expect(await before.reader.search({ query }), query).toEqual(answer);
      expect(await throughIndexes.search({ query }), query).toEqual(answer);
    }
    // The earlier tree's missing word is known through the table's term pack rows, read first.
    const fresh = readerOver(earlier.files, earlier.source);
    await fresh.reader.search({ query: 'qqqqzzzzxxxx' });
    expect(fresh.host.asked.filter((path) => path.endsWith('.table.json'))).toHaveLength(1);
    expect(await verifySearchIndex(earlier.source, new WholeFiles(earlier.files), [...earlier.files.keys()])).toEqual(
      [],
    );
  });

  it('are held by check to the term packs: rows naming other packs are a problem', async () => {
    const files = new Map(written.files.map((file) => [file.path, file.bytes]));
    const source = sourceOf(written.extension);
    expect(await verifySearchIndex(source, new WholeFiles(files), [...files.keys()])).toEqual([]);
    const lines = (source.termPacks as string).split('\n');
    const wrong = { ...source, termPacks: lines.slice(1).join('\n') };
    expect((await verifySearchIndex(wrong, new WholeFiles(files), [...files.keys()])).join('\n')).toMatch(
      /termPacks do not name the terms packs/,
    );
  });
});

describe('a term pack', () => {
  it('whose records are out of key order is a problem check names', async () => {
    // Few words: one term pack and one term index, rewritten with the pack's records reversed.
    const small = writeSearchIndex(
      ['alpha beta', 'gamma delta', 'beta epsilon'].map((text, position) => ({
        id: `resources/s${position}.md`,
        title: `S${position}`,
        text,
        url: '',
      })),
    );
    const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(small.extension)));
    if (!('table' in parsed)) throw new Error('the rows should be inline');
    const files = new Map(small.files.map((file) => [file.path, file.bytes]));
    const termPack = [...files.keys()].find((path) => path.includes('/terms/') && path.endsWith('.pack'))!;
    expect(parsed.table.terms).toHaveLength(1);
    const records = parsePack(files.get(termPack)!, termPack);
    if ('status' in records) throw new Error(records.reason);
    const reversed = [...records.records].reverse();
    const packBytes = encodePack(
      reversed.map(({ offset, length }) => files.get(termPack)!.subarray(offset, offset + length)),
    );
    const packName = contentName(packBytes);
    const packPath = `packs/search.index/terms/${packName}.pack`;
    let offset = PACK_HEADER_BYTES;
    const entries = reversed.map(({ length, record }) => {
      const entry = { key: utf8Bytes(record.names[0]!), pack: 0, recordOffset: offset, recordLength: length };
      offset += length;
      return entry;
    });
    entries.sort((left, right) => Buffer.compare(left.key, right.key));
    const indexBytes = encodeIndex(KEY_KIND.term, [{ path: packPath, length: packBytes.length }], entries);
    const indexPath = `packs/search.index/terms/${contentName(indexBytes)}.idx`;
    files.delete(termPack);
    files.delete(parsed.table.terms[0]!.index);
    files.set(packPath, packBytes);
    files.set(indexPath, indexBytes);
    const first = Buffer.from(entries[0]!.key).toString('hex');
    const table: SearchIndexTable = {
      ...parsed.table,
      terms: [{ first, index: indexPath }],
      termPacks: `${Buffer.from(reversed[0]!.record.names[0]!).toString('hex')} ${packName} ${packBytes.length}`,
    };
    const problems = await verifySearchIndex(table, new WholeFiles(files), [...files.keys()]);
    expect(problems.join('\n')).toMatch(/is not after the record before it in key order/);
    // Each record but the first, and nothing else: the pack is named by its content, every record reachable.
    expect(problems).toHaveLength(records.records.length - 1);
  });
});
