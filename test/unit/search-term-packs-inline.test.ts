// The term pack rows mcp.json keeps beside a search table file (issue #40): a host that sends whole
// files (the Workers asset binding) finds a word's pack, or knows the word is missing, without
// reading the table; the table is read once a query needs titles. An earlier format 6 tree, whose
// table file holds the term pack rows, answers the same; `check` holds mcp.json's rows to the packs.
import { describe, expect, it } from 'vitest';
import type { BytesOutcome, PackFileSource } from '../../src/core/packs/pack-reader.js';
import {
  parseSearchIndexManifest,
  SEARCH_TERM_PACKS_INLINE_BYTES,
  type SearchTableFileSource,
} from '../../src/core/search/search-index-format.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import { contentName } from '../../src/tree-writer/search-index-output.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
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
  const { table, termPacks, ...counts } = written.extension as { table: string; termPacks: string };
  const files = new Map(written.files.map((file) => [file.path, file.bytes]));
  const rows = JSON.parse(new TextDecoder().decode(files.get(table)));
  const { titlePacks, ...indexRows } = rows;
  const bytes = utf8Bytes(JSON.stringify({ ...indexRows, termPacks, titlePacks }));
  const path = `packs/search.index/${contentName(bytes)}.table.json`;
  files.delete(table);
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
    expect(Object.keys(JSON.parse(new TextDecoder().decode(table.bytes)))).toEqual([
      'terms',
      'titles',
      'documents',
      'titlePacks',
    ]);
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
    // A word found needs its results' titles: the table is read then, once.
    host.asked.length = 0;
    const found = await reader.search({ query: 'w3 w17' });
    expect((found.structuredContent as { results: unknown[] }).results).toHaveLength(10);
    expect(host.asked.filter((path) => path.endsWith('.table.json'))).toHaveLength(1);
  });

  it('answer as the rows of an earlier tree’s table file do, which are still read', async () => {
    const current = readerOver(
      new Map(written.files.map((file) => [file.path, file.bytes])),
      sourceOf(written.extension),
    );
    const earlier = earlierTree();
    const before = readerOver(earlier.files, earlier.source);
    for (const query of ['w3 w17', 'w250', 'w1* w40', 'qqqqzzzzxxxx', 'w4000 w4999']) {
      expect(await before.reader.search({ query }), query).toEqual(await current.reader.search({ query }));
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
