// The search index written (test/helpers/in-memory-search-index.ts) and read back through the pack
// reader over byte buffers, as every host will: search ranks as a plain BM25 over the same tokens,
// fetch returns a document by its id, the bytes are deterministic and a one-document edit stays
// local, and every bad query, forged id or damaged part answers isError or an empty list, reading
// nothing outside the index.
import { describe, expect, it } from 'vitest';
import { KEY_KIND, parseRecord } from '../../src/core/packs/pack-format.js';
import { findIndexRow } from '../../src/core/packs/pack-table.js';
import { encodeRecord } from '../../src/core/packs/pack-encoding.js';
import {
  type ByteRange,
  type BytesOutcome,
  type PackFileSource,
  PackReader,
} from '../../src/core/packs/pack-reader.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import {
  parseSearchIndexManifest,
  parseSearchIndexTable,
  parseTitleBlock,
  SEARCH_FOLDER,
  type SearchIndexTable,
} from '../../src/core/search/search-index-format.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { parseDocumentBody } from '../../src/core/search/search-results.js';
import { verifySearchIndex } from '../../src/core/search/verify-search-index.js';
import { tokenize } from '../../src/core/search/tokenize.js';
import type { SearchDocument } from '../../src/tree-writer/search-index-output.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { pick, random } from '../helpers/random.js';

const HTML_FALLBACK = new TextEncoder().encode('<!DOCTYPE html><html><body>Not found</body></html>');

/** A host's files in memory; logs every path asked. */
class MemoryFiles implements PackFileSource {
  readonly asked: string[] = [];
  bytesRead = 0;
  ignoresRanges = false;
  fallbackPage = false;

  constructor(readonly files: Map<string, Uint8Array>) {}

  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath) ?? (this.fallbackPage ? HTML_FALLBACK : undefined);
    if (!bytes) return { status: 'missing' };
    if (!range || this.ignoresRanges) {
      this.bytesRead += bytes.length;
      return { status: 'ok', bytes, whole: true };
    }
    this.bytesRead += Math.min(range.length, bytes.length - range.offset);
    return { status: 'ok', bytes: bytes.subarray(range.offset, range.offset + range.length), whole: false };
  }
}

/**
 * Replaces the record `entry` locates with `forge` of its body, under a valid checksum and at the
 * same length (so the pack's index still holds): damage only the reader's own checks can find.
 */
function forgeRecord(
  files: MemoryFiles,
  entry: { pack: { path: string }; recordOffset: number; recordLength: number },
  forge: (body: Uint8Array) => Uint8Array,
): void {
  const pack = files.files.get(entry.pack.path)!.slice();
  const record = parseRecord(pack.subarray(entry.recordOffset, entry.recordOffset + entry.recordLength), 'the record');
  if ('status' in record) throw new Error(record.reason);
  const forged = encodeRecord({ names: record.names, body: forge(record.body.slice()) });
  expect(forged.length).toBe(entry.recordLength);
  pack.set(forged, entry.recordOffset);
  files.files.set(entry.pack.path, pack);
}

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'zeta',
  'eta',
  'theta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'nu',
  'xi',
  'omicron',
  'pi',
  'rho',
  'sigma',
  'tau',
  'upsilon',
  'phi',
  'chi',
  'psi',
  'omega',
  'café',
  'Straße',
  '東京',
];

/** Each corpus made so far, by count and seed: tests asking for the same one share its writing below. */
const corpora = new Map<string, SearchDocument[]>();

/** `count` documents of Zipf-ish random words, from `seed` (one array per count and seed: never change it). */
function corpus(count: number, seed = 7): SearchDocument[] {
  const key = `${count}/${seed}`;
  let documents = corpora.get(key);
  if (!documents) {
    documents = makeCorpus(count, seed);
    corpora.set(key, documents);
  }
  return documents;
}

function makeCorpus(count: number, seed: number): SearchDocument[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, position) => {
    const length = 5 + Math.floor(next() * 60);
    const words = Array.from({ length }, () => WORDS[Math.floor(WORDS.length * next() ** 2)]!);
    return {
      id: `tools/wiki/doc-${position}.json`,
      title: `Document ${position}`,
      text: words.join(' '),
      url: `https://example.org/doc-${position}`,
      ...(position % 3 === 0 ? { metadata: { position } } : {}),
    };
  });
}

// No stemming: the reference ranking below is FTS5's over the words as they are.
const SMALL_PARTS = {
  targetPackBytes: 4096,
  targetIndexBytes: 1024,
  targetTermIndexBytes: 1024,
  stemming: 'none',
} as const;

/** Packs and indexes of 8 and 2 KiB, stemmed: for the 2,000-document corpus (many packs, few indexes). */
const LARGE_PARTS = { targetPackBytes: 8192, targetIndexBytes: 2048, targetTermIndexBytes: 2048 } as const;

type WriteOptions = Parameters<typeof writeSearchIndex>[1];

/**
 * The index written from a corpus, by the corpus and the options object: the tests that read one
 * corpus in the same parts share its writing. Each reader still gets a map of its own, where a test
 * swaps in the parts it damages; nothing changes the written bytes.
 */
const writtenByCorpus = new WeakMap<SearchDocument[], Map<WriteOptions, ReturnType<typeof writeSearchIndex>>>();

function writeOnce(documents: SearchDocument[], options: WriteOptions): ReturnType<typeof writeSearchIndex> {
  let byOptions = writtenByCorpus.get(documents);
  if (!byOptions) {
    byOptions = new Map();
    writtenByCorpus.set(documents, byOptions);
  }
  let written = byOptions.get(options);
  if (!written) {
    written = writeSearchIndex(documents, options);
    byOptions.set(options, written);
  }
  return written;
}

