// The search index writer's kept term records (tree-writer/search-kept-terms.ts): after a
// one-document edit, the previous build's records are patched (no posting run is written) and the
// index is byte for byte the one a from-scratch write makes; an added or removed document, a
// damaged records file, or kept documents of another build fall back to merging every posting,
// with the same bytes.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSearchIndexSpilling } from '../../src/tree-writer/search-index-spill-writer.js';
import type { SearchDocument, SearchIndexExtension } from '../../src/tree-writer/search-index-output.js';
import { KeptSearchDocuments } from '../../src/tree-writer/search-kept-documents.js';
import { KeptTermsWriter, readKeptTerms } from '../../src/tree-writer/search-kept-terms.js';
import type { PackReuse } from '../../src/tree-writer/search-record-packer.js';
import { pick, random } from '../helpers/random.js';

const WORDS = ['running', 'runs', 'alpha', 'beta', 'gamma', 'café', 'Straße', '東京', '😀x', 'checksums', 'zeta'];
const IDENTITY = 'test writer';
const MAX_BYTES = 64 * 1024 * 1024;

function corpus(count: number): SearchDocument[] {
  const next = random(11);
  return Array.from({ length: count }, (_, number) => ({
    id: `resources/doc-${String(number).padStart(3, '0')}.txt`,
    title: `Document ${number}`,
    text: Array.from({ length: 20 + Math.floor(next() * 100) }, () => pick(next, WORDS)).join(' '),
    url: '',
  }));
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(path.join(os.tmpdir(), 'search-kept-terms-'));
  folders.push(made);
  return made;
}

/** The previous index's files and pack keys, which packs made from the same records link (as a build's do). */
interface PreviousPacks {
  files: Map<string, string>;
  packKeys: Record<string, string>;
}

/** The index of `documents` (files as base64), and whether its postings went through runs. */
async function indexOf(
  documents: SearchDocument[],
  cache?: string,
  packs?: { previous?: PreviousPacks; targetPackBytes: number; targetTermIndexBytes?: number },
) {
  const scratchFolder = path.join(folder(), 'scratch');
  const files = new Map<string, string>();
  const keptFile = cache && path.join(cache, 'search-documents.bin');
  const termsFile = cache && path.join(cache, 'search-terms.bin');
  const kept = keptFile ? new KeptSearchDocuments(keptFile, IDENTITY, MAX_BYTES, true) : undefined;
  const previous = kept && readKeptTerms(termsFile!, IDENTITY, kept.previousChecksum, MAX_BYTES);
  const writer = termsFile ? new KeptTermsWriter(termsFile, IDENTITY, MAX_BYTES) : undefined;
  let merged = false;
  const packKeys: Record<string, string> = {};
  const linked: string[] = [];
  // search-pack-reuse.ts's over a map of the previous files: a linked pack is the previous one's bytes.
  const packReuse = (partFolder: string): PackReuse => ({
    find: (key) => {
      const packPath = packs?.previous?.packKeys[`${partFolder}${key}`];
      const bytes = packPath === undefined ? undefined : packs!.previous!.files.get(packPath);
      return bytes === undefined ? undefined : { path: packPath!, length: Buffer.from(bytes, 'base64').length };
    },
    link: async (packPath) => {
      files.set(packPath, packs!.previous!.files.get(packPath)!);
      linked.push(packPath);
    },
    made: (key, packPath) => {
      packKeys[`${partFolder}${key}`] = packPath;
    },
    previousFile: (filePath) => {
      const bytes = filePath.startsWith(partFolder) ? packs?.previous?.files.get(filePath) : undefined;
      return bytes === undefined ? undefined : { length: Buffer.from(bytes, 'base64').length };
    },
  });
  // The writer's steps: `search/term-records` is the edit that patched and packed by the previous layout.
  const steps: string[] = [];
  const extension = await writeSearchIndexSpilling(
    documents,
    {
      scratchFolder,
      runPostings: 400,
      ...(packs ? { packReuse, targetPackBytes: packs.targetPackBytes } : {}),
      ...(packs?.targetTermIndexBytes ? { targetTermIndexBytes: packs.targetTermIndexBytes } : {}),
      noteMemory: (step: string) => steps.push(step),
      ...(kept ? { kept, keptTerms: { ...(previous ? { previous } : {}), ...(writer ? { writer } : {}) } } : {}),
    },
    async (filePath, bytes) => {
      // The runs are written before the first term pack: a patch writes none.
      if (files.size === 0)
        merged = existsSync(scratchFolder) && readdirSync(scratchFolder).some((name) => name.startsWith('run-'));
      files.set(filePath, Buffer.from(bytes).toString('base64'));
    },
  );
  kept?.commit();
  writer?.commit(kept?.committedChecksum);
  return {
    files,
    extension,
    merged,
    patched: previous !== undefined && !merged,
    byLayout: steps.includes('search/term-records'),
    packKeys,
    linked,
  };
}

