// A one-document edit changes only the index files that hold that document (issue #39, "Edits in
// a second"): the term packs and indexes of its words, its stored record's pack and index (a short
// text's record is its excerpt source: its title pack, and the documents indexes pointing into it),
// and the table that names them. Postings weigh by the corpus's average length rounded to a log scale
// (postings.ts weightAverageLengthOf), so an edit that changes the document's length leaves every
// other term's record, and every pack of none of its words, byte for byte as it was; the index
// is still the one both writers write from scratch. With pack reuse (the build's), the title packs
// made from the same blocks as the previous writing's are linked, not made: only the edited
// document's is written, and the index is still byte for byte the from-scratch one.
import { rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIndex } from '../../src/core/packs/pack-format.js';
import { indexKeysOf } from '../../src/core/search/stem.js';
import { tokenize } from '../../src/core/search/tokenize.js';
import { writeSearchIndexSpilling } from '../../src/tree-writer/search-index-spill-writer.js';
import type { PackReuse } from '../../src/tree-writer/search-record-packer.js';
import type { SearchDocument, SearchIndexOptions } from '../../src/tree-writer/search-index-output.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { random } from '../helpers/random.js';

// Small parts, so that 200 documents make dozens of term packs.
const SMALL: SearchIndexOptions = { targetPackBytes: 2048, targetIndexBytes: 1024, targetTermIndexBytes: 1024 };

