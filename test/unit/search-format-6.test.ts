// Index format 6 (issue #40), written by the in-memory reference writer and read back through the
// pack reader over byte buffers: words find their other forms (Porter) with the word as typed
// ranked first, a word ending in * finds the words it starts within a bounded number of reads, each
// hit carries an excerpt with the positions of its matches and the answer a total, document text
// is stored compressed, and a record that does not inflate, or inflates to another length, refuses
// only its own document. Bad queries answer in bounded time.
import { describe, expect, it } from 'vitest';
import { callKeyOf, KEY_KIND } from '../../src/core/packs/pack-format.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import { damageExcerptSource, damageRecordBody } from '../helpers/search-record-damage.js';
import {
  type ByteRange,
  type BytesOutcome,
  type PackFileSource,
  PackReader,
} from '../../src/core/packs/pack-reader.js';
import { MAX_PREFIX_INDEXES, MAX_PREFIX_TERMS } from '../../src/core/search/query-terms.js';
import { parseSearchIndexManifest, type SearchIndexTable } from '../../src/core/search/search-index-format.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import type { ToolResult } from '../../src/core/results/tool-result.js';
import type { SearchDocument, SearchIndexOptions } from '../../src/tree-writer/search-index-output.js';
import { STEM_KEY_SUFFIX } from '../../src/core/search/stem.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { random } from '../helpers/random.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

class MemoryFiles implements PackFileSource {
  readonly asked: string[] = [];
  constructor(readonly files: Map<string, Uint8Array>) {}
  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath);
    if (!bytes) return { status: 'missing' };
    if (!range) return { status: 'ok', bytes, whole: true };
    return { status: 'ok', bytes: bytes.subarray(range.offset, range.offset + range.length), whole: false };
  }
}

function readerOver(documents: SearchDocument[], options: SearchIndexOptions = {}) {
  const written = writeSearchIndex(documents, options);
  const files = new MemoryFiles(new Map(written.files.map((file) => [file.path, file.bytes])));
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
  if (!('table' in parsed)) throw new Error('the rows should be inline');
  const problems: string[] = [];
  const reader = new SearchReader(files, parsed.table, { onProblem: (reason) => problems.push(reason) });
  return { written, files, table: parsed.table as SearchIndexTable, reader, problems };
}

interface Hit {
  id: string;
  excerpt?: string;
  matches?: [number, number][];
}

function answer(result: ToolResult): { results: Hit[]; total: number } {
  expect(result.isError, JSON.stringify(result.content)).toBeUndefined();
  return result.structuredContent as { results: Hit[]; total: number };
}

const ids = (result: ToolResult) => answer(result).results.map((hit) => hit.id);

function page(id: string, text: string): SearchDocument {
  return { id: `resources/${id}.json`, title: id, text, url: '' };
}

const PAGES = [
  page('plural', 'The checksums of every file are verified after the download.'),
  page('singular', 'The checksum of every file is verified after the download.'),
  page('compress', 'bzip2 compresses files; compression trades time for size.'),
  page('disk', 'du reports the disk usage of each directory.'),
  page('unrelated', 'A quiet afternoon by the river, nothing about files at all.'),
];

describe('stemming (Porter, search.language "en")', () => {
  it('finds every form of a word, the form typed first', async () => {
    const { reader } = readerOver(PAGES);
    expect(ids(await reader.search({ query: 'checksum' }))).toEqual([
      'resources/singular.json',
      'resources/plural.json',
    ]);
    expect(ids(await reader.search({ query: 'checksums' }))).toEqual([
      'resources/plural.json',
      'resources/singular.json',
    ]);
    expect(ids(await reader.search({ query: 'compressing' }))).toEqual(['resources/compress.json']);
    expect(ids(await reader.search({ query: 'verifying' }))).toHaveLength(2);
  });

  it('matches only words as written with stemming off', async () => {
    const { reader, written } = readerOver(PAGES, { stemming: 'none' });
    expect(written.extension).toMatchObject({ format: 6, stemming: 'none' });
    expect(ids(await reader.search({ query: 'checksum' }))).toEqual(['resources/singular.json']);
    expect(ids(await reader.search({ query: 'compressing' }))).toEqual([]);
  });
});