function edited(documents: SearchDocument[], number: number, words: string): SearchDocument[] {
  return documents.map((document, at) =>
    at === number ? { ...document, text: `${document.text} ${words}` } : document,
  );
}

describe('kept search term records', () => {
  it('patches the records after one edit and writes the index a from-scratch write does', async () => {
    const cache = folder();
    const documents = corpus(80);
    expect((await indexOf(documents, cache)).merged).toBe(true);
    // New words, and words the document no longer holds (its text replaced); and one word swapped
    // for another, its length kept: its other terms' weights stay, and those records are kept as
    // they are.
    for (const next of [
      edited(documents, 17, 'quokka zyzzyva runs'),
      documents.map((document, at) =>
        at === 60 ? { ...document, text: `quokka ${document.text.split(' ').slice(1).join(' ')}` } : document,
      ),
      documents.map((document, at) =>
        at === 40 ? { ...document, text: `${document.text.split(' ').slice(4).join(' ')} wombat` } : document,
      ),
    ]) {
      const rebuilt = await indexOf(next, cache);
      expect(rebuilt.patched).toBe(true);
      const fresh = await indexOf(next);
      expect(rebuilt.extension).toEqual(fresh.extension);
      expect(rebuilt.files).toEqual(fresh.files);
    }
  });

  it('patches records of many blocks (an edit inside, on the edge of and past their blocks) as a from-scratch write', async () => {
    const cache = folder();
    // Each word in most of 400 documents: its record is three or four blocks of 128 postings.
    const documents = corpus(400);
    expect((await indexOf(documents, cache)).merged).toBe(true);
    for (const number of [0, 127, 128, 200, 255, 399]) {
      const next = edited(documents, number, `wombat runs ${number}`);
      const rebuilt = await indexOf(next, cache);
      expect(rebuilt.patched).toBe(true);
      const fresh = await indexOf(next);
      expect(rebuilt.extension).toEqual(fresh.extension);
      expect(rebuilt.files).toEqual(fresh.files);
      await indexOf(documents, cache);
    }
  });

  it('links the term packs whose records an edit left as they were; the index is a from-scratch write', async () => {
    const cache = folder();
    // Many words, in small packs: most term packs hold no word of the edited document.
    const next = random(5);
    const documents = corpus(120).map((document, number) => ({
      ...document,
      text: `${document.text} ${Array.from({ length: 12 }, () => `w${Math.floor(next() * 600)}`).join(' ')} n${number}`,
    }));
    const packs = { targetPackBytes: 2048 };
    const first = await indexOf(documents, cache, packs);
    let previous: PreviousPacks = { files: first.files, packKeys: first.packKeys };
    for (const [number, words] of [
      [17, 'quokka'],
      [80, 'w3 w5'],
    ] as const) {
      const edit = edited(documents, number, words);
      const rebuilt = await indexOf(edit, cache, { ...packs, previous });
      expect(rebuilt.patched).toBe(true);
      const fresh = await indexOf(edit, undefined, packs);
      expect(rebuilt.extension).toEqual(fresh.extension);
      expect(rebuilt.files).toEqual(fresh.files);
      const termPacks = [...rebuilt.files.keys()].filter((name) => name.includes('/terms/') && name.endsWith('.pack'));
      const linkedTerms = rebuilt.linked.filter((name) => name.includes('/terms/'));
      expect(termPacks.length).toBeGreaterThan(10);
      expect(linkedTerms.length).toBeGreaterThan(termPacks.length / 2);
      expect(linkedTerms.length).toBeLessThan(termPacks.length);
      previous = { files: rebuilt.files, packKeys: rebuilt.packKeys };
    }
  });

  it('merges every posting when a document is added or removed, with the same bytes', async () => {
    const cache = folder();
    const documents = corpus(80);
    await indexOf(documents, cache);
    for (const next of [documents.slice(1), [...documents, { ...documents[3]!, id: 'resources/new.txt' }]]) {
      const rebuilt = await indexOf(next, cache);
      expect(rebuilt.merged).toBe(true);
      expect(rebuilt.files).toEqual((await indexOf(next)).files);
    }
  });

  it('ignores damaged records, or records of other kept documents: the index is still right', async () => {
    const cache = folder();
    const documents = corpus(80);
    await indexOf(documents, cache);
    const termsFile = path.join(cache, 'search-terms.bin');
    const good = readFileSync(termsFile);
    const damaged = Buffer.from(good);
    damaged[Math.floor(good.length / 2)]! ^= 0x01;
    writeFileSync(termsFile, damaged);
    const next = edited(documents, 5, 'quokka');
    const rebuilt = await indexOf(next, cache);
    expect(rebuilt.merged).toBe(true);
    expect(rebuilt.files).toEqual((await indexOf(next)).files);
    // The kept documents file replaced by another build's: the records no longer go with it.
    const other = folder();
    await indexOf(corpus(80).slice(2), other);
    writeFileSync(path.join(cache, 'search-documents.bin'), readFileSync(path.join(other, 'search-documents.bin')));
    const again = await indexOf(edited(next, 6, 'wombat'), cache);
    expect(again.merged).toBe(true);
    expect(again.files).toEqual((await indexOf(edited(next, 6, 'wombat'))).files);
  });
});