function corpus(count: number): SearchDocument[] {
  const next = random(11);
  return Array.from({ length: count }, (_, number) => ({
    id: `resources/doc-${number}.json`,
    title: `Document ${number}`,
    // Words of a 6,000-word vocabulary, a few common and most rare, 20 to 60 a document.
    text: Array.from({ length: 20 + Math.floor(next() * 40) }, () => `w${Math.floor(next() ** 2 * 6000)}`).join(' '),
    url: '',
  }));
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The spill writer's index of `documents`: file path → base64. */
async function spilledIndex(
  documents: SearchDocument[],
  packReuse?: (folder: string) => PackReuse,
): Promise<Map<string, string>> {
  const scratchFolder = mkdtempSync(path.join(os.tmpdir(), 'search-edit-'));
  folders.push(scratchFolder);
  const files = new Map<string, string>();
  const options = { ...SMALL, scratchFolder, runPostings: 2000, ...(packReuse ? { packReuse } : {}) };
  await writeSearchIndexSpilling(documents, options, async (file, bytes) => {
    files.set(file, Buffer.from(bytes).toString('base64'));
  });
  return files;
}

/**
 * Pack reuse as the build has it, over the files of `previous` (a writing whose keys `previousKeys`
 * holds): a linked pack is copied into `linked`; this writing's keys go to `keys`.
 */
function reuseOver(
  previous: Map<string, string>,
  previousKeys: Map<string, string>,
  keys: Map<string, string>,
  linked: Map<string, string>,
) {
  return (folder: string): PackReuse => ({
    find: (key) => {
      const pack = previousKeys.get(`${folder}${key}`);
      return pack === undefined ? undefined : { path: pack, length: Buffer.from(previous.get(pack)!, 'base64').length };
    },
    link: async (pack) => {
      linked.set(pack, previous.get(pack)!);
    },
    made: (key, pack) => {
      keys.set(`${folder}${key}`, pack);
    },
  });
}

const keysOf = (document: SearchDocument) =>
  new Set(indexKeysOf(tokenize(`${document.title}\n${document.text}`), 'porter'));

describe('a one-document edit and the index', () => {
  it('rewrites only the packs and indexes of the edited document’s words and record', async () => {
    const documents = corpus(200);
    const edited = documents.map((document, number) =>
      number === 17 ? { ...document, text: `${document.text} quokka zyzzyva w5 w5 w12` } : document,
    );
    const before = await spilledIndex(documents);
    const after = await spilledIndex(edited);
    // Byte for byte what the reference writer writes from scratch.
    const reference = writeSearchIndex(edited, SMALL);
    expect(new Map(reference.files.map((file) => [file.path, Buffer.from(file.bytes).toString('base64')]))).toEqual(
      after,
    );

    const changed = [...after.keys()].filter((file) => before.get(file) !== after.get(file));
    const termPacks = [...after.keys()].filter((file) => file.includes('/terms/') && file.endsWith('.pack'));
    const changedTermPacks = changed.filter((file) => file.includes('/terms/') && file.endsWith('.pack'));
    const touchedKeys = new Set([...keysOf(documents[17]!), ...keysOf(edited[17]!)]);
    expect(termPacks.length).toBeGreaterThan(40);
    // At most one term pack per word of the document (several share a pack): with the exact
    // average length, the weights of other documents' postings moved too, and most packs with them.
    expect(changedTermPacks.length).toBeLessThanOrEqual(touchedKeys.size);
    // No title changed, but its excerpt source did, which its title block's pack holds: that pack
    // and its index.
    const changedTitles = changed.filter((file) => file.includes('/titles/'));
    expect(changedTitles.length).toBeLessThanOrEqual(2);
    // Its text fits in its excerpt source, which is its fetch record: no document pack changed, only
    // the documents indexes that point into that title pack (they name it by its content).
    const changedDocuments = changed.filter((file) => file.includes('/documents/'));
    const documentIndexes = [...after.keys()].filter((file) => file.includes('/documents/'));
    expect(documentIndexes.every((file) => file.endsWith('.idx'))).toBe(true);
    const packsOf = (file: string) => {
      const parsed = parseIndex(Buffer.from(after.get(file)!, 'base64'), file);
      if ('status' in parsed) throw new Error(parsed.reason);
      return [...parsed.packs].map((pack) => pack.path);
    };
    const pointingIn = documentIndexes.filter((file) => packsOf(file).some((pack) => changedTitles.includes(pack)));
    expect(changedDocuments.sort()).toEqual(pointingIn.sort());
  });

  it('links the title packs made from the blocks the previous writing made them from, writing the one edited', async () => {
    const documents = corpus(200);
    const edited = documents.map((document, number) =>
      number === 17 ? { ...document, text: `${document.text} quokka zyzzyva w5 w5 w12` } : document,
    );
    const firstKeys = new Map<string, string>();
    const first = await spilledIndex(documents, reuseOver(new Map(), new Map(), firstKeys, new Map()));
    // The same bytes as without reuse: deferring the records changes nothing written.
    expect(first).toEqual(await spilledIndex(documents));
    const titlePacks = [...first.keys()].filter((file) => file.includes('/titles/') && file.endsWith('.pack'));
    expect(titlePacks.length).toBeGreaterThan(3);
    expect([...firstKeys.values()].sort()).toEqual(titlePacks.sort());

    const keys = new Map<string, string>();
    const linked = new Map<string, string>();
    const written = await spilledIndex(edited, reuseOver(first, firstKeys, keys, linked));
    // Linked packs are not handed to writeFile: together with those written, the from-scratch index.
    expect(new Map([...written, ...linked])).toEqual(await spilledIndex(edited));
    expect([...linked.keys()].every((file) => !written.has(file))).toBe(true);
    const writtenTitlePacks = [...written.keys()].filter((file) => file.includes('/titles/') && file.endsWith('.pack'));
    expect(writtenTitlePacks).toHaveLength(1);
    expect(linked.size).toBe(titlePacks.length - 1);
    // The next writing finds every pack of this one by its key.
    expect(keys.size).toBe(titlePacks.length);
  });
});

describe('title packs keyed by their entries', () => {
  it('writes the packs of a retitled, a moved and a removed document, links the others: the from-scratch index', async () => {
    const documents = corpus(200);
    const firstKeys = new Map<string, string>();
    const first = await spilledIndex(documents, reuseOver(new Map(), new Map(), firstKeys, new Map()));
    // A new title, a new url (their texts unchanged) and a document gone, in three blocks far apart.
    const edited = documents
      .map((document, number) =>
        number === 17
          ? { ...document, title: 'Quokka handbook' }
          : number === 150
            ? { ...document, url: 'https://example.com/numbat' }
            : document,
      )
      .filter((_, number) => number !== 90);
    const keys = new Map<string, string>();
    const linked = new Map<string, string>();
    const written = await spilledIndex(edited, reuseOver(first, firstKeys, keys, linked));
    const fresh = await spilledIndex(edited);
    expect(new Map([...written, ...linked])).toEqual(fresh);

    const titlePacks = (files: Map<string, string>) =>
      [...files].filter(([file]) => file.includes('/titles/') && file.endsWith('.pack'));
    const holding = (text: string) =>
      titlePacks(written).filter(([, bytes]) => Buffer.from(bytes, 'base64').includes(text));
    expect(holding('"Quokka handbook"')).toHaveLength(1);
    expect(holding('"https://example.com/numbat"')).toHaveLength(1);
    // No pack, written or linked, still holds the old title or the removed document.
    const all = titlePacks(new Map([...written, ...linked]));
    const inAny = (files: [string, string][], text: string) =>
      files.some(([, bytes]) => Buffer.from(bytes, 'base64').includes(text));
    for (const gone of ['"Document 17"', '"Document 90"']) {
      expect(inAny(titlePacks(first), gone)).toBe(true);
      expect(inAny(all, gone)).toBe(false);
    }
    // Packs before the first change are linked: only those from a change on are written again
    // (a removal renumbers every block after it).
    expect(linked.size).toBeGreaterThan(0);
    expect(titlePacks(written).length).toBeLessThan(all.length);
  });

  it('writes the pack of a document retitled to a title of the same length, text and url as they were', async () => {
    const documents = corpus(200);
    const firstKeys = new Map<string, string>();
    const first = await spilledIndex(documents, reuseOver(new Map(), new Map(), firstKeys, new Map()));
    // Every length a block's key counts is the same: only the entry's digest tells the blocks apart.
    const edited = documents.map((document, number) =>
      number === 17 ? { ...document, title: 'Document 71' } : document,
    );
    const keys = new Map<string, string>();
    const linked = new Map<string, string>();
    const written = await spilledIndex(edited, reuseOver(first, firstKeys, keys, linked));
    expect(new Map([...written, ...linked])).toEqual(await spilledIndex(edited));
    const writtenTitlePacks = [...written.keys()].filter((file) => file.includes('/titles/') && file.endsWith('.pack'));
    expect(writtenTitlePacks).toHaveLength(1);
    expect(Buffer.from(written.get(writtenTitlePacks[0]!)!, 'base64').includes('"Document 71"')).toBe(true);
  });
});