function readerOver(documents: SearchDocument[], options: WriteOptions = SMALL_PARTS) {
  const written = writeOnce(documents, options);
  const files = new MemoryFiles(new Map(written.files.map((file) => [file.path, file.bytes])));
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
  if ('problem' in parsed) throw new Error(parsed.problem);
  const problems: string[] = [];
  const source = 'table' in parsed ? parsed.table : parsed;
  const reader = new SearchReader(files, source, { onProblem: (reason) => problems.push(reason) });
  // The rows as the reader sees them (a table file's, read here).
  const table: SearchIndexTable =
    'table' in parsed
      ? parsed.table
      : {
          ...parsed.counts,
          ...JSON.parse(new TextDecoder().decode(files.files.get(parsed.tableFile))),
          ...(parsed.termPacks === undefined ? {} : { termPacks: parsed.termPacks }),
        };
  return { written, files, table, source, reader, problems };
}

/** A corpus sorted by id and tokenized, for the reference: once per corpus, however many queries. */
const referenceCorpora = new WeakMap<SearchDocument[], { sorted: SearchDocument[]; tokenized: string[][] }>();

function tokenizeForReference(documents: SearchDocument[]): { sorted: SearchDocument[]; tokenized: string[][] } {
  let corpus = referenceCorpora.get(documents);
  if (!corpus) {
    const sorted = [...documents].sort((a, b) => (Buffer.from(a.id) < Buffer.from(b.id) ? -1 : 1));
    corpus = { sorted, tokenized: sorted.map((document) => tokenize(`${document.title}\n${document.text}`)) };
    referenceCorpora.set(documents, corpus);
  }
  return corpus;
}

/** BM25 straight from the documents (FTS5's formula, OR of the query's distinct terms): the reference. */
function referenceRanking(documents: SearchDocument[], query: string, limit = 10): string[] {
  const { sorted, tokenized } = tokenizeForReference(documents);
  // The average length as the writers weigh with it: on a log scale of 32 steps per doubling.
  const exactAverage = tokenized.reduce((sum, terms) => sum + terms.length, 0) / sorted.length;
  const average = 2 ** (Math.round(Math.log2(exactAverage) * 32) / 32);
  let terms = [...new Set(tokenize(query))];
  const documentFrequency = new Map(
    terms.map((term) => [term, tokenized.filter((tokens) => tokens.includes(term)).length]),
  );
  // Terms in half the documents or more (idf at FTS5's 1e-6 floor) are left out when a term above
  // the floor finds a page of results on its own: they would only move scores by ~1e-6.
  const floored = (term: string) => documentFrequency.get(term)! >= sorted.length / 2;
  if (terms.some((term) => !floored(term) && documentFrequency.get(term)! >= limit)) {
    terms = terms.filter((term) => !floored(term));
  }
  const scored = sorted.map((document, position) => {
    const tokens = tokenized[position]!;
    let score = 0;
    let matched = false;
    for (const term of terms) {
      const tf = tokens.filter((token) => token === term).length;
      if (tf === 0) continue;
      matched = true;
      const df = documentFrequency.get(term)!;
      const idf = Math.max(Math.log((sorted.length - df + 0.5) / (df + 0.5)), 0) || 1e-6;
      // The weight as the index stores it (postings.ts): in whole steps of (k1 + 1)/255, at least one.
      const weight = (tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * tokens.length) / average));
      const step = (1.2 + 1) / 255;
      score += idf * (Math.min(255, Math.max(1, Math.round(weight / step))) * step);
    }
    return { id: document.id, score, position, matched };
  });
  return scored
    .filter((entry) => entry.matched)
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .slice(0, limit)
    .map((entry) => entry.id);
}

function structured(result: { structuredContent?: Record<string, unknown> }): unknown {
  return result.structuredContent;
}

