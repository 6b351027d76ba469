// What the search index writer keeps of each document between builds
// (tree-writer/search-kept-documents.ts): a rebuild after one edit takes every other document's
// kept share instead of tokenizing it again, and still writes the index a from-scratch write
// does, byte for byte; a kept file that was damaged, edited, or made by another writer is ignored
// as a whole (every document tokenized again), never a wrong index.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSearchIndexSpilling } from '../../src/tree-writer/search-index-spill-writer.js';
import type { SearchDocument } from '../../src/tree-writer/search-index-output.js';
import { KeptSearchDocuments } from '../../src/tree-writer/search-kept-documents.js';
import { pick, random } from '../helpers/random.js';

const WORDS = ['running', 'runs', 'alpha', 'beta', 'gamma', 'café', 'Straße', '東京', '😀x', 'checksums', 'zeta'];

function corpus(count: number): SearchDocument[] {
  const next = random(7);
  return Array.from({ length: count }, (_, number) => ({
    id: `resources/doc-${number}.txt`,
    title: `Document ${number}`,
    text: Array.from({ length: Math.floor(next() * 120) }, () => pick(next, WORDS)).join(' '),
    url: '',
    // Some point at their call for their text, as a build's call documents do.
    ...(number % 4 === 0 ? { id: `tools/wiki/doc-${number}.json`, textFrom: 'call' as const } : {}),
  }));
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(path.join(os.tmpdir(), 'search-kept-'));
  folders.push(made);
  return made;
}

/** The index of `documents` (files → base64, and mcp.json's value), keeping shares in `kept`. */
async function indexOf(documents: SearchDocument[], kept?: KeptSearchDocuments, runPostings = 500) {
  const scratchFolder = path.join(folder(), 'scratch');
  const files = new Map<string, string>();
  const extension = await writeSearchIndexSpilling(
    documents,
    { scratchFolder, runPostings, ...(kept ? { kept } : {}) },
    async (filePath, bytes) => {
      files.set(filePath, Buffer.from(bytes).toString('base64'));
    },
  );
  kept?.commit();
  return { files, extension };
}

const IDENTITY = 'test writer';
const MAX_BYTES = 64 * 1024 * 1024;
const LARGE_RUNS = 1 << 19;

/** A first build that keeps every share, then the same documents with one (`editedNumber`) edited. */
async function keptThenEdited(editedNumber = 17) {
  const file = path.join(folder(), 'search-documents.bin');
  const documents = corpus(60);
  await indexOf(documents, new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true));
  const edited = documents.map((document, number) =>
    number === editedNumber ? { ...document, text: `${document.text} quokka zyzzyva runs` } : document,
  );
  return { file, edited };
}

