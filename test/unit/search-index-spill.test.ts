// The spilling search index writer (tree-writer/search-index-spill-writer.ts) writes the same
// files, byte for byte, and the same mcp.json value as the in-memory writer (test/helpers/in-memory-search-index.ts)
// for the same documents, whatever order they stream in and however many sorted runs they fill,
// (documents storing their text and documents pointing at their call alike), and refuses what the
// in-memory writer refuses; its scratch files stay in the folder it is given.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSearchIndexSpilling } from '../../src/tree-writer/search-index-spill-writer.js';
import { compareUtf8 } from '../../src/tree-writer/search-posting-runs.js';
import type { SearchDocument, SearchIndexOptions } from '../../src/tree-writer/search-index-output.js';
import { SEARCH_FILE_LIMITS, titleFileLimits } from '../../src/tree-writer/search-index-targets.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { pick, random } from '../helpers/random.js';

// Scripts and code points whose UTF-16 order differs from their UTF-8 order (U+FF21 vs an emoji).
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'Straße', 'café', '東京', 'Ａ', '😀x', 'zeta', 'kappa'];
// '😀' and '😁' share their first UTF-16 unit: a title block never splits a pair between two entries.
const ID_PARTS = ['a', 'b', 'Z', 'é', 'Ａ', '😀', '😁', '東', 'x-y', '1', '10'];

function corpus(count: number, seed: number): SearchDocument[] {
  const next = random(seed);
  const seen = new Set<string>();
  const documents: SearchDocument[] = [];
  while (documents.length < count) {
    const id = `tools/wiki/${Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(next, ID_PARTS)).join('')}-${Math.floor(next() * 50)}.json`;
    if (seen.has(id)) continue;
    seen.add(id);
    const length = Math.floor(next() * 80);
    const words = Array.from({ length }, () => WORDS[Math.floor(WORDS.length * next() ** 2)]!);
    documents.push({
      id,
      title: documents.length % 5 === 0 ? `Document "${documents.length}" \\ ü` : `Document ${documents.length}`,
      text: words.join(' '),
      url: next() < 0.5 ? '' : `https://example.org/${documents.length}`,
      ...(documents.length % 3 === 0 ? { metadata: { position: documents.length } } : {}),
      // Half point at their call for their text (stored without it), as a build's call documents do.
      ...(documents.length % 2 === 0 ? { textFrom: 'call' as const } : {}),
    });
  }
  return documents;
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function spill(
  documents: AsyncIterable<SearchDocument> | Iterable<SearchDocument>,
  options: SearchIndexOptions & { runPostings?: number },
) {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'search-spill-'));
  folders.push(parent);
  const scratchFolder = path.join(parent, 'scratch');
  const files = new Map<string, string>();
  const extension = await writeSearchIndexSpilling(
    documents,
    { ...options, scratchFolder },
    async (treePath, bytes) => {
      expect(files.has(treePath)).toBe(false);
      files.set(treePath, Buffer.from(bytes).toString('base64'));
    },
  );
  return { extension, files, scratchFolder };
}

function inMemory(documents: SearchDocument[], options: SearchIndexOptions) {
  const written = writeSearchIndex(documents, options);
  return {
    extension: written.extension,
    files: new Map(written.files.map((file) => [file.path, Buffer.from(file.bytes).toString('base64')])),
  };
}

async function* streamed(documents: SearchDocument[]): AsyncGenerator<SearchDocument> {
  for (const document of documents) yield document;
}