describe('term records patched and packed by the previous layout', () => {
  /** 160 documents of many words each, in small term packs and indexes: an edit touches a few. */
  function manyWords(): SearchDocument[] {
    const next = random(7);
    return corpus(160).map((document, number) => ({
      ...document,
      text: `${document.text} ${Array.from({ length: 10 }, () => `w${Math.floor(next() * 900)}`).join(' ')} n${number}`,
    }));
  }
  const packs = { targetPackBytes: 2048, targetTermIndexBytes: 1024 };

  /** The first key of the term pack holding `term`, by the rows (packs sorted by first key). */
  function packOf(extension: SearchIndexExtension, term: string): string {
    const key = Buffer.from(term, 'utf8').toString('hex');
    const listed = 'termPacks' in extension ? extension.termPacks : [];
    // The table stores its rows as text, a line per pack (`<first key hex> <name> <bytes>`).
    const rows =
      typeof listed === 'string'
        ? listed.split('\n').map((line) => line.split(' ') as [string, string, string])
        : (listed ?? []);
    return rows.filter(([first]) => Buffer.compare(Buffer.from(first, 'hex'), Buffer.from(key, 'hex')) <= 0).at(-1)![0];
  }

  /** Builds `documents` on `cache` and a tree from scratch: the same files, by the layout when `byLayout`. */
  async function expectFromScratch(
    documents: SearchDocument[],
    cache: string,
    previous: PreviousPacks,
    byLayout = true,
  ) {
    const rebuilt = await indexOf(documents, cache, { ...packs, previous });
    expect(rebuilt.byLayout).toBe(byLayout);
    const fresh = await indexOf(documents, undefined, packs);
    expect(rebuilt.extension).toEqual(fresh.extension);
    expect(rebuilt.files).toEqual(fresh.files);
    return rebuilt;
  }

  it('adds a new term, removes the last document of one, moves terms across pack boundaries: the from-scratch index', async () => {
    const cache = folder();
    const documents = manyWords();
    const first = await indexOf(documents, cache, packs);
    expect(first.byLayout).toBe(false);
    let previous: PreviousPacks = { files: first.files, packKeys: first.packKeys };
    // A word no document had.
    const added = edited(documents, 17, 'quokka');
    let rebuilt = await expectFromScratch(added, cache, previous);
    const termPacks = [...rebuilt.files.keys()].filter((name) => name.includes('/terms/') && name.endsWith('.pack'));
    expect(termPacks.length).toBeGreaterThan(10);
    const linkedPacks = rebuilt.linked.filter((name) => name.includes('/terms/') && name.endsWith('.pack'));
    expect(linkedPacks.length).toBeGreaterThan(0);
    expect(linkedPacks.length).toBeLessThan(termPacks.length);
    previous = { files: rebuilt.files, packKeys: rebuilt.packKeys };
    // n40 is in document 40 alone: its record goes.
    const removed = added.map((document, at) =>
      at === 40 ? { ...document, text: document.text.replace(/ n40$/, '') } : document,
    );
    rebuilt = await expectFromScratch(removed, cache, previous);
    expect(JSON.stringify(rebuilt.extension)).not.toContain(Buffer.from('n40').toString('hex'));
    previous = { files: rebuilt.files, packKeys: rebuilt.packKeys };
    // Many postings more for words of the first packs: their packs fill sooner, and terms that
    // were in one pack are in another.
    const before = rebuilt.extension;
    const grown = edited(removed, 90, Array.from({ length: 60 }, (_, at) => `w${at}`).join(' '));
    rebuilt = await expectFromScratch(grown, cache, previous);
    const moved = Array.from({ length: 60 }, (_, at) => `w${at}`).filter(
      (term) => packOf(before, term) !== packOf(rebuilt.extension, term),
    );
    expect(moved.length).toBeGreaterThan(0);
  });

  it('takes the full path, with the same bytes, when the saved layout is damaged or its records are', async () => {
    const cache = folder();
    const documents = manyWords();
    const first = await indexOf(documents, cache, packs);
    const previous: PreviousPacks = { files: first.files, packKeys: first.packKeys };
    const stateFile = path.join(cache, 'search-terms.bin.json');
    const state = readFileSync(stateFile, 'utf8');
    const saved = JSON.parse(state) as { layout: { packs: unknown[][] }; layoutSha256: string };
    const next = edited(documents, 33, 'quokka w1');
    // A layout edited by hand (its digest no longer matches), or cut short.
    const edited1 = JSON.parse(state) as typeof saved;
    edited1.layout.packs[3]![0] = 1;
    writeFileSync(stateFile, JSON.stringify(edited1));
    await expectFromScratch(next, cache, previous, false);
    writeFileSync(stateFile, state.slice(0, state.length - 40));
    await expectFromScratch(next, cache, previous, false);
    // A layout whose digest matches but whose ranges' CRCs do not: checked as each range is read.
    await indexOf(documents, cache, packs);
    const wrongCrc = JSON.parse(readFileSync(stateFile, 'utf8')) as typeof saved;
    wrongCrc.layout.packs[1]![2] = ((wrongCrc.layout.packs[1]![2] as number) ^ 1) >>> 0;
    wrongCrc.layoutSha256 = createHash('sha256').update(JSON.stringify(wrongCrc.layout)).digest('hex');
    writeFileSync(stateFile, JSON.stringify(wrongCrc));
    await expectFromScratch(next, cache, previous, false);
    // A byte of the records changed under a layout that names them.
    await indexOf(documents, cache, packs);
    const termsFile = path.join(cache, 'search-terms.bin');
    const damaged = readFileSync(termsFile);
    damaged[Math.floor(damaged.length / 3)]! ^= 0x04;
    writeFileSync(termsFile, damaged);
    await expectFromScratch(next, cache, previous, false);
    // A layout naming packs the previous tree does not hold (another tree's).
    await indexOf(documents, cache, packs);
    await expectFromScratch(next, cache, { files: new Map(), packKeys: {} }, false);
  });
});
