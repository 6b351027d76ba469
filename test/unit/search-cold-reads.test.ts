// What a cold search reads (issue #40), from a host that sends whole files whatever range is asked
// (the Workers asset binding): each file a query needs is read once, however many of its terms,
// title blocks and excerpts lie in it; an excerpt inflates only the start of a long document, so a
// damaged tail past that start costs fetch its answer, not search its excerpt; a result's title
// block and excerpt source lie in one pack, read once.
import { describe, expect, it } from 'vitest';
import { callKeyOf, KEY_KIND, parseRecord } from '../../src/core/packs/pack-format.js';
import { encodeRecord } from '../../src/core/packs/pack-encoding.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import { damageExcerptSource, locateExcerptSource } from '../helpers/search-record-damage.js';
import { type BytesOutcome, type PackFileSource, PackReader } from '../../src/core/packs/pack-reader.js';
import {
  parseSearchIndexManifest,
  type SearchIndexTable,
  titleBlockKeyOf,
} from '../../src/core/search/search-index-format.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import { excerptSourceKeyOf } from '../../src/core/search/excerpt-source.js';
import type { SearchDocument, SearchIndexOptions } from '../../src/tree-writer/search-index-output.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { random } from '../helpers/random.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

/** Files as the asset binding sends them: whole, each read logged. */
class WholeFiles implements PackFileSource {
  readonly asked: string[] = [];
  constructor(readonly files: Map<string, Uint8Array>) {}
  async readBytes(relativePath: string): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath);
    return bytes ? { status: 'ok', bytes, whole: true } : { status: 'missing' };
  }
}

/**
 * The index written from a corpus, by the corpus: the tests that read one corpus share its writing.
 * Each reader still gets a map of its own, where a test swaps in the copies it damages.
 */
const writtenByCorpus = new WeakMap<SearchDocument[], ReturnType<typeof writeSearchIndex>>();

function writeWithDefaults(documents: SearchDocument[]): ReturnType<typeof writeSearchIndex> {
  let written = writtenByCorpus.get(documents);
  if (!written) {
    written = writeSearchIndex(documents);
    writtenByCorpus.set(documents, written);
  }
  return written;
}

function readerOver(documents: SearchDocument[], options?: SearchIndexOptions) {
  const written = options ? writeSearchIndex(documents, options) : writeWithDefaults(documents);
  const files = new WholeFiles(new Map(written.files.map((file) => [file.path, file.bytes])));
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
  if (!('table' in parsed)) throw new Error('the rows should be inline');
  const problems: string[] = [];
  // No whole pack kept: every lookup goes to the host, as in a new isolate.
  const reader = new SearchReader(files, parsed.table, {
    onProblem: (reason) => problems.push(reason),
    indexCache: { maxIndexes: 0, maxIndexBytes: 0, maxWholePackBytes: 0 },
  });
  return { files, table: parsed.table as SearchIndexTable, reader, problems };
}

const wordsOf = (next: () => number, count: number) =>
  Array.from({ length: count }, () => `w${Math.floor(next() ** 2 * 3000)}`).join(' ');

