// The title pack rows of a large index in a binary file of their own (issue #40): when the table
// leaves mcp.json, a query that finds words reads that small file for its results' title packs and
// never the table; it answers as the indexes and an earlier tree's table rows do; a rows file that
// is missing, cut short, an HTML page or names the wrong packs costs speed, not answers; `check`
// names each of those.
import { describe, expect, it } from 'vitest';
import type { BytesOutcome, PackFileSource } from '../../src/core/packs/pack-reader.js';
import {
  parseSearchIndexManifest,
  SEARCH_FOLDER,
  type SearchPackRow,
  type SearchTableFileSource,
} from '../../src/core/search/search-index-format.js';
import { encodePackRows } from '../../src/core/search/search-pack-rows.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { encodeTitlePackRows, TitlePackRows } from '../../src/core/search/title-pack-rows.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import { contentName } from '../../src/tree-writer/search-index-output.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { random } from '../helpers/random.js';

/** Files as the asset binding sends them (whole, each read logged), or by range as `serve` reads them. */
class HostFiles implements PackFileSource {
  readonly asked: string[] = [];
  constructor(
    readonly files: Map<string, Uint8Array>,
    readonly sendsWholeFiles: boolean,
  ) {}
  async readBytes(relativePath: string, range?: { offset: number; length: number }): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath);
    if (!bytes) return { status: 'missing' };
    if (this.sendsWholeFiles || !range) return { status: 'ok', bytes, whole: true };
    return { status: 'ok', bytes: bytes.subarray(range.offset, range.offset + range.length), whole: false };
  }
}

const next = random(69);
const documents = Array.from({ length: 240 }, (_, position) => ({
  id: `resources/d${String(position).padStart(4, '0')}.json`,
  title: `Document ${position}`,
  text: Array.from({ length: 40 }, () => `w${Math.floor(next() ** 2 * 4000)}`).join(' '),
  url: '',
}));
// Small title blocks and packs: a query's results lie in many of them, as at 650,000 documents.
const written = writeSearchIndex(documents, { inlineTableBytes: 0, targetPackBytes: 2048, blockSize: 8 });
const extension = written.extension as { table: string; titlePackFile: string; termPacks: string };
const QUERIES = ['w3 w17', 'w250', 'w1* w40', 'w4000 w4999', 'w2 w5 w7', 'qqqqzzzzxxxx', 'w11'];

function sourceOf(value: unknown): SearchTableFileSource {
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(value)));
  if (!('tableFile' in parsed)) throw new Error('the rows should be in a table file');
  return parsed;
}

function readerOver(files: Map<string, Uint8Array>, source: SearchTableFileSource, sendsWholeFiles = true) {
  const host = new HostFiles(files, sendsWholeFiles);
  const problems: string[] = [];
  // Nothing kept between searches but the reader's own table and rows: each pack read is a host read.
  const reader = new SearchReader(host, source, {
    onProblem: (reason) => problems.push(reason),
    indexCache: { maxIndexes: 0, maxIndexBytes: 0, maxWholePackBytes: 0 },
  });
  return { host, reader, problems };
}

const filesOf = () => new Map(written.files.map((file) => [file.path, file.bytes]));

/** The same index as an earlier format 6 build wrote it: the title pack rows as text in the table file. */
function earlierTree(): { files: Map<string, Uint8Array>; source: SearchTableFileSource } {
  const { table, titlePackFile, ...rest } = extension;
  const files = filesOf();
  const rows = JSON.parse(new TextDecoder().decode(files.get(table)));
  const titlePacks = encodePackRows(TitlePackRows.of(files.get(titlePackFile)!)!.list());
  const bytes = utf8Bytes(JSON.stringify({ ...rows, titlePacks }));
  const path = `${SEARCH_FOLDER}${contentName(bytes)}.table.json`;
  files.delete(table);
  files.delete(titlePackFile);
  files.set(path, bytes);
  return { files, source: sourceOf({ ...rest, table: path }) };
}