describe('prefixes (a word ending in *)', () => {
  it('keeps no stem list that is its word’s, and answers as if it did', async () => {
    const { files, table, reader } = readerOver(PAGES);
    const holds = async (key: string) =>
      (await new PackReader(files).locate(table.terms, KEY_KIND.term, utf8Bytes(key), key)).status === 'ok';
    // "file" and "files" share a stem: its list is kept. "the" and "bzip2" have one form: only the word's.
    expect(await holds(`file${STEM_KEY_SUFFIX}`)).toBe(true);
    for (const word of ['the', 'bzip2', 'river']) {
      expect(await holds(word), word).toBe(true);
      expect(await holds(`${word}${STEM_KEY_SUFFIX}`), word).toBe(false);
    }
    // A form no page holds finds the one form they do, through its word's list.
    expect(ids(await reader.search({ query: 'rivers' }))).toEqual(['resources/unrelated.json']);
    expect(answer(await reader.search({ query: 'the river' })).total).toBe(4);
    expect(answer(await reader.search({ query: 'the' })).total).toBe(4);
    // The same ranking as the list kept twice: "the" scores its word and (as its stem) again.
    const stemmed = readerOver(PAGES, { stemming: 'none' });
    expect(ids(await reader.search({ query: 'the quiet' }))[0]).toBe(
      ids(await stemmed.reader.search({ query: 'the quiet' }))[0],
    );
  });

  it('finds the words a prefix starts, and a one-letter prefix reads a bounded number of records', async () => {
    const { reader, files } = readerOver(PAGES);
    expect(ids(await reader.search({ query: 'compr*' }))).toEqual(['resources/compress.json']);
    expect(ids(await reader.search({ query: 'checks*' }))).toHaveLength(2);
    // 400 words starting with "a" across many small term packs: at most MAX_PREFIX_TERMS are read.
    const next = random(5);
    const many = Array.from({ length: 400 }, (_, position) =>
      page(`a-${position}`, `a${position.toString(36)}x${Math.floor(next() * 1e6).toString(36)} filler words`),
    );
    const big = readerOver(many, { targetPackBytes: 2048, targetIndexBytes: 512, targetTermIndexBytes: 512 });
    const before = big.files.asked.length;
    const start = process.cpuUsage();
    const found = answer(await big.reader.search({ query: 'a*' }));
    expect(cpuMsSince(start)).toBeLessThan(2000);
    expect(found.results.length).toBe(10);
    // The indexes walked, a record per word, and the first bytes of one: "a" itself (every title,
    // "a-<n>", holds it) is at FTS5's idf floor, whose count is read before its postings.
    const termReads = big.files.asked.slice(before).filter((path) => path.includes('/terms/'));
    expect(termReads.length).toBeLessThanOrEqual(MAX_PREFIX_INDEXES + MAX_PREFIX_TERMS + 1);
    expect(files.asked.length).toBeGreaterThan(0);
  });
});