describe('a cold search', () => {
  it('reads each file it needs once, however many of its lookups lie in it', async () => {
    const next = random(40);
    const documents = Array.from({ length: 200 }, (_, position) => ({
      id: `resources/d${String(position).padStart(3, '0')}.json`,
      title: `d${position}`,
      text: `shared ${wordsOf(next, 60)}`,
      url: '',
    }));
    const { files, reader } = readerOver(documents);
    for (const query of ['shared w1', 'w2 w3 w5', 'w1*']) {
      files.asked.length = 0;
      const result = await reader.search({ query });
      expect(result.isError).toBeUndefined();
      const hits = (result.structuredContent as { results: { excerpt?: string }[] }).results;
      expect(hits.length).toBe(10);
      expect(hits.every((hit) => hit.excerpt !== undefined)).toBe(true);
      // Ten excerpts and several terms from a handful of packs: one read per file.
      expect(files.asked.length, query).toBe(new Set(files.asked).size);
      expect(reader.lastSearchReads().reads).toBe(files.asked.length);
    }
  });

  it('finds a word and its stem in one term index, among many', async () => {
    const next = random(42);
    const forms = ['connect', 'connected', 'connecting', 'connection', 'connects'];
    const documents = Array.from({ length: 150 }, (_, position) => ({
      id: `resources/d${String(position).padStart(3, '0')}.json`,
      title: `d${position}`,
      text: `${forms[position % forms.length]} ${Array.from({ length: 30 }, () => `x${Math.floor(next() * 20_000)}`).join(' ')}`,
      url: '',
    }));
    const { files, table, reader } = readerOver(documents, { targetTermIndexBytes: 1024 });
    expect(table.terms.length).toBeGreaterThan(20);
    for (const query of ['connected', 'connecting x17']) {
      files.asked.length = 0;
      const result = await reader.search({ query });
      expect(result.isError).toBeUndefined();
      // Every form of the word is found (through its stem's list), the form asked first.
      const hits = (result.structuredContent as { results: { excerpt?: string }[]; total: number }).results;
      expect(hits[0]!.excerpt).toContain(query.split(' ')[0]);
      expect((result.structuredContent as { total: number }).total).toBeGreaterThanOrEqual(150 * 0.9);
      const termIndexes = files.asked.filter((path) => path.includes('/terms/') && path.endsWith('.idx'));
      expect(termIndexes.length, query).toBe(query.split(' ').length);
    }
    // A prefix finds words, never a stem's key.
    const prefixed = await reader.search({ query: 'connectio*' });
    const texts = (prefixed.structuredContent as { results: { excerpt?: string }[] }).results;
    expect(texts.length).toBe(10);
    for (const hit of texts) expect(hit.excerpt).toContain('connection');
  });

  it('reads a small share of a large index: its term and title packs are small', async () => {
    const next = random(41);
    const documents = Array.from({ length: 800 }, (_, position) => ({
      id: `resources/d${String(position).padStart(4, '0')}.json`,
      title: `Document ${position}`,
      text: Array.from({ length: 60 }, () => `v${Math.floor(next() * 12_000)}`).join(' '),
      url: '',
    }));
    const { files, reader } = readerOver(documents);
    const sizeOf = (path: string) => files.files.get(path)?.length ?? 0;
    const termPacks = [...files.files.keys()].filter((path) => path.includes('/terms/') && path.endsWith('.pack'));
    expect(termPacks.length).toBeGreaterThan(10);
    for (const query of ['v17 v23', 'v100 v2000', 'v5 v11999']) {
      files.asked.length = 0;
      const result = await reader.search({ query });
      expect(result.isError).toBeUndefined();
      const read = files.asked.filter((path) => path.includes('/terms/') || path.includes('/titles/'));
      const packs = read.filter((path) => path.endsWith('.pack'));
      expect(packs.length).toBeGreaterThan(0);
      // A host that ignores ranges sends each whole: a few KiB of postings cost a pack's bytes.
      for (const path of packs) expect(sizeOf(path), path).toBeLessThanOrEqual(48 * 1024);
    }
  });
});