describe('title pack rows in their own file', () => {
  it('are written beside the table, named by their content, 16 bytes a pack', () => {
    expect(extension.titlePackFile).toMatch(/^packs\/search\.index\/[0-9a-f]{16}\.title-packs$/);
    const bytes = filesOf().get(extension.titlePackFile)!;
    expect(contentName(bytes)).toBe(extension.titlePackFile.slice(SEARCH_FOLDER.length, -'.title-packs'.length));
    const titlePacks = [...filesOf().keys()].filter(
      (path) => path.startsWith(`${SEARCH_FOLDER}titles/`) && path.endsWith('.pack'),
    );
    expect(titlePacks.length).toBeGreaterThan(20);
    expect(bytes.length).toBe(8 + 16 * titlePacks.length);
    // The table keeps the index rows only.
    expect(Object.keys(JSON.parse(new TextDecoder().decode(filesOf().get(extension.table))))).toEqual([
      'terms',
      'titles',
      'documents',
    ]);
  });

  it('let a query that finds words read no table, and the rows once', async () => {
    const { host, reader, problems } = readerOver(filesOf(), sourceOf(extension));
    for (const query of ['w3 w17', 'w2 w5 w7', 'w11']) {
      const found = await reader.search({ query });
      expect((found.structuredContent as { results: unknown[] }).results, query).toHaveLength(10);
    }
    expect(host.asked.filter((path) => path.endsWith('.table.json'))).toEqual([]);
    expect(host.asked.filter((path) => path === extension.titlePackFile)).toHaveLength(1);
    // The title packs came from the rows, not through a title index.
    expect(host.asked.filter((path) => path.startsWith(`${SEARCH_FOLDER}titles/`) && path.endsWith('.idx'))).toEqual(
      [],
    );
    expect(problems).toEqual([]);
  });

  it('answer as the title index and an earlier tree’s table rows do', async () => {
    const current = readerOver(filesOf(), sourceOf(extension));
    const earlier = earlierTree();
    const before = readerOver(earlier.files, earlier.source);
    const throughIndexes = readerOver(filesOf(), sourceOf(extension), false);
    for (const query of QUERIES) {
      const answer = await current.reader.search({ query });
      expect(answer.isError, query).toBeUndefined();
      expect(await before.reader.search({ query }), query).toEqual(answer);
      expect(await throughIndexes.reader.search({ query }), query).toEqual(answer);
    }
    expect(throughIndexes.host.asked).not.toContain(extension.titlePackFile);
    expect(
      await verifySearchIndex(earlier.source, new HostFiles(earlier.files, true), [...earlier.files.keys()]),
    ).toEqual([]);
  });

  it('missing, cut short, an HTML page or naming the wrong packs: the same answers, found through the title index', async () => {
    const expected = await Promise.all(
      QUERIES.map((query) => readerOver(filesOf(), sourceOf(extension), false).reader.search({ query })),
    );
    const rows = TitlePackRows.of(filesOf().get(extension.titlePackFile)!)!.list();
    // Every row names the pack after its own: each block's lookup meets a sound pack without it.
    const shifted = encodeTitlePackRows(
      rows.map(([first], position): SearchPackRow => {
        const [, name, bytes] = rows[(position + 1) % rows.length]!;
        return [first, name, bytes];
      }),
    )!;
    const damages: Record<string, Uint8Array | undefined> = {
      missing: undefined,
      'cut short': filesOf().get(extension.titlePackFile)!.subarray(0, 100),
      'an HTML page': utf8Bytes('<!doctype html><title>Not found</title>'),
      'naming the wrong packs': shifted,
    };
    for (const [damage, bytes] of Object.entries(damages)) {
      const files = filesOf();
      if (bytes === undefined) files.delete(extension.titlePackFile);
      else files.set(extension.titlePackFile, bytes);
      const { reader, problems } = readerOver(files, sourceOf(extension));
      for (const [position, query] of QUERIES.entries())
        expect(await reader.search({ query }), `${damage}: ${query}`).toEqual(expected[position]);
      if (damage !== 'naming the wrong packs')
        expect(problems.join('\n'), damage).toContain(`title pack rows ${extension.titlePackFile}`);
      const checked = (
        await verifySearchIndex(sourceOf(extension), new HostFiles(files, true), [...files.keys()])
      ).join('\n');
      expect(checked, damage).toMatch(
        bytes === undefined
          ? /title-packs is missing/
          : damage === 'naming the wrong packs'
            ? /titlePacks do not name the titles packs/
            : /not a file of title pack rows/,
      );
    }
  });

  it('are held by check to their content name and to the packs', async () => {
    const files = filesOf();
    const source = sourceOf(extension);
    expect(await verifySearchIndex(source, new HostFiles(files, true), [...files.keys()])).toEqual([]);
    // One row left out, renamed by its content: a sound file, but not the packs' rows.
    const rows = TitlePackRows.of(files.get(extension.titlePackFile)!)!.list();
    const fewer = encodeTitlePackRows(rows.slice(1))!;
    const fewerPath = `${SEARCH_FOLDER}${contentName(fewer)}.title-packs`;
    files.set(fewerPath, fewer);
    const problems = await verifySearchIndex({ ...source, titlePackFile: fewerPath }, new HostFiles(files, true), [
      ...files.keys(),
    ]);
    expect(problems.join('\n')).toMatch(/titlePacks do not name the titles packs/);
    // The file the manifest no longer names is a stray.
    expect(problems.join('\n')).toContain(`${extension.titlePackFile} lies under`);
    // Edited in place: not named by its content.
    files.set(extension.titlePackFile, fewer);
    expect((await verifySearchIndex(source, new HostFiles(files, true), [...files.keys()])).join('\n')).toContain(
      `${extension.titlePackFile} is not named by its content hash`,
    );
  });

  it('are found by block: before the first, inside each, past the last, and too large to read whole', () => {
    const key = (block: number) => utf8Bytes(block.toString(16).padStart(8, '0'));
    const hex = (block: number) => Buffer.from(key(block)).toString('hex');
    const rows = [
      [hex(2), '00000000000000aa', 100],
      [hex(5), '00000000000000bb', 600 * 1024],
      [hex(9), '00000000000000cc', 300],
    ] as const;
    const parsed = TitlePackRows.of(encodeTitlePackRows(rows)!)!;
    expect(parsed.list()).toEqual(rows);
    const pathOf = (name: string) => `${SEARCH_FOLDER}titles/${name}.pack`;
    expect([0, 1, 2, 4, 5, 8, 9, 1000].map((block) => parsed.packPathOfBlock(block))).toEqual([
      null,
      null,
      pathOf('00000000000000aa'),
      pathOf('00000000000000aa'),
      undefined,
      undefined,
      pathOf('00000000000000cc'),
      pathOf('00000000000000cc'),
    ]);
    // Rows out of block order, or not of title blocks, are not written.
    expect(encodeTitlePackRows([rows[1], rows[0]])).toBeUndefined();
    expect(encodeTitlePackRows([['61', '00000000000000aa', 1]])).toBeUndefined();
  });

  it('is refused in mcp.json when it names a file of another kind', () => {
    for (const titlePackFile of ['packs/search.index/x.title-packs', '../a.title-packs', 7, 'mcp.json'])
      expect(parseSearchIndexManifest({ ...extension, titlePackFile }), String(titlePackFile)).toMatchObject({
        problem: expect.stringContaining('search.titlePackFile'),
      });
  });
});