describe('the spilling search index writer', () => {
  it('writes what the in-memory writer writes, from many tiny runs, documents streamed in any order', async () => {
    const documents = corpus(400, 3);
    const targets = { targetPackBytes: 4096, targetIndexBytes: 1024, targetTermIndexBytes: 512, inlineTableBytes: 1e9 };
    const expected = inMemory(documents, targets);
    if (!('terms' in expected.extension)) throw new Error('the rows should be inline');
    const order = random(4);
    const shuffled = documents
      .map((document) => ({ document, at: order() }))
      .sort((a, b) => a.at - b.at)
      .map(({ document }) => document);
    const spilled = await spill(streamed(shuffled), { ...targets, runPostings: 25 });
    // Many runs were needed, and many packs and indexes of each kind came out.
    expect(readdirSync(spilled.scratchFolder).filter((name) => name.startsWith('run-')).length).toBeGreaterThan(100);
    expect(expected.extension.terms.length).toBeGreaterThan(3);
    expect(expected.extension.documents.length).toBeGreaterThan(3);
    expect(spilled.extension).toEqual(expected.extension);
    expect(spilled.extension.format).toBe(6);
    expect(new Map([...spilled.files].sort())).toEqual(new Map([...expected.files].sort()));
  });

  it('writes the same from documents streamed in id order, as a build lists them, and one out of it', async () => {
    const documents = corpus(300, 11).sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
    const targets = { targetPackBytes: 4096, targetIndexBytes: 1024, targetTermIndexBytes: 512, inlineTableBytes: 1e9 };
    const expected = inMemory(documents, targets);
    const inOrder = await spill(streamed(documents), { ...targets, runPostings: 40 });
    expect(inOrder.extension).toEqual(expected.extension);
    expect(new Map([...inOrder.files].sort())).toEqual(new Map([...expected.files].sort()));
    // The last document first: every other arrives in order, that one not.
    const oneOut = await spill(streamed([documents.at(-1)!, ...documents.slice(0, -1)]), {
      ...targets,
      runPostings: 40,
    });
    expect(new Map([...oneOut.files].sort())).toEqual(new Map([...expected.files].sort()));
    // A repeated id right after itself, in an otherwise ordered stream.
    const repeated = [...documents.slice(0, 20), { ...documents[19]!, text: 'other' }, ...documents.slice(20)];
    await expect(spill(streamed(repeated), targets)).rejects.toThrow(
      `two search documents have the id ${documents[19]!.id}`,
    );
  });

  it('writes format 6, as the in-memory writer does, when every document stores its text', async () => {
    const documents = corpus(120, 5).map(({ textFrom: _, ...document }) => document);
    const expected = inMemory(documents, {});
    const spilled = await spill(streamed(documents), { runPostings: 50 });
    expect(spilled.extension).toEqual(expected.extension);
    expect(spilled.extension.format).toBe(6);
    expect(new Map([...spilled.files].sort())).toEqual(new Map([...expected.files].sort()));
  });

  it('writes the same title blocks from ids of plain ASCII, which it counts without making their entries', async () => {
    // Ids sharing no prefix, a short one and one of a hundred bytes; the punctuation a path may hold.
    const stems = ['a', "b'(c)!~*", 'x-y_z.q', 'a'.repeat(100), 'ab', 'abc9', 'b', 'z'];
    const documents = Array.from({ length: 90 }, (_, position) => ({
      id: `${position % 2 === 0 ? 'resources' : 'r'}/${stems[position % stems.length]}${position}.json`,
      title: `Title ${position}`,
      text: 'word '.repeat(1 + (position % 400)),
      url: `?doc=${position}`,
    }));
    const expected = inMemory(documents, { blockSize: 4 });
    const spilled = await spill(streamed(documents), { blockSize: 4, runPostings: 50 });
    expect(spilled.extension).toEqual(expected.extension);
    expect(new Map([...spilled.files].sort())).toEqual(new Map([...expected.files].sort()));
  });

  it('writes the same with one run and the default targets', async () => {
    const documents = corpus(300, 11);
    const spilled = await spill(documents, {});
    const expected = inMemory(documents, {});
    expect(spilled.extension).toEqual(expected.extension);
    expect(spilled.files).toEqual(expected.files);
  });

  it("keeps each part of a large index within its files' limit, by larger targets", async () => {
    const documents = corpus(1500, 21);
    // Targets so small that 1,500 documents would make thousands of packs and indexes.
    const options = { targetPackBytes: 64, targetIndexBytes: 16, targetTermIndexBytes: 16, inlineTableBytes: 1e9 };
    const spilled = await spill(documents, options);
    const expected = inMemory(documents, options);
    expect(spilled.files).toEqual(expected.files);
    for (const part of ['terms', 'titles', 'documents'] as const) {
      const names = [...spilled.files.keys()].filter((name) => name.startsWith(`packs/search.index/${part}/`));
      const packs = names.filter((name) => name.endsWith('.pack')).length;
      const indexes = names.filter((name) => name.endsWith('.idx')).length;
      // Half the documents store their text: the title part's limit is an index storing text's.
      const limits = part === 'titles' ? titleFileLimits(true) : SEARCH_FILE_LIMITS[part];
      // Grown only as far as the count needs, the limit is used nearly whole: files as small as
      // fit, what a query streams on a host that ignores ranges (the terms' 764 packs hold one
      // record each already; 1,500 documents make only 47 title blocks).
      if (part === 'documents') expect(packs, part).toBeGreaterThan(limits.maxPacks * 0.9);
      if (part !== 'titles') expect(indexes, part).toBeGreaterThan(limits.maxIndexes * 0.85);
      expect(packs, part).toBeLessThanOrEqual(limits.maxPacks);
      expect(indexes, part).toBeLessThanOrEqual(limits.maxIndexes);
    }
  });

  it("gives each title block its own pack past the call results' limit when the index stores text", async () => {
    // 950 title blocks of one document each, more than an index of call results alone packs its
    // titles in. Pack targets so small every block would close a pack of its own.
    const documentsOf = (textFrom: 'call' | undefined): SearchDocument[] =>
      Array.from({ length: 950 }, (_, number) => ({
        id: `tools/docs/${String(number).padStart(5, '0')}.json`,
        title: `Document ${number}`,
        text: `word${number % 97} common`,
        url: '',
        ...(textFrom ? { textFrom } : {}),
      }));
    const options = { targetPackBytes: 64, blockSize: 1, inlineTableBytes: 0 };
    const titlePacksOf = (files: Map<string, string>) =>
      [...files.keys()].filter((name) => name.startsWith('packs/search.index/titles/') && name.endsWith('.pack'))
        .length;
    // Storing text, a result's title block and its sources are a pack alone: a query reads that much.
    const withText = await spill(documentsOf(undefined), options);
    expect(titlePacksOf(withText.files)).toBe(950);
    expect(withText.files).toEqual(inMemory(documentsOf(undefined), options).files);
    // Call results alone have small blocks: they keep to the smaller limit.
    const calls = titlePacksOf((await spill(documentsOf('call'), options)).files);
    expect(calls).toBeLessThanOrEqual(SEARCH_FILE_LIMITS.titles.maxPacks);
    expect(calls).toBeGreaterThan(SEARCH_FILE_LIMITS.titles.maxPacks * 0.5);
  });

  it('writes the same table file when the rows are too long for mcp.json', async () => {
    const documents = corpus(300, 12);
    const options = { targetPackBytes: 4096, targetIndexBytes: 1024, inlineTableBytes: 0 };
    const spilled = await spill(documents, options);
    const expected = inMemory(documents, options);
    expect(expected.extension).toHaveProperty('table');
    expect(spilled.extension).toEqual(expected.extension);
    expect(spilled.files).toEqual(expected.files);
  });

  it('writes an empty index for no documents, as the in-memory writer does', async () => {
    const spilled = await spill([], {});
    expect(spilled.extension).toEqual(inMemory([], {}).extension);
    expect(spilled.files.size).toBe(0);
  });

  it('refuses a repeated id and an id that is not a plain tree path', async () => {
    const documents = corpus(50, 5);
    await expect(spill([...documents, { ...documents[7]!, text: 'other' }], { runPostings: 10 })).rejects.toThrow(
      `two search documents have the id ${documents[7]!.id}`,
    );
    await expect(spill([{ ...documents[0]!, id: '../outside.json' }], {})).rejects.toThrow(/search document id/);
    // A document whose text is its call's must be a call file: fetch reads nothing else.
    const notACall = { ...documents[0]!, id: 'resources/guide.json', textFrom: 'call' as const };
    await expect(spill([notACall], {})).rejects.toThrow(/takes its text from a call, but is not a tools/);
    expect(() => inMemory([notACall], {})).toThrow(/takes its text from a call, but is not a tools/);
  });

  it('orders ids by their UTF-8 bytes', () => {
    const next = random(9);
    const strings = Array.from({ length: 500 }, () =>
      Array.from({ length: Math.floor(next() * 4) }, () =>
        pick(next, ['a', 'é', '\uffff', '\ue000', '😀', '\ud7ff', 'Ａ']),
      ).join(''),
    );
    const byBytes = [...strings].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...strings].sort(compareUtf8)).toEqual(byBytes);
  });
});