describe('an excerpt of a long document', () => {
  it('comes from its start, and a damaged tail refuses fetch but not the excerpt', async () => {
    const next = random(41);
    const long = `needle ${wordsOf(next, 60_000)}`;
    const { files, table, reader, problems } = readerOver([
      { id: 'resources/long.json', title: 'long', text: long, url: '' },
      { id: 'resources/short.json', title: 'short', text: 'a short needle page', url: '' },
    ]);
    const id = 'resources/long.json';
    const entry = await new PackReader(files).locate(table.documents, KEY_KIND.call, callKeyOf(id), id);
    if (entry.status !== 'ok') throw new Error(entry.reason);
    const pack = files.files.get(entry.pack.path)!.slice();
    const record = parseRecord(pack.subarray(entry.recordOffset, entry.recordOffset + entry.recordLength), 'it');
    if ('status' in record) throw new Error(record.reason);
    // The second half of its deflate stream replaced by bytes that do not inflate.
    const body = record.body.slice();
    body.fill(0xff, Math.floor(body.length / 2));
    pack.set(encodeRecord({ names: record.names, body }), entry.recordOffset);
    files.files.set(entry.pack.path, pack);

    const start = process.cpuUsage();
    const result = await reader.search({ query: 'needle' });
    expect(cpuMsSince(start)).toBeLessThan(2000);
    const hits = (result.structuredContent as { results: { id: string; excerpt?: string }[] }).results;
    const hit = hits.find((found) => found.id === id);
    expect(hit?.excerpt).toMatch(/^needle w\d+/);
    expect(problems).toEqual([]);
    const fetched = await reader.fetch({ id });
    expect(fetched.isError).toBe(true);
    expect(JSON.stringify(fetched.content)).toMatch(/does not decompress/);
  });

  it('is left out when its excerpt source is damaged, and only for that document', async () => {
    const { files, table, reader, problems } = readerOver([
      { id: 'resources/a.json', title: 'a', text: `needle ${wordsOf(random(42), 30_000)}`, url: '' },
      { id: 'resources/b.json', title: 'b', text: 'another needle page', url: '' },
    ]);
    // Document 0 (ids in order): its source's deflate stream replaced by bytes that do not inflate.
    await damageExcerptSource(files, table, 0, (body) => body.fill(0xff, 4, 64));
    const hits = (
      (await reader.search({ query: 'needle' })).structuredContent as {
        results: { id: string; excerpt?: string }[];
      }
    ).results;
    expect(hits.map((hit) => [hit.id, hit.excerpt !== undefined]).sort()).toEqual([
      ['resources/a.json', false],
      ['resources/b.json', true],
    ]);
    expect(problems.some((problem) => problem.includes('resources/a.json'))).toBe(true);
    // fetch reads the document's own record, which is sound.
    expect((await reader.fetch({ id: 'resources/a.json' })).isError).toBeUndefined();
  });
});

