// The search index's reuse record (src/builder/search-index-reuse.ts): the previous index is
// offered only when the record is intact, names only files below packs/search.index/ that the
// extension needs, and each is still in the output folder untouched; the documents digest does not
// depend on the order documents arrive in (calls finish in any order), but on each of their fields.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readReusableSearchIndex,
  recordSearchIndex,
  SearchDocumentsDigest,
  type SearchIndexOutcome,
} from '../../src/builder/search-index-reuse.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const GENERATOR = 'staticmcp test';
const PACK = 'packs/search.index/terms/aaaa.pack';
const INDEX = 'packs/search.index/terms/bbbb.idx';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function outcomeOf(files: { path: string; content: string }[], index = INDEX): SearchIndexOutcome {
  return {
    inputs: 'inputs-1',
    documents: 'documents-1',
    skipped: 0,
    extension: {
      format: 1,
      documentCount: 1,
      tokenCount: 1,
      blockSize: 32,
      terms: [{ first: '00', index }],
      titles: [],
      documents: [],
    },
    files: files.map((file) => ({ path: file.path, sha256: sha256(file.content) })),
    reused: false,
  };
}

async function indexedTree(): Promise<{ project: string; out: string }> {
  const project = await temporaryFolder('staticmcp-search-reuse-');
  const out = path.join(project, 'dist');
  await fs.mkdir(path.join(out, 'packs/search.index/terms'), { recursive: true });
  await fs.writeFile(path.join(out, PACK), 'pack bytes');
  await fs.writeFile(path.join(out, INDEX), 'index bytes');
  await fs.writeFile(path.join(out, 'mcp.json'), '{}');
  return { project, out };
}

const files = [
  { path: INDEX, content: 'index bytes' },
  { path: PACK, content: 'pack bytes' },
];

describe('the search index of the previous build', () => {
  it('is offered for the same output folder and generator while its files are untouched', async () => {
    const { project, out } = await indexedTree();
    await recordSearchIndex(project, out, GENERATOR, outcomeOf(files), false);
    const previous = await readReusableSearchIndex(project, out, GENERATOR);
    expect(previous?.documents).toBe('documents-1');
    expect(previous?.files.map((file) => file.path)).toEqual([INDEX, PACK]);
    expect(await readReusableSearchIndex(project, `${out}2`, GENERATOR)).toBeUndefined();
    expect(await readReusableSearchIndex(project, out, 'other')).toBeUndefined();
    await fs.appendFile(path.join(out, PACK), '!');
    expect(await readReusableSearchIndex(project, out, GENERATOR)).toBeUndefined();
  });

  it('is never offered from a record naming files outside the index, or missing a file the extension names', async () => {
    const { project, out } = await indexedTree();
    // Recorded by the module itself, so the record's own check is valid: only the paths are wrong.
    await recordSearchIndex(project, out, GENERATOR, outcomeOf([...files, { path: 'mcp.json', content: '{}' }]), false);
    expect(await readReusableSearchIndex(project, out, GENERATOR)).toBeUndefined();
    await recordSearchIndex(project, out, GENERATOR, outcomeOf([{ path: PACK, content: 'pack bytes' }]), false);
    expect(await readReusableSearchIndex(project, out, GENERATOR)).toBeUndefined();
    await recordSearchIndex(project, out, GENERATOR, outcomeOf(files, 'mcp.json'), false);
    expect(await readReusableSearchIndex(project, out, GENERATOR)).toBeUndefined();
  });

  it('is not recorded when the folder does not hold the bytes the build wrote (verifyContent), nor without an index', async () => {
    const { project, out } = await indexedTree();
    const record = path.join(project, '.staticmcp/search-index.json');
    await recordSearchIndex(project, out, GENERATOR, outcomeOf(files), true);
    expect(await readReusableSearchIndex(project, out, GENERATOR)).toBeDefined();
    await fs.writeFile(path.join(out, PACK), 'pack BYTES');
    await recordSearchIndex(project, out, GENERATOR, outcomeOf(files), true);
    await expect(fs.access(record)).rejects.toThrow();
    await recordSearchIndex(project, out, GENERATOR, outcomeOf([{ path: INDEX, content: 'index bytes' }]), false);
    await recordSearchIndex(project, out, GENERATOR, undefined, false);
    await expect(fs.access(record)).rejects.toThrow();
  });
});

describe('the documents digest', () => {
  const documents = [
    { id: 'resources/a.json', title: 'A', text: 'alpha', url: '', metadata: { uri: 'file:///a' } },
    { id: 'resources/b.json', title: 'B', text: 'beta', url: '' },
    { id: 'tools/t/c.json', title: 'C', text: 'gamma', url: 'https://x.example/tools/t/c.json' },
  ];
  const digestOf = (list: typeof documents, identity = 'writer') => {
    const digest = new SearchDocumentsDigest(identity);
    for (const document of list) digest.add(document);
    return digest.digest();
  };

  it('is the same in any order, and differs for any changed field, a missing document or another writer', () => {
    const base = digestOf(documents);
    expect(digestOf([...documents].reverse())).toBe(base);
    expect(digestOf(documents.slice(1))).not.toBe(base);
    expect(digestOf([...documents, documents[0]!])).not.toBe(base);
    expect(digestOf(documents, 'writer 2')).not.toBe(base);
    for (const field of ['id', 'title', 'text', 'url'] as const)
      expect(digestOf([{ ...documents[0]!, [field]: 'changed' }, ...documents.slice(1)]), field).not.toBe(base);
    expect(digestOf([{ ...documents[0]!, metadata: { uri: 'file:///z' } }, ...documents.slice(1)])).not.toBe(base);
  });
});
