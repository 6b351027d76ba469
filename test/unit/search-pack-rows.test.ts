// The search table's pack rows (issue #40): a reader whose host sends whole files (the Workers
// asset binding) finds a word's postings and a result's title block by reading their pack alone,
// named in the table by its first key, with no term or title index read; it answers as the reader
// that goes through the indexes does; the rows are one text (a list in earlier trees, still
// read); a row that is not one sends its lookups to the index; a damaged record still refuses only
// what it holds, and `check` names rows that do not match the packs.
import { describe, expect, it } from 'vitest';
import { KEY_KIND, PACK_HEADER_BYTES } from '../../src/core/packs/pack-format.js';
import { type BytesOutcome, type PackFileSource, PackReader } from '../../src/core/packs/pack-reader.js';
import { parseSearchIndexManifest, type SearchIndexTable } from '../../src/core/search/search-index-format.js';
import { encodePackRows, listPackRows } from '../../src/core/search/search-pack-rows.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import type { SearchDocument } from '../../src/tree-writer/search-index-output.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { random } from '../helpers/random.js';

/** Files sent whole, each read logged; `sendsWholeFiles` says so to the reader, or not. */
class WholeFiles implements PackFileSource {
  readonly asked: string[] = [];
  constructor(
    readonly files: Map<string, Uint8Array>,
    readonly sendsWholeFiles: boolean,
  ) {}
  async readBytes(relativePath: string): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath);
    return bytes ? { status: 'ok', bytes, whole: true } : { status: 'missing' };
  }
}

function corpus(count: number): SearchDocument[] {
  const next = random(7);
  return Array.from({ length: count }, (_, position) => ({
    id: `resources/d${String(position).padStart(4, '0')}.json`,
    title: `Document ${position}`,
    text: `common ${Array.from({ length: 50 }, () => `w${Math.floor(next() ** 2 * 4000)}`).join(' ')} running runs`,
    url: '',
  }));
}

function readersOver(documents: SearchDocument[]) {
  const written = writeSearchIndex(documents);
  const bytes = new Map(written.files.map((file) => [file.path, file.bytes]));
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
  if (!('table' in parsed)) throw new Error('the rows should be inline');
  const table = parsed.table as SearchIndexTable;
  const problems: string[] = [];
  const readerOf = (files: WholeFiles) =>
    // Nothing kept between searches: each one is a new isolate's.
    new SearchReader(files, table, {
      onProblem: (reason) => problems.push(reason),
      indexCache: { maxIndexes: 0, maxIndexBytes: 0, maxWholePackBytes: 0 },
    });
  const whole = new WholeFiles(bytes, true);
  const indexed = new WholeFiles(bytes, false);
  return { bytes, table, problems, whole, indexed, wholeReader: readerOf(whole), indexedReader: readerOf(indexed) };
}

const QUERIES = ['w3 w17', 'common w2', 'running', 'w1999 w5', 'zzzabsent', 'w4* w8', 'w0'];