describe('excerpts and total', () => {
  it('shows the passage around the matches, with their positions, and counts every matching document', async () => {
    const long = `${'Filler words about nothing in particular. '.repeat(40)}Here the river meets the sea at dawn. ${'More filler follows here. '.repeat(40)}`;
    const { reader } = readerOver([...PAGES, page('long', long)]);
    const found = answer(await reader.search({ query: 'river sea' }));
    expect(found.total).toBe(2);
    const hit = found.results.find((candidate) => candidate.id === 'resources/long.json')!;
    expect(hit.excerpt).toContain('the river meets the sea at dawn');
    expect(hit.excerpt!.split(' ').length).toBeLessThan(40);
    expect(hit.matches!.map(([start, end]) => hit.excerpt!.slice(start, end))).toEqual(['river', 'sea']);
    // Stemmed matches are shown too; total counts every document holding any word.
    const files = answer(await reader.search({ query: 'file' }));
    expect(files.total).toBe(4);
    for (const result of files.results) {
      const words = result.matches!.map(([start, end]) => result.excerpt!.slice(start, end));
      expect(words.length, result.id).toBeGreaterThan(0);
      for (const word of words) expect(word).toMatch(/^files?$/);
    }
  });

  it('picks the passage holding the most query words, not the first match, and marks only whole words', async () => {
    // "river" alone early, then "river" and "sea" together far on: the later passage is shown,
    // starting a few words before its first match; "riverbank" and "seas-side" are other words.
    const text = `The river starts here. ${'Plain words, 12 numbers-and-hyphens; nothing more. '.repeat(30)}At last riverbank folk saw the river reach the sea and seas-side towns.`;
    const { reader } = readerOver([...PAGES, page('passages', text)]);
    const found = answer(await reader.search({ query: 'river sea' }));
    const hit = found.results.find((candidate) => candidate.id === 'resources/passages.json')!;
    expect(hit.excerpt).toMatch(/^… .*At last riverbank folk saw the river reach the sea and seas-side towns\.$/);
    expect(hit.matches!.map(([start, end]) => hit.excerpt!.slice(start, end))).toEqual(['river', 'sea', 'seas']);
  });

  it('marks every kind of match in an excerpt whatever its case: the word, its stem, a prefix', async () => {
    // Words of the text are looked up only when a query term starts as they do: each kind must still be found.
    const text =
      'Quiet RIVERS flow. The River bends; rivering waters Meet boats and Otters at Dawn near the BOATHOUSE.';
    const { reader } = readerOver([...PAGES, page('mixed', text)]);
    const found = answer(await reader.search({ query: 'river boat* dawn' }));
    const hit = found.results.find((candidate) => candidate.id === 'resources/mixed.json')!;
    expect(hit.matches!.map(([start, end]) => hit.excerpt!.slice(start, end))).toEqual([
      'RIVERS',
      'River',
      'rivering',
      'boats',
      'Dawn',
      'BOATHOUSE',
    ]);
  });

  it('cuts excerpts of CJK, Arabic and emoji text on whole characters', async () => {
    const documents = [
      page('ja', '東京は日本の首都です。大阪も大きな都市です。'),
      page('ar', 'القاهرة هي عاصمة مصر وأكبر مدنها'),
      page('emoji', 'Launch day 🚀🚀 rockets and 👩‍🚀 astronauts'),
    ];
    const { reader } = readerOver(documents);
    for (const [query, word] of [
      ['東京', '東'],
      ['عاصمة', 'عاصمة'],
      ['rockets', 'rockets'],
    ] as const) {
      const [hit] = answer(await reader.search({ query })).results;
      expect(hit, query).toBeDefined();
      expect(hit!.excerpt!.slice(hit!.matches![0]![0], hit!.matches![0]![1]), query).toBe(word);
      expect(hit!.excerpt).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });
});

describe('bad queries', () => {
  it('answer in bounded time: 4,096 characters, 1,000 words, one letter, punctuation, mixed scripts', async () => {
    const next = random(9);
    const documents = Array.from({ length: 300 }, (_, position) =>
      page(`d${position}`, Array.from({ length: 40 }, () => `w${Math.floor(next() ** 2 * 500)}`).join(' ')),
    );
    const { reader } = readerOver(documents);
    const queries = [
      'w1 '.repeat(1365),
      Array.from({ length: 1000 }, (_, position) => `w${position}`)
        .join(' ')
        .slice(0, 4096),
      'w',
      'w*',
      '*',
      '?!… -- *** ...',
      '東京大阪名古屋札幌 القاهرة 🚀👩‍🚀 w3*',
    ];
    for (const query of queries) {
      const start = process.cpuUsage();
      const result = await reader.search({ query });
      expect(result.isError, query.slice(0, 20)).toBeUndefined();
      expect(cpuMsSince(start), query.slice(0, 20)).toBeLessThan(3000);
    }
    expect((await reader.search({ query: 'w '.repeat(2049) })).isError).toBe(true);
  });
});

describe('compressed document text', () => {
  it('stores the text smaller than it is, and fetch answers it whole', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    const { written, reader } = readerOver([page('fox', text)]);
    const documentBytes = written.files
      .filter((file) => file.path.includes('/documents/'))
      .reduce((sum, file) => sum + file.bytes.length, 0);
    expect(documentBytes).toBeLessThan(text.length / 4);
    expect(answer(await reader.fetch({ id: 'resources/fox.json' }))).toMatchObject({ text });
  });

  it('refuses only the document whose record does not inflate, or inflates to another length', async () => {
    // Longer than its excerpt source, so it keeps a document record of its own.
    const long = `${PAGES[0]!.text} ${'Nothing more to see here. '.repeat(200)}`;
    const pages = [page('plural', long), ...PAGES.slice(1)];
    for (const damage of ['garbage', 'length'] as const) {
      const { files, table, reader, problems } = readerOver(pages, { targetPackBytes: 1 << 20 });
      const victim = 'resources/plural.json';
      const spoil = (body: Uint8Array) => {
        if (damage === 'garbage') body.fill(0xff, 4);
        else body[3] = body[3]! + 1;
      };
      await damageRecordBody(files, table.documents, KEY_KIND.call, callKeyOf(victim), victim, spoil);

      const fetched = await reader.fetch({ id: victim });
      expect(fetched.isError, damage).toBe(true);
      expect(JSON.stringify(fetched.content), damage).toMatch(
        damage === 'garbage' ? /does not decompress/ : /inflates .* claims|inflates past/,
      );
      // The other documents of the same pack still answer; search still ranks the victim, whose
      // excerpt comes from its own excerpt source.
      expect(answer(await reader.fetch({ id: 'resources/singular.json' }))).toMatchObject({ title: 'singular' });
      const excerpts = async () =>
        answer(await reader.search({ query: 'checksum' })).results.map((hit) => [hit.id, hit.excerpt !== undefined]);
      expect(await excerpts()).toEqual([
        ['resources/singular.json', true],
        [victim, true],
      ]);
      // Its excerpt source damaged too (document 2 in id order): that result alone has no excerpt.
      await damageExcerptSource(files, table, 2, spoil);
      expect(await excerpts()).toEqual([
        ['resources/singular.json', true],
        [victim, false],
      ]);
      expect(problems.some((problem) => problem.includes(`excerpt source of ${victim}`))).toBe(true);
    }
  });

  it('stores a text that fits in its excerpt source once: the source is its fetch record', async () => {
    const { written, files, table, reader, problems } = readerOver(PAGES);
    // No document pack at all: every text here is short, and lies in its title pack alone.
    expect(written.files.filter((file) => file.path.includes('/documents/') && file.path.endsWith('.pack'))).toEqual(
      [],
    );
    for (const document of PAGES) {
      files.asked.length = 0;
      const fetched = await reader.fetch({ id: document.id });
      expect(JSON.parse((fetched.content[0] as unknown as { text: string }).text)).toEqual(document);
      expect(fetched.structuredContent).toEqual(document);
      // One index and one record, the title pack's.
      expect(files.asked.filter((path) => path.endsWith('.pack'))).toEqual([expect.stringContaining('/titles/')]);
    }
    expect(await verifySearchIndex(table, files, [...files.files.keys()])).toEqual([]);
    // Damaged, it costs that document its fetch and its excerpt, nothing else, and check names it.
    const victim = 'resources/plural.json';
    await damageExcerptSource(files, table, 2, (body) => body.fill(0xff, 8));
    const fetched = await reader.fetch({ id: victim });
    expect(fetched.isError).toBe(true);
    expect(JSON.stringify(fetched.content)).toMatch(/damaged.*document source of resources\/plural.json/);
    expect(answer(await reader.fetch({ id: 'resources/singular.json' }))).toMatchObject({ title: 'singular' });
    const hits = answer(await reader.search({ query: 'checksum' })).results;
    expect(hits.map((hit) => [hit.id, hit.excerpt !== undefined])).toEqual([
      ['resources/singular.json', true],
      [victim, false],
    ]);
    expect(problems.some((problem) => problem.includes(`excerpt source of ${victim}`))).toBe(true);
    const found = (await verifySearchIndex(table, files, [...files.files.keys()])).join('\n');
    expect(found).toMatch(
      /\("resources\/plural.json"\): the document source of resources\/plural.json .* does not inflate/,
    );
  });
});