describe('search index, written and read back', () => {
  it('ranks as BM25 over the same tokens, across many packs and indexes', async () => {
    const documents = corpus(600);
    const { written, reader, files } = readerOver(documents);
    expect(written.files.filter((file) => file.path.endsWith('.pack')).length).toBeGreaterThan(20);
    expect('terms' in written.extension && written.extension.terms.length).toBeGreaterThan(1);
    const next = random(99);
    for (let round = 0; round < 40; round += 1) {
      const query = `${pick(next, WORDS)} ${pick(next, WORDS)}`;
      const result = await reader.search({ query });
      const ids = (structured(result) as { results: { id: string }[] }).results.map((hit) => hit.id);
      expect(ids, query).toEqual(referenceRanking(documents, query));
    }
    // Only the index's own files were ever read.
    expect(files.asked.every((path) => path.startsWith(SEARCH_FOLDER))).toBe(true);
  });

  it('answers in the shapes OpenAI documents: structuredContent and one text item of the same JSON', async () => {
    const documents = corpus(50);
    const { reader } = readerOver(documents);
    const found = await reader.search({ query: 'CAFE' });
    const results = (found.structuredContent as { results: { id: string; title: string; url: string }[] }).results;
    expect(results.length).toBeGreaterThan(0);
    expect(Object.keys(results[0]!).sort()).toEqual(['excerpt', 'id', 'matches', 'title', 'url']);
    // The excerpt is the document's own words, the match positions on the word asked for.
    const hit = results[0] as unknown as { excerpt: string; matches: [number, number][] };
    expect(hit.matches.length).toBeGreaterThan(0);
    for (const [start, end] of hit.matches) expect(hit.excerpt.slice(start, end)).toBe('café');
    expect((found.structuredContent as { total: number }).total).toBeGreaterThanOrEqual(results.length);
    expect(found.content).toEqual([{ type: 'text', text: JSON.stringify(found.structuredContent) }]);
    const fetched = await reader.fetch({ id: results[0]!.id });
    const original = documents.find((document) => document.id === results[0]!.id)!;
    expect(fetched.structuredContent).toEqual(original);
    expect(fetched.content).toEqual([{ type: 'text', text: JSON.stringify(fetched.structuredContent) }]);
    expect(fetched.isError).toBeUndefined();
  });

  it('fetches every document with one index read and one record read once warm', async () => {
    const documents = corpus(300);
    const { reader, files } = readerOver(documents);
    for (const document of documents) expect(structured(await reader.fetch({ id: document.id }))).toEqual(document);
    files.asked.length = 0;
    await reader.fetch({ id: documents[123]!.id });
    expect(files.asked.filter((path) => path.endsWith('.pack'))).toHaveLength(1);
  });

  it('reads whole packs where the host ignores ranges, and answers the same', async () => {
    const documents = corpus(200);
    const { reader, files } = readerOver(documents);
    files.ignoresRanges = true;
    expect(structured(await reader.fetch({ id: documents[5]!.id }))).toEqual(documents[5]);
    const ids = (structured(await reader.search({ query: 'omega psi' })) as { results: { id: string }[] }).results;
    expect(ids.map((hit) => hit.id)).toEqual(referenceRanking(documents, 'omega psi'));
  });

  it('writes the same bytes whatever order the documents came in', () => {
    const documents = corpus(300);
    const shuffled = [...documents].reverse();
    const first = writeSearchIndex(documents, { targetPackBytes: 4096, targetIndexBytes: 1024 });
    const second = writeSearchIndex(shuffled, { targetPackBytes: 4096, targetIndexBytes: 1024 });
    expect(second.extension).toEqual(first.extension);
    expect(second.files.map((file) => [file.path, Buffer.from(file.bytes).toString('base64')])).toEqual(
      first.files.map((file) => [file.path, Buffer.from(file.bytes).toString('base64')]),
    );
  });

  it('renames only some packs when one document changes', () => {
    const documents = corpus(600);
    const before = new Set(writeOnce(documents, LARGE_PARTS).files.map((file) => file.path));
    const edited = documents.map((document, position) =>
      position === 300 ? { ...document, text: `${document.text} zyzzyva` } : document,
    );
    const after = writeSearchIndex(edited, LARGE_PARTS).files.map((file) => file.path);
    const packs = after.filter((path) => path.endsWith('.pack'));
    const renamed = packs.filter((path) => !before.has(path));
    // The term packs holding the new term and the document's words and stems (twice the keys a
    // document touches: a third of this small vocabulary's packs), its title block, its document pack.
    expect(renamed.length).toBeLessThan(packs.length / 3);
  });

  it('answers an empty corpus with no results and unknown ids', async () => {
    const { reader, written } = readerOver([]);
    expect(written.files).toEqual([]);
    expect(structured(await reader.search({ query: 'anything' }))).toEqual({ results: [], total: 0 });
    expect((await reader.fetch({ id: 'tools/wiki/doc-1.json' })).isError).toBe(true);
  });
});