describe('a title block and its excerpt sources', () => {
  // One corpus (and so one writing of its index, see readerOver) for the block's tests.
  let corpus: SearchDocument[] | undefined;
  const documents = () => {
    const next = random(43);
    corpus ??= Array.from({ length: 200 }, (_, position) => ({
      id: `resources/d${String(position).padStart(3, '0')}.json`,
      title: `d${position}`,
      text: `shared ${wordsOf(next, 80)}`,
      url: '',
    }));
    return corpus;
  };

  it('share one pack, so a result costs one read of it', async () => {
    const { files, table, reader } = readerOver(documents());
    expect([...files.files.keys()].filter((path) => !/\/(terms|titles|documents)\//.test(path))).toEqual([]);
    const packs = new PackReader(files);
    const packOf = async (key: string) => {
      const found = await packs.locate(table.titles, KEY_KIND.term, utf8Bytes(key), key);
      if (found.status !== 'ok') throw new Error(found.reason);
      return found.pack.path;
    };
    for (let number = 0; number < 200; number += 1) {
      const block = Math.floor(number / table.blockSize);
      expect((await locateExcerptSource(files, table, number)).pack, `document ${number}`).toBe(
        await packOf(titleBlockKeyOf(block)),
      );
      // Placed by its block's entries, not by an index entry of its own.
      const key = excerptSourceKeyOf(number, table.blockSize);
      expect((await packs.locate(table.titles, KEY_KIND.term, utf8Bytes(key), key)).status).toBe('missing');
    }
    for (const query of ['shared w1', 'w2 w3 w5']) {
      files.asked.length = 0;
      const result = await reader.search({ query });
      const hits = (result.structuredContent as { results: { id: string; excerpt?: string }[] }).results;
      expect(hits.length).toBe(10);
      expect(hits.every((hit) => hit.excerpt !== undefined)).toBe(true);
      const blocks = new Set(hits.map((hit) => Math.floor(Number(/d(\d+)/.exec(hit.id)![1]) / table.blockSize)));
      const titlePacks = files.asked.filter((path) => path.includes('/titles/') && path.endsWith('.pack'));
      // Ten titles and ten excerpts: one pack read per block the results fall in, at most.
      expect(titlePacks.length, query).toBe(new Set(titlePacks).size);
      expect(titlePacks.length, query).toBeLessThanOrEqual(blocks.size);
    }
  });

  it('refuses a source that names another document: that result alone loses its excerpt, and says why', async () => {
    const { files, table, reader, problems } = readerOver(documents());
    const entry = await locateExcerptSource(files, table, 3);
    const pack = files.files.get(entry.pack)!.slice();
    const record = parseRecord(pack.subarray(entry.recordOffset, entry.recordOffset + entry.recordLength), entry.name);
    if ('status' in record) throw new Error(record.reason);
    // Same length, so every offset stays: the record now claims document 4's source (and is still
    // document 3's fetch record: its whole text fits in its source, so it is stored once).
    expect(record.names).toEqual([entry.name, 'resources/d003.json']);
    pack.set(
      encodeRecord({ names: [excerptSourceKeyOf(4, table.blockSize), ...record.names.slice(1)], body: record.body }),
      entry.recordOffset,
    );
    files.files.set(entry.pack, pack);
    const hits = (
      (await reader.search({ query: 'shared' })).structuredContent as { results: { id: string; excerpt?: string }[] }
    ).results;
    const withExcerpt = new Map(hits.map((hit) => [hit.id, hit.excerpt !== undefined]));
    // "shared" is in every document: ties rank by number, so documents 0 to 9 are the results.
    expect(withExcerpt.get('resources/d003.json')).toBe(false);
    expect([...withExcerpt].filter(([, has]) => !has).map(([id]) => id)).toEqual(['resources/d003.json']);
    expect(problems.join('\n')).toMatch(new RegExp(`${entry.pack} does not name ${entry.name}`));
    expect((await reader.fetch({ id: 'resources/d003.json' })).isError).toBeUndefined();
  });

  it('are checked where their block places them: a renamed or spoiled one is named', async () => {
    // check reads every record of the index, three times here: three title blocks of the corpus
    // show it (the damage is in the first), at a quarter of the whole corpus's CPU.
    const { files, table } = readerOver(documents().slice(0, 48));
    const paths = () => [...files.files.keys()];
    expect(await verifySearchIndex(table, files, paths())).toEqual([]);
    const entry = await locateExcerptSource(files, table, 3);
    const sound = files.files.get(entry.pack)!;
    const record = parseRecord(sound.subarray(entry.recordOffset, entry.recordOffset + entry.recordLength), entry.name);
    if ('status' in record) throw new Error(record.reason);
    const renamed = sound.slice();
    renamed.set(
      encodeRecord({ names: [excerptSourceKeyOf(4, table.blockSize), ...record.names.slice(1)], body: record.body }),
      entry.recordOffset,
    );
    files.files.set(entry.pack, renamed);
    expect((await verifySearchIndex(table, files, paths())).join('\n')).toMatch(
      new RegExp(
        `${entry.pack} at byte ${entry.recordOffset} .* is not the excerpt source its title block 00000000 places there`,
      ),
    );
    files.files.set(entry.pack, sound);
    await damageExcerptSource(files, table, 3, (body) => body.fill(0xff, 4));
    expect((await verifySearchIndex(table, files, paths())).join('\n')).toMatch(
      new RegExp(`${entry.pack} at byte ${entry.recordOffset} .* is not a compressed excerpt source`),
    );
  });

  it('refuses the search with a clear error when their pack is missing', async () => {
    const { files, table, reader } = readerOver(documents());
    const key = titleBlockKeyOf(0);
    const entry = await new PackReader(files).locate(table.titles, KEY_KIND.term, utf8Bytes(key), key);
    if (entry.status !== 'ok') throw new Error(entry.reason);
    files.files.delete(entry.pack.path);
    const result = await reader.search({ query: 'shared' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(
      new RegExp(`damaged.*build and deploy.*${entry.pack.path} is missing`),
    );
  });
});