describe('kept search documents', () => {
  it('after one edit, tokenize only that document and write the index a from-scratch write does', async () => {
    const { file, edited } = await keptThenEdited();
    const kept = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    const rebuilt = await indexOf(edited, kept);
    expect(kept.ignoredBecause).toBeUndefined();
    expect(kept.taken).toBe(59);
    const fresh = await indexOf(edited);
    expect(rebuilt.extension).toEqual(fresh.extension);
    expect(rebuilt.files).toEqual(fresh.files);
    // And the file it left serves the next build whole.
    const again = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    expect((await indexOf(edited, again)).files).toEqual(fresh.files);
    expect(again.taken).toBe(60);
  });

  it('takes an unchanged resource by its source key, never reading its text', async () => {
    const file = path.join(folder(), 'search-documents.bin');
    // Resources listed with a source key (a build's), one of them with no text (no excerpt source).
    const documents = corpus(60).map((document, number) => ({
      ...document,
      ...(number === 5 ? { text: '' } : {}),
      ...(document.textFrom === 'call' ? {} : { sourceKey: `source-${number}` }),
    }));
    await indexOf(documents, new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true));
    const edited = documents.map((document, number) => {
      if (number === 17) return { ...document, text: `${document.text} quokka`, sourceKey: 'source-17-edited' };
      if (document.sourceKey === undefined) return document;
      // Listed by its kept source: its text is not to be read.
      const { text: _text, ...rest } = document;
      return Object.defineProperty(rest, 'text', {
        enumerable: true,
        get: () => {
          throw new Error(`the text of ${document.id} was read`);
        },
      }) as SearchDocument;
    });
    const kept = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    const rebuilt = await indexOf(edited, kept);
    expect(kept.taken).toBe(59);
    const fresh = await indexOf(documents.map((document, number) => (number === 17 ? edited[17]! : document)));
    expect(rebuilt.extension).toEqual(fresh.extension);
    expect(rebuilt.files).toEqual(fresh.files);
  });

  it('sees an edit of a call result’s text, which its stored body does not hold', async () => {
    const { file, edited } = await keptThenEdited(16);
    expect(edited[16]!.textFrom).toBe('call');
    const kept = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    const rebuilt = await indexOf(edited, kept);
    expect(kept.taken).toBe(59);
    expect(rebuilt.files).toEqual((await indexOf(edited)).files);
  });

  it('ignores a damaged or edited file, or another writer’s, as a whole: the index is still right', async () => {
    const { file, edited } = await keptThenEdited();
    const fresh = await indexOf(edited);
    const good = readFileSync(file);
    const damaged = Buffer.from(good);
    // A count in the middle of the entries: with the checksum left as it was.
    const middle = Math.floor(good.length / 2);
    damaged[middle] = damaged[middle]! ^ 0x01;
    for (const [bytes, identity, reason] of [
      [damaged, IDENTITY, /checksum/],
      [good.subarray(0, good.length - 5), IDENTITY, /checksum/],
      [Buffer.from('garbage'), IDENTITY, /another writer/],
      [good, 'another generator', /another writer/],
    ] as const) {
      writeFileSync(file, bytes);
      const kept = new KeptSearchDocuments(file, identity, MAX_BYTES, true);
      const rebuilt = await indexOf(edited, kept);
      expect(kept.ignoredBecause).toMatch(reason);
      expect(kept.taken).toBe(0);
      expect(rebuilt.files).toEqual(fresh.files);
    }
  });

  it('after an edit rewrites only the part its entry lies in; a damaged part costs only its own documents', async () => {
    const file = path.join(folder(), 'search-documents.bin');
    // Enough documents for a few parts; runs of the default size (many small runs cost the merge here).
    const documents = corpus(800);
    await indexOf(documents, new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true), LARGE_RUNS);
    const partsFolder = `${file}.parts`;
    const before = new Set(readdirSync(partsFolder));
    expect(before.size).toBeGreaterThan(2);
    const edited = documents.map((document, number) =>
      number === 401 ? { ...document, text: `${document.text} quokka` } : document,
    );
    const kept = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    const rebuilt = await indexOf(edited, kept, LARGE_RUNS);
    expect(kept.taken).toBe(799);
    const fresh = await indexOf(edited, undefined, LARGE_RUNS);
    expect(rebuilt.files).toEqual(fresh.files);
    const after = readdirSync(partsFolder);
    expect(after.filter((name) => !before.has(name))).toHaveLength(1);
    expect(after.length).toBe(before.size);

    // One part flipped in the middle: its documents are tokenized again, the others taken.
    const [damaged] = after.filter((name) => before.has(name));
    const part = path.join(partsFolder, damaged!);
    const bytes = readFileSync(part);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(part, bytes);
    const again = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    expect((await indexOf(edited, again, LARGE_RUNS)).files).toEqual(fresh.files);
    expect(again.ignoredBecause).toBeUndefined();
    expect(again.taken).toBeGreaterThan(0);
    expect(again.taken).toBeLessThan(800);
    // And the parts it left serve the next build whole.
    const whole = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, true);
    expect((await indexOf(edited, whole, LARGE_RUNS)).files).toEqual(fresh.files);
    expect(whole.taken).toBe(800);
  });

  it('reads nothing when told not to (--force) or past its size bound, and keeps nothing at a bound of 0', async () => {
    const { file, edited } = await keptThenEdited();
    const forced = new KeptSearchDocuments(file, IDENTITY, MAX_BYTES, false);
    await indexOf(edited, forced);
    expect(forced.taken).toBe(0);
    const small = new KeptSearchDocuments(file, IDENTITY, 100, true);
    expect(small.ignoredBecause).toMatch(/larger than 100 bytes/);
    await indexOf(edited, small);
    expect(() => readFileSync(file)).toThrow();
  });
});