describe('search bad input', () => {
  const documents = corpus(300);

  it('answers isError naming the term when a postings block lies about itself under a valid checksum', async () => {
    // "zebra" in 200 of 600 documents: two blocks, the first decoded by the first query.
    const zebras = Array.from({ length: 600 }, (_, position) => ({
      id: `resources/doc-${String(position).padStart(3, '0')}.md`,
      title: `Doc ${position}`,
      text: position % 3 === 0 ? `zebra stripes ${position}` : `plain words ${position}`,
      url: '',
    }));
    const { files, table, reader, problems } = readerOver(zebras);
    const entry = await new PackReader(files).locate(table.terms, KEY_KIND.term, utf8Bytes('zebra'), 'zebra');
    if (entry.status !== 'ok') throw new Error(entry.reason);
    forgeRecord(files, entry, (body) => {
      // df (2 bytes for 200), then block 0's table entry: last-document and length varints, max impact.
      let at = 2;
      for (let varints = 0; varints < 2; varints += 1) while (body[at++]! >= 0x80);
      body[at] = 1;
      return body;
    });
    const searched = await reader.search({ query: 'zebra' });
    expect(searched.isError).toBe(true);
    expect(searched.content[0]).toMatchObject({
      text: expect.stringMatching(
        /search index is damaged.*postings of "zebra": a posting weighs more than its block says/,
      ),
    });
    expect(problems.some((problem) => problem.includes('"zebra"'))).toBe(true);
    // The other terms still answer.
    expect((await reader.search({ query: 'plain' })).isError).toBeUndefined();
  });

  it('answers bad queries with isError or an empty list', async () => {
    const { reader } = readerOver(documents);
    const search = (query: unknown) => reader.search({ query });
    expect((await search('')).isError).toBe(true);
    expect((await search('   \n')).isError).toBe(true);
    expect((await search(42)).isError).toBe(true);
    expect((await reader.search(undefined)).isError).toBe(true);
    const long = await search('alpha '.repeat(2000));
    expect(long.isError).toBe(true);
    expect(long.content[0]).toMatchObject({ text: expect.stringContaining('at most 4096') });
    expect(structured(await search('?!… -- ... 🙂'))).toEqual({ results: [], total: 0 });
    // A script no document uses (Egyptian hieroglyphs, Ge'ez), and a lone surrogate.
    expect(structured(await search('𓀀𓀁 ሰላም'))).toEqual({ results: [], total: 0 });
    expect(structured(await search('\uD800 alpha'))).toMatchObject({ results: expect.any(Array) });
    // 200 distinct terms: only the first 32 are looked up.
    const many = Array.from({ length: 200 }, (_, position) => `w${position}`).join(' ');
    expect(structured(await search(many))).toEqual({ results: [], total: 0 });
  });

  it('answers forged fetch ids as not found, reading nothing outside the index', async () => {
    const { reader, files } = readerOver(documents);
    const forged = [
      '../mcp.json',
      '../../../etc/passwd',
      'packs/search.index/terms/x.pack',
      'tools/other/doc-1.json',
      'tools/wiki/doc-1.json/../doc-2.json',
      'x'.repeat(1_000_000),
      '\uD800',
      '',
    ];
    for (const id of forged) {
      const result = await reader.fetch({ id });
      expect(result.isError, id.slice(0, 40)).toBe(true);
    }
    expect((await reader.fetch({ id: 7 })).isError).toBe(true);
    expect((await reader.fetch(null)).isError).toBe(true);
    expect(files.asked.every((path) => path.startsWith(SEARCH_FOLDER))).toBe(true);
  });

  it('answers damaged, truncated or missing parts with isError or fewer results, never a throw', async () => {
    const queries = ['alpha beta', 'omega', 'café straße'];
    for (const damage of ['truncate-index', 'truncate-pack', 'flip-byte', 'missing', 'html-fallback'] as const) {
      for (const kind of ['terms', 'titles', 'documents'] as const) {
        const { reader, files, written } = readerOver(documents);
        const victims = written.files.filter((file) => file.path.startsWith(`${SEARCH_FOLDER}${kind}/`));
        for (const victim of victims) {
          const bytes = victim.bytes;
          if (damage === 'truncate-index' && victim.path.endsWith('.idx'))
            files.files.set(victim.path, bytes.subarray(0, bytes.length - 3));
          // Cut past the header, inside the first record: every record of the pack is lost.
          if (damage === 'truncate-pack' && victim.path.endsWith('.pack'))
            files.files.set(victim.path, bytes.subarray(0, 24));
          if (damage === 'flip-byte' && victim.path.endsWith('.pack')) {
            const copy = Uint8Array.from(bytes);
            // Every 48th byte past the header: most records, not all.
            for (let at = 40; at < copy.length; at += 48) copy[at] = copy[at]! ^ 0xff;
            files.files.set(victim.path, copy);
          }
          if (damage === 'missing' || damage === 'html-fallback') files.files.delete(victim.path);
        }
        files.fallbackPage = damage === 'html-fallback';
        const answers = await Promise.all(queries.map((query) => reader.search({ query })));
        for (const answer of answers) {
          if (answer.isError)
            expect(answer.content[0]).toMatchObject({ text: expect.stringMatching(/build and deploy the tree again/) });
          else expect(answer.structuredContent).toMatchObject({ results: expect.any(Array) });
        }
        const failed = answers.filter((answer) => answer.isError).length;
        // Search never reads documents; a flipped byte damages one term's record, not every term's.
        if (kind === 'documents') expect(failed, `${damage} ${kind}`).toBe(0);
        else if (damage === 'flip-byte' && kind === 'terms') expect(failed, `${damage} ${kind}`).toBeGreaterThan(0);
        else expect(failed, `${damage} ${kind}`).toBe(queries.length);
        const fetched = await reader.fetch({ id: documents[10]!.id });
        // Its text fits in its excerpt source, so its fetch record is that source, in a title pack
        // that a documents index points into (and there are no document packs).
        const lostWith = {
          documents: ['truncate-index', 'missing', 'html-fallback'],
          titles: ['truncate-pack', 'missing', 'html-fallback'],
          terms: [],
        };
        const lost = (lostWith[kind] as string[]).includes(damage);
        if (damage !== 'flip-byte' || kind !== 'titles')
          expect(fetched.isError, `${damage} ${kind}`).toBe(lost ? true : undefined);
        expect(files.asked.every((path) => path.startsWith(SEARCH_FOLDER))).toBe(true);
      }
    }
  });

  it('refuses a search table naming files outside the index', () => {
    const { written } = readerOver(corpus(20));
    const hostile = { ...written.extension, terms: [{ first: '61', index: 'packs/wiki/0000.idx' }] };
    expect(parseSearchIndexTable(hostile)).toMatchObject({
      problem: expect.stringContaining('not below packs/search.index/'),
    });
    expect(parseSearchIndexTable({ ...written.extension, terms: [{ first: '61', index: '../x.idx' }] })).toHaveProperty(
      'problem',
    );
    expect(parseSearchIndexTable({ ...written.extension, format: 7 })).toMatchObject({
      problem: expect.stringContaining('update staticmcp'),
    });
    expect(parseSearchIndexTable({ ...written.extension, documentCount: -1 })).toHaveProperty('problem');
    expect(parseSearchIndexTable('search')).toHaveProperty('problem');
  });

  it('keeps its caches within their bound over many queries', async () => {
    const { files, table } = readerOver(corpus(2000), LARGE_PARTS);
    const bounded = new SearchReader(files, table, {
      maxCachedBytes: 64 * 1024,
      indexCache: { maxIndexes: 4, maxIndexBytes: 16 * 1024 },
    });
    const next = random(5);
    for (let round = 0; round < 100; round += 1)
      await bounded.search({ query: `${pick(next, WORDS)} ${pick(next, WORDS)}` });
    // The queries read many times what the caches may hold: the bounds were pressed, not just met.
    expect(files.bytesRead).toBeGreaterThan(8 * (64 + 16) * 1024);
    const size = bounded.cacheSize();
    expect(size.indexes).toBeLessThanOrEqual(4);
    expect(size.indexBytes).toBeLessThanOrEqual(16 * 1024);
    expect(size.postingBytes + size.blockBytes).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('a search table in its own file', () => {
  const TABLE_FILE = { ...SMALL_PARTS, inlineTableBytes: 0 };

  it('moves the rows to a content-named file past the threshold, and answers the same', async () => {
    const documents = corpus(300);
    const inline = readerOver(documents);
    const filed = readerOver(documents, TABLE_FILE);
    expect(inline.written.extension).toHaveProperty('terms');
    expect(filed.written.extension).toEqual({
      format: 6,
      stemming: 'none',
      documentCount: 300,
      tokenCount: expect.any(Number),
      blockSize: 16,
      table: expect.stringMatching(/^packs\/search\.index\/[0-9a-f]{16}\.table\.json$/),
      termPacks: expect.stringMatching(/^[0-9a-f]+ [0-9a-f]{16} \d+\n/),
      titlePackFile: expect.stringMatching(/^packs\/search\.index\/[0-9a-f]{16}\.title-packs$/),
    });
    for (const query of ['alpha omega', 'café', 'psi chi']) {
      expect(await filed.reader.search({ query }), query).toEqual(await inline.reader.search({ query }));
    }
    // Read once, then kept with the reader.
    const tableReads = () => filed.files.asked.filter((path) => path.endsWith('.table.json')).length;
    expect(tableReads()).toBe(1);
    expect(structured(await filed.reader.fetch({ id: documents[7]!.id }))).toEqual(documents[7]);
    expect(tableReads()).toBe(1);
  });

  it('answers isError, saying the index is damaged, when the table file is missing, truncated or not JSON', async () => {
    for (const damage of ['missing', 'truncated', 'html-fallback', 'wrong-rows'] as const) {
      const { reader, files, written, problems } = readerOver(corpus(100), TABLE_FILE);
      const path = (written.extension as { table: string }).table;
      const bytes = files.files.get(path)!;
      if (damage === 'missing') files.files.delete(path);
      if (damage === 'truncated') files.files.set(path, bytes.subarray(0, bytes.length >> 1));
      if (damage === 'html-fallback') {
        files.files.delete(path);
        files.fallbackPage = true;
      }
      if (damage === 'wrong-rows')
        files.files.set(
          path,
          new TextEncoder().encode(JSON.stringify({ terms: [{ first: '61', index: '../x.idx' }] })),
        );
      const searched = await reader.search({ query: 'alpha beta' });
      expect(searched.isError, damage).toBe(true);
      expect(searched.content[0], damage).toMatchObject({
        text: expect.stringMatching(/build and deploy the tree again/),
      });
      const fetched = await reader.fetch({ id: 'tools/wiki/doc-1.json' });
      expect(fetched.isError, damage).toBe(true);
      expect(problems.length, damage).toBeGreaterThan(0);
      expect(files.asked.every((asked) => asked.startsWith(SEARCH_FOLDER))).toBe(true);
    }
  });

  it('checks an index path of a row when a read needs it: only what the bad row holds is refused', async () => {
    const { written, files, table, reader, problems, source } = readerOver(corpus(300), TABLE_FILE);
    const path = (written.extension as { table: string }).table;
    const rowOf = (word: string) => findIndexRow(table.terms, utf8Bytes(word))!;
    // Below the index folder and ending in .idx, so the table parses; its ".git" segment is refused on read.
    const bad = 'packs/search.index/terms/.git/0000000000000000.idx';
    const rows = JSON.parse(new TextDecoder().decode(files.files.get(path)!));
    rows.terms = rows.terms.map((row: { first: string; index: string }) =>
      row.index === rowOf('alpha').index ? { ...row, index: bad } : row,
    );
    files.files.set(path, new TextEncoder().encode(JSON.stringify(rows)));
    const refused = await reader.search({ query: 'alpha' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]).toMatchObject({
      text: expect.stringMatching(/build and deploy the tree again.*"\.git" segment/),
    });
    expect(problems.join('\n')).toContain(bad);
    // The documents' rows are sound: fetch still answers.
    const fetched = await reader.fetch({ id: 'tools/wiki/doc-1.json' });
    expect(fetched.isError).toBeUndefined();
    expect(files.asked).not.toContain(bad);
    // check still walks every row now, and names it.
    expect((await verifySearchIndex(source, files, [...files.files.keys()])).join('\n')).toContain(bad);
  });

  it('refuses a manifest whose table names a file outside the index', () => {
    expect(
      parseSearchIndexManifest({ format: 3, documentCount: 1, tokenCount: 1, blockSize: 32, table: '../mcp.json' }),
    ).toMatchObject({
      problem: expect.stringContaining('table.json'),
    });
  });

  it('is verified: present, named by its content, and its rows sound', async () => {
    const { files, source } = readerOver(corpus(100), TABLE_FILE);
    const paths = () => [...files.files.keys()];
    expect(await verifySearchIndex(source, files, paths())).toEqual([]);
    const path = (source as { tableFile: string }).tableFile;
    const bytes = files.files.get(path)!;
    files.files.set(path, new TextEncoder().encode(`${new TextDecoder().decode(bytes)} `));
    expect(await verifySearchIndex(source, files, paths())).toEqual([
      `${path} is not named by its content hash (edited?); build the tree again`,
    ]);
    files.files.delete(path);
    expect((await verifySearchIndex(source, files, paths())).join('\n')).toMatch(/is missing/);
  });
});

describe('terms in half the documents or more', () => {
  /** 2,000 documents: "common" in every one, "rare" in 154, "scarce" in 4. */
  function commonCorpus(): SearchDocument[] {
    return Array.from({ length: 2000 }, (_, position) => ({
      id: `tools/wiki/doc-${position}.json`,
      title: `Document ${position}`,
      text: `common ${position % 13 === 0 ? 'rare' : ''} ${position % 500 === 0 ? 'scarce' : ''} ${'filler '.repeat(position % 7)}`,
      url: '',
    }));
  }

  it('are not read when a rarer term fills a page, and the ranking is the same', async () => {
    const documents = commonCorpus();
    const written = writeSearchIndex(documents, SMALL_PARTS);
    /** A fresh reader's results for `query`, and the bytes it read. */
    const read = async (query: string, ignoresRanges = false) => {
      const files = new MemoryFiles(new Map(written.files.map((file) => [file.path, file.bytes])));
      files.ignoresRanges = ignoresRanges;
      const reader = new SearchReader(files, written.extension as SearchIndexTable);
      const result = await reader.search({ query });
      const ids = (structured(result) as { results: { id: string }[] }).results.map((hit) => hit.id);
      return { ids, bytes: files.bytesRead };
    };
    const skipped = await read('rare common');
    expect(skipped.ids).toEqual(referenceRanking(documents, 'rare common'));
    // "common"'s postings take ≥ 3 bytes per document: only its index and first bytes were read.
    expect(skipped.bytes - (await read('rare')).bytes).toBeLessThan(2000 * 3);
    // Alone, or beside a term that finds fewer than a page, its documents are results: it is read.
    expect((await read('common')).ids).toEqual(referenceRanking(documents, 'common'));
    const beside = await read('scarce common');
    expect(beside.ids).toEqual(referenceRanking(documents, 'scarce common'));
    expect(beside.ids).toHaveLength(10);
    // Where the host reads whole packs, the same answer.
    expect((await read('rare common', true)).ids).toEqual(skipped.ids);
  });
});

describe('title blocks (format 5: each id front-coded against the one before)', () => {
  // Ids sharing long prefixes, and two that share only the first half of a surrogate pair.
  const ids = [
    'resources/guide/install.md',
    'resources/guide/install-linux.md',
    'resources/guide/intro.md',
    'resources/\u{1F600}a.md',
    'resources/\u{1F600}b.md',
    'resources/\u{1F601}.md',
  ];
  const documents = ids.map((id, position) => ({
    id,
    title: `Page ${position}`,
    text: `shared words ${position}`,
    url: '',
  }));

  async function titleBlockOf(files: MemoryFiles, table: SearchIndexTable) {
    const packs = new PackReader(files);
    const key = '00000000';
    const [entry, found] = [
      await packs.locate(table.titles, KEY_KIND.term, utf8Bytes(key), key),
      await packs.lookup(table.titles, KEY_KIND.term, utf8Bytes(key), key),
    ];
    if (entry.status !== 'ok') throw new Error(entry.reason);
    if (found.status !== 'ok') throw new Error(found.reason);
    return { entry, text: new TextDecoder().decode(found.body) };
  }

  it('stores what each id shares with the one before and the rest, and answers the ids whole', async () => {
    const { files, table, reader } = readerOver(documents);
    const { text } = await titleBlockOf(files, table);
    const entries = JSON.parse(text) as [number, string, string, string][];
    expect(entries.map(([shared]) => shared)).toEqual([
      0,
      'resources/guide/install'.length,
      'resources/guide/in'.length,
      'resources/'.length,
      'resources/\u{1F600}'.length,
      'resources/'.length,
    ]);
    // No half of a surrogate pair is split off: JSON needs no \u escape for any part.
    expect(text).not.toMatch(/\\u/);
    expect(text.length).toBeLessThan(
      JSON.stringify(documents.map((document) => [document.id, document.title, ''])).length,
    );
    const results = structured(await reader.search({ query: 'shared words' })) as { results: { id: string }[] };
    expect(results.results.map((result) => result.id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await reader.fetch({ id })).isError).toBeUndefined();
  });

  it('are read as whole ids in the formats before 5, and an entry that does not decode is refused', () => {
    expect(parseTitleBlock('[["a/b.md","B",""],["a/c.md","C","u"]]', 2, 4)).toEqual([
      { id: 'a/b.md', title: 'B', url: '' },
      { id: 'a/c.md', title: 'C', url: 'u' },
    ]);
    expect(parseTitleBlock('[[0,"a/b.md","B",""],[2,"c.md","C","u"]]', 2, 5)).toEqual([
      { id: 'a/b.md', title: 'B', url: '' },
      { id: 'a/c.md', title: 'C', url: 'u' },
    ]);
    for (const [text, format] of [
      ['[["a/b.md","B",""],["a/c.md","C","u"]]', 5],
      ['[[0,"a/b.md","B",""],[2,"c.md","C","u"]]', 4],
      ['[[1,"a/b.md","B",""],[2,"c.md","C","u"]]', 5],
      ['[[0,"a/b.md","B",""],[7,"c.md","C","u"]]', 5],
      ['[[0,"a/b.md","B",""],[-1,"c.md","C","u"]]', 5],
      ['[[0,"a/b.md","B",""],[1.5,"c.md","C","u"]]', 5],
      ['[[0,"a/b.md","B",""],["2","c.md","C","u"]]', 5],
      ['[[0,"a/b.md","B",""],[2,"c.md","C",null]]', 5],
      ['[[0,"a/b.md","B",""]]', 5],
    ] as const)
      expect(parseTitleBlock(text, 2, format), `${text} (format ${format})`).toBeUndefined();
  });

  it('answers isError naming the block when an entry reaches past the id before it under a valid checksum', async () => {
    const { files, table, reader, problems } = readerOver(documents);
    const { entry, text } = await titleBlockOf(files, table);
    // The second entry claims 99 units of a 26-unit id: same length, so the record stays in place.
    const forgedText = text.replace(',[23,', ',[99,');
    expect(forgedText).not.toBe(text);
    forgeRecord(files, entry, () => utf8Bytes(forgedText));
    const searched = await reader.search({ query: 'shared' });
    expect(searched.isError).toBe(true);
    expect(searched.content[0]).toMatchObject({
      text: expect.stringMatching(/search index is damaged.*title block 00000000 .* is not 6 title entries/),
    });
    expect(problems.some((problem) => problem.includes('title block 00000000'))).toBe(true);
    // fetch reads no title block: it still answers.
    expect((await reader.fetch({ id: ids[0] })).isError).toBeUndefined();
  });
});

describe('verifying a search index (what check asks)', () => {
  it('finds nothing wrong with a written index, and names each kind of damage', async () => {
    // Every record is read by each of the four checks: a corpus of several title blocks is enough.
    const { files, table, written } = readerOver(corpus(100));
    const paths = () => [...files.files.keys()];
    expect(await verifySearchIndex(table, files, paths())).toEqual([]);

    files.files.set(`${SEARCH_FOLDER}terms/stray.pack`, new Uint8Array([1, 2, 3]));
    expect(await verifySearchIndex(table, files, paths())).toEqual([
      `${SEARCH_FOLDER}terms/stray.pack lies under ${SEARCH_FOLDER} but the search table names it nowhere; delete it, or build the tree again`,
    ]);
    files.files.delete(`${SEARCH_FOLDER}terms/stray.pack`);

    // Short texts: each document's fetch record is its excerpt source, in a title pack.
    const documentPack = written.files.find(
      (file) => file.path.startsWith(`${SEARCH_FOLDER}titles/`) && file.path.endsWith('.pack'),
    )!;
    const edited = Uint8Array.from(documentPack.bytes);
    edited[edited.length - 5] = edited[edited.length - 5]! ^ 0x20;
    files.files.set(documentPack.path, edited);
    const problems = await verifySearchIndex(table, files, paths());
    expect(problems.join('\n')).toMatch(/checksum does not match/);
    expect(problems.join('\n')).toMatch(/holds \d+ documents, its table says 100/);
    files.files.set(documentPack.path, documentPack.bytes);

    const titleIndex = table.titles[0]!.index;
    files.files.delete(titleIndex);
    expect((await verifySearchIndex(table, files, paths())).join('\n')).toMatch(
      new RegExp(`${titleIndex} is missing.*\\n.*holds \\d+ title blocks, its table needs 7`),
    );
  });
});

describe('documents that take their text from their call (format 2)', () => {
  // The calls as the build writes them: the result, and the arguments it answers in _meta.
  const documents = corpus(200);
  const callFiles = new Map(
    documents.map((document) => [
      document.id,
      JSON.stringify({
        content: [{ type: 'text', text: document.text }],
        _meta: { 'staticmcp/arguments': { title: document.title } },
      }),
    ]),
  );
  const pointing = documents.map((document) => ({ ...document, textFrom: 'call' as const }));

  function pointingReader(calls: Map<string, string>, options: { throws?: boolean } = {}) {
    const written = writeOnce(pointing, SMALL_PARTS);
    const files = new MemoryFiles(new Map(written.files.map((file) => [file.path, file.bytes])));
    const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
    if ('problem' in parsed) throw new Error(parsed.problem);
    const callsRead: string[] = [];
    const problems: string[] = [];
    const reader = new SearchReader(files, 'table' in parsed ? parsed.table : parsed, {
      onProblem: (reason) => problems.push(reason),
      readCall: async (treePath) => {
        callsRead.push(treePath);
        if (options.throws) throw new Error('EIO: the disk went away');
        const text = calls.get(treePath);
        return text === undefined ? { status: 'missing' } : { status: 'ok', text };
      },
    });
    return { written, files, reader, callsRead, problems };
  }

  it('stores no text, and fetch answers the same JSON as an index that stores it', async () => {
    const stored = readerOver(documents);
    const { written, reader, callsRead } = pointingReader(callFiles);
    expect(written.extension.format).toBe(6);
    expect(stored.written.extension.format).toBe(6);
    // Where a document's text is stored: its record, or (short) its excerpt source that is its record.
    const documentBytes = (files: typeof written.files) =>
      files.filter((file) => /\/(?:documents|titles)\//.test(file.path)).reduce((sum, f) => sum + f.bytes.length, 0);
    // Short texts here (5-65 words): the records lose them (stored compressed, ~4× smaller), and nothing else.
    const textBytes = documents.reduce((sum, document) => sum + Buffer.byteLength(JSON.stringify(document.text)), 0);
    expect(documentBytes(written.files)).toBeLessThan(documentBytes(stored.written.files) - textBytes / 8);
    for (const document of documents.slice(0, 60)) {
      const fromCall = await reader.fetch({ id: document.id });
      const fromIndex = await stored.reader.fetch({ id: document.id });
      expect(JSON.stringify(fromCall)).toBe(JSON.stringify(fromIndex));
    }
    expect(callsRead).toEqual(documents.slice(0, 60).map((document) => document.id));
    // Search ranks the same (the postings are the same); a call's document stores no text, so its
    // hit has no excerpt, where the stored text's has one.
    const query = 'omega café';
    type Hits = { results: { excerpt?: string; matches?: unknown }[]; total: number };
    const fromCalls = structured(await reader.search({ query })) as Hits;
    const fromTexts = structured(await stored.reader.search({ query })) as Hits;
    expect(fromCalls.results.every((hit) => hit.excerpt === undefined)).toBe(true);
    expect(fromTexts.results.every((hit) => typeof hit.excerpt === 'string')).toBe(true);
    const withoutExcerpts = ({ results, total }: Hits) => ({
      results: results.map(({ excerpt: _, matches: __, ...hit }) => hit),
      total,
    });
    expect(fromCalls).toEqual(withoutExcerpts(fromTexts));
  });

  it('answers isError, saying to build again, when the call is missing, unreadable, an error or empty', async () => {
    const victim = documents[17]!.id;
    const cases: [string, Map<string, string>, RegExp, { throws?: boolean }?][] = [
      ['missing', new Map([...callFiles].filter(([id]) => id !== victim)), /is missing on the host/],
      ['truncated', new Map([...callFiles, [victim, callFiles.get(victim)!.slice(0, 20)]]), /is not JSON/],
      [
        'an error now',
        new Map([...callFiles, [victim, JSON.stringify({ content: [{ type: 'text', text: 'boom' }], isError: true })]]),
        /is an error result on the host/,
      ],
      ['empty', new Map([...callFiles, [victim, JSON.stringify({ content: [] })]]), /is no text on the host/],
      ['an I/O failure', callFiles, /cannot be read \(EIO/, { throws: true }],
    ];
    for (const [name, calls, why, options] of cases) {
      const { reader, problems } = pointingReader(calls, options);
      const result = await reader.fetch({ id: victim });
      expect(result.isError, name).toBe(true);
      const text = (result.content[0] as unknown as { text: string }).text;
      expect(text, name).toMatch(why);
      expect(text, name).toContain(`The document ${victim} is in the search index but its call ${victim}`);
      expect(text, name).toMatch(/build the tree again and deploy all of it/);
      expect(problems, name).toHaveLength(1);
    }
    // A reader given no way to read calls says so too, rather than throwing.
    const { written } = pointingReader(callFiles);
    const files = new MemoryFiles(new Map(written.files.map((file) => [file.path, file.bytes])));
    const table = written.extension as unknown as SearchIndexTable;
    const blind = await new SearchReader(files, table).fetch({ id: victim });
    expect(blind).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/this host cannot read/) }] });
  });

  it('never reads a call for an id the index does not hold, nor a pointer that names a file outside tools/', async () => {
    const { reader, callsRead, files } = pointingReader(callFiles);
    for (const id of ['../mcp.json', 'tools/wiki/nothing.json', 'resources/x.json', 'tools/../mcp.json'])
      expect((await reader.fetch({ id })).isError, id).toBe(true);
    expect(callsRead).toEqual([]);
    expect(files.asked.every((path) => path.startsWith(SEARCH_FOLDER))).toBe(true);
    // A tampered record: a pointer must name its own id, a call file below tools/, and no text.
    const body = (value: object) => JSON.stringify({ title: 't', url: '', ...value });
    expect(parseDocumentBody(body({ id: 'tools/wiki/a.json', textFrom: 'call' }), 'tools/wiki/a.json')).toEqual({
      id: 'tools/wiki/a.json',
      title: 't',
      textFrom: 'call',
      url: '',
    });
    for (const [id, extra] of [
      ['resources/a.json', { textFrom: 'call' }],
      ['tools/../mcp.json', { textFrom: 'call' }],
      ['tools/wiki/a.txt', { textFrom: 'call' }],
      ['tools/wiki/a.json', { textFrom: 'resource' }],
      ['tools/wiki/a.json', { textFrom: 'call', text: 'both' }],
      ['tools/wiki/a.json', {}],
    ] as const)
      expect(parseDocumentBody(body({ id, ...extra }), id), `${id} ${JSON.stringify(extra)}`).toBeUndefined();
  });

  it('is read in every format written so far, and a newer one is refused with a message to update', () => {
    const { written } = pointingReader(callFiles);
    for (const format of [1, 2, 3, 4, 5, 6])
      expect(parseSearchIndexManifest({ ...written.extension, format })).not.toHaveProperty('problem');
    expect(parseSearchIndexManifest({ ...written.extension, format: 7 })).toMatchObject({
      problem: 'search.format is 7, this reader knows 1, 2, 3, 4, 5 and 6; update staticmcp or build the tree again',
    });
  });

  it('is verified: a pointer whose call the tree lacks is a problem', async () => {
    const { written, files } = pointingReader(callFiles);
    const table = written.extension as unknown as SearchIndexTable;
    const paths = [...files.files.keys()];
    expect(await verifySearchIndex(table, files, paths, (id) => callFiles.has(id))).toEqual([]);
    const lacking = documents[3]!.id;
    const problems = await verifySearchIndex(table, files, paths, (id) => id !== lacking && callFiles.has(id));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(
        `takes its text from the call ${lacking.replace(/[.]/g, '\\.')}, which the tree lacks.*; build the tree again$`,
      ),
    );
  });
});