describe('the search table names its term and title packs by their first keys', () => {
  const documents = corpus(600);
  const { bytes, table, whole, indexed, wholeReader, indexedReader } = readersOver(documents);

  it('so a cold query reads packs alone, and answers as through the indexes', async () => {
    expect(listPackRows(table.termPacks!)!.length).toBeGreaterThan(3);
    expect(listPackRows(table.titlePacks!)!.length).toBeGreaterThan(3);
    for (const query of QUERIES) {
      whole.asked.length = 0;
      indexed.asked.length = 0;
      const byPacks = await wholeReader.search({ query });
      const byIndexes = await indexedReader.search({ query });
      expect(byPacks, query).toEqual(byIndexes);
      expect(byPacks.isError, query).toBeUndefined();
      // A prefix walks term indexes; whole words and title blocks need none.
      const indexes = whole.asked.filter((path) => path.endsWith('.idx'));
      if (query.includes('*'))
        expect(
          indexes.every((path) => path.includes('/terms/')),
          query,
        ).toBe(true);
      else expect(indexes, query).toEqual([]);
      // A word the index lacks: its pack, where the index path read the term index instead.
      if (query === 'zzzabsent') expect(whole.asked.length, query).toBe(indexed.asked.length);
      else expect(whole.asked.length, query).toBeLessThan(indexed.asked.length);
      expect(new Set(whole.asked).size, query).toBe(whole.asked.length);
    }
    const hits = (await wholeReader.search({ query: 'running' })).structuredContent as { total: number };
    expect(hits.total).toBe(documents.length);
  });

  it('a word the index lacks finds nothing, and beside a word it holds changes nothing', async () => {
    whole.asked.length = 0;
    expect((await wholeReader.search({ query: 'zzzabsent' })).structuredContent).toEqual({ results: [], total: 0 });
    // Its term pack (its stem's key and its own lie in one), and no title pack: nothing was found.
    expect(whole.asked.every((path) => path.includes('/terms/'))).toBe(true);
    const alone = (await wholeReader.search({ query: 'w3' })).structuredContent as { total: number };
    expect(alone.total).toBeGreaterThan(0);
    expect((await wholeReader.search({ query: 'zzzabsent w3' })).structuredContent).toEqual(alone);
    expect((await wholeReader.search({ query: 'w3 zzzabsent' })).structuredContent).toEqual(alone);
  });

  it("checks a space's index rows when a query first uses them", async () => {
    const written = writeSearchIndex(documents.slice(0, 200));
    const files = new Map(written.files.map((file) => [file.path, file.bytes]));
    const value = JSON.parse(JSON.stringify(written.extension)) as Record<string, { index: string }[]>;
    // A term row and a document row that name no index file: a table damaged on the host.
    value.terms![0]!.index = 'packs/search.index/terms/elsewhere.json';
    value.documents![0]!.index = 'packs/search.index/documents/elsewhere.json';
    expect(parseSearchIndexManifest(value)).toMatchObject({ problem: expect.stringContaining('terms') });
    const parsed = parseSearchIndexManifest(value, 'on-read');
    if (!('table' in parsed)) throw new Error(`a reader's table checks its rows later: ${JSON.stringify(parsed)}`);
    const readerOf = (sendsWholeFiles: boolean) =>
      new SearchReader(new WholeFiles(files, sendsWholeFiles), parsed.table);
    const sound = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
    if (!('table' in sound)) throw new Error('the rows should be inline');
    const expected = await new SearchReader(new WholeFiles(files, true), sound.table).search({ query: 'w3 common' });
    // A host that sends whole packs finds words through the pack rows: the term rows are not used.
    expect(await readerOf(true).search({ query: 'w3 common' })).toEqual(expected);
    const fetched = await readerOf(true).fetch({ id: documents[0]!.id });
    expect(fetched.isError).toBe(true);
    expect(fetched.content[0]).toMatchObject({ text: expect.stringMatching(/damaged.*documents names the index/) });
    // A host that reads ranges looks words up through the term rows: the search says the index is damaged.
    const ranged = await readerOf(false).search({ query: 'w3' });
    expect(ranged.isError).toBe(true);
    expect(ranged.content[0]).toMatchObject({ text: expect.stringMatching(/damaged.*terms names the index/) });
  });

  it('and a damaged record refuses only its word, as through the indexes', async () => {
    const damaged = new Map(bytes);
    // The record of w3 in its term pack: one body byte changed, so the pack no longer hashes to its name.
    const found = await new PackReader(indexed).lookup(table.terms, KEY_KIND.term, utf8Bytes('w3'), 'w3');
    if (found.status !== 'ok') throw new Error(found.reason);
    const pack = damaged.get(found.pack)!.slice();
    const bodyAt = found.recordOffset + found.recordLength - found.body.length;
    pack[bodyAt + found.body.length - 1]! ^= 0xff;
    damaged.set(found.pack, pack);
    expect(found.recordOffset).toBeGreaterThanOrEqual(PACK_HEADER_BYTES);
    const problems: string[] = [];
    const reader = new SearchReader(new WholeFiles(damaged, true), table, {
      onProblem: (reason) => problems.push(reason),
      indexCache: { maxIndexes: 0, maxIndexBytes: 0, maxWholePackBytes: 0 },
    });
    const refused = await reader.search({ query: 'w3' });
    expect(refused.isError).toBe(true);
    expect(problems.join('\n')).toMatch(/checksum/);
    // Other words of the same pack still answer.
    const words = [...new Set(documents.flatMap((document) => document.text.split(' ')))].filter(
      (word) => word.startsWith('w') && word !== 'w3',
    );
    let neighbours = 0;
    for (const word of words) {
      const at = await new PackReader(indexed).lookup(table.terms, KEY_KIND.term, utf8Bytes(word), word);
      if (at.status !== 'ok' || at.pack !== found.pack) continue;
      neighbours += 1;
      const other = await reader.search({ query: word });
      expect(other.isError, word).toBeUndefined();
      if (neighbours === 3) break;
    }
    expect(neighbours).toBe(3);
  });

  it('as one text, a line per pack; the list of rows earlier trees hold reads the same', async () => {
    // The table's JSON holds each space's rows as one string, which a cold worker parses without
    // building an array per pack (7,415 title packs at 650,000 documents).
    expect(typeof table.termPacks).toBe('string');
    expect(typeof table.titlePacks).toBe('string');
    const termRows = listPackRows(table.termPacks!)!;
    const titleRows = listPackRows(table.titlePacks!)!;
    expect((table.termPacks as string).split('\n')[1]).toBe(termRows[1]!.join(' '));
    const listed = { ...table, termPacks: termRows, titlePacks: titleRows };
    const noCache = { indexCache: { maxIndexes: 0, maxIndexBytes: 0, maxWholePackBytes: 0 } };
    for (const query of QUERIES) {
      // New readers each time: a query's reads are a cold isolate's.
      const [fromList, fromText] = [new WholeFiles(bytes, true), new WholeFiles(bytes, true)];
      const answer = await new SearchReader(fromList, listed, noCache).search({ query });
      expect(answer, query).toEqual(await new SearchReader(fromText, table, noCache).search({ query }));
      expect(fromList.asked.sort(), query).toEqual(fromText.asked.sort());
      expect(
        fromText.asked.filter((path) => path.endsWith('.idx') && !query.includes('*')),
        query,
      ).toEqual([]);
    }
  });

  it('and a row that is not one sends its lookups to the index, which still answers', async () => {
    const rows = (table.termPacks as string).split('\n');
    // Every other row's name spoiled: a lookup landing on one reads the term index instead.
    const spoiled = rows.map((row, position) => (position % 2 === 0 ? row.replace(' ', ' zz') : row)).join('\n');
    for (const termPacks of [spoiled, 'not rows', `${rows[0]}\nzz`]) {
      const files = new WholeFiles(bytes, true);
      const reader = new SearchReader(
        files,
        { ...table, termPacks },
        { indexCache: { maxIndexes: 0, maxIndexBytes: 0, maxWholePackBytes: 0 } },
      );
      for (const query of QUERIES) {
        files.asked.length = 0;
        expect(await reader.search({ query }), query).toEqual(await indexedReader.search({ query }));
      }
      expect(files.asked.some((path) => path.includes('/terms/') && path.endsWith('.idx'))).toBe(true);
    }
  });

  it('and check names rows that do not match the packs, as text or as a list', async () => {
    // check reads every record of the index: 200 documents (4 term packs, so the reversed rows name
    // other packs) show it, at a third of the 600's CPU.
    const { bytes, table, indexed } = readersOver(corpus(200));
    const rows = listPackRows(table.termPacks!)!;
    expect(rows.length).toBeGreaterThan(1);
    const paths = () => [...bytes.keys()];
    expect(await verifySearchIndex(table, indexed, paths())).toEqual([]);
    expect(await verifySearchIndex({ ...table, termPacks: rows }, indexed, paths())).toEqual([]);
    for (const termPacks of [[...rows].reverse(), encodePackRows([...rows].reverse()), 'not rows']) {
      const swapped = { ...table, termPacks };
      expect((await verifySearchIndex(swapped, indexed, paths())).join('\n')).toMatch(/termPacks do not name/);
    }
  });
});
