// The search index's reuse record (src/builder/search-index-reuse.ts): the previous index is
// offered only when the record is intact, names only files below packs/search.index/ that the
// extension needs, and each is still in the output folder untouched; the inputs digest follows
// what the document lister reads, and nothing else of the manifest.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isDocumentFile,
  readReusableSearchIndex,
  recordSearchIndex,
  type SearchIndexOutcome,
  searchInputsDigest,
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
    skipped: 0,
    extension: {
      format: 6,
      stemming: 'porter',
      documentCount: 1,
      tokenCount: 1,
      blockSize: 32,
      terms: [{ first: '00', index }],
      titles: [],
      documents: [],
      termPacks: '',
      titlePacks: '',
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
    expect(previous?.inputs).toBe('inputs-1');
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

  // The build's CLI test (test/build/search-reuse.test.ts) shows one damage and one edit end to end.
  it('is not offered once a file of it was touched, overwritten, removed or swapped for a copy of itself', async () => {
    const damages: [string, (file: string) => Promise<void>][] = [
      ['touched', async (file) => fs.utimes(file, new Date(), new Date(Date.now() + 5_000))],
      ['overwritten with stray bytes', async (file) => fs.appendFile(file, 'stray bytes')],
      ['removed', async (file) => fs.rm(file)],
      [
        'swapped for a copy of itself',
        async (file) => {
          await fs.copyFile(file, `${file}.copy`);
          await fs.rename(`${file}.copy`, file);
        },
      ],
    ];
    for (const [damage, apply] of damages) {
      const { project, out } = await indexedTree();
      await recordSearchIndex(project, out, GENERATOR, outcomeOf(files), false);
      expect(await readReusableSearchIndex(project, out, GENERATOR), damage).toBeDefined();
      await apply(path.join(out, PACK));
      expect(await readReusableSearchIndex(project, out, GENERATOR), damage).toBeUndefined();
    }
  });

  it('is not offered from a record that is garbage or edited, and is again once the record is restored', async () => {
    const { project, out } = await indexedTree();
    const record = path.join(project, '.staticmcp/search-index.json');
    await recordSearchIndex(project, out, GENERATOR, outcomeOf(files), false);
    const intact = await fs.readFile(record, 'utf8');
    const edits: [string, string][] = [
      ['garbage', '\u0000not json{'],
      ['an empty object', '{}'],
      [
        'a file outside the index',
        intact.replace(/"path":"packs\/search\.index\/[^"]*"/, '"path":"../../outside.pack"'),
      ],
      ['another extension', intact.replace(/"documentCount":\d+/, '"documentCount":99')],
      ['another digest', intact.replace(/"inputs":"[0-9a-z]/, '"inputs":"z')],
    ];
    for (const [edit, text] of edits) {
      expect(text, edit).not.toEqual(intact);
      await fs.writeFile(record, text);
      expect(await readReusableSearchIndex(project, out, GENERATOR), edit).toBeUndefined();
      await fs.writeFile(record, intact);
      expect(await readReusableSearchIndex(project, out, GENERATOR), edit).toBeDefined();
    }
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

describe('the inputs digest', () => {
  const settings = { resources: true, tools: { wiki: {} } };
  const manifest = {
    capabilities: {
      tools: [
        { name: 'wiki', description: 'Articles', inputSchema: { properties: { title: {} } } },
        { name: 'greet', description: 'Hello', inputSchema: { properties: { name: {} } } },
      ],
      resources: [{ uri: 'file:///guide.md', name: 'guide.md' }],
      prompts: [{ name: 'explain' }],
    },
    instructions: 'Use wiki.',
    staticmcp: {
      profileVersion: 1,
      tools: { wiki: { parameterOrder: ['title'] }, greet: { parameterOrder: ['name'] } },
    },
  };
  const digestOf = (changed: Record<string, unknown>, files = 'files-1', identity = 'writer') =>
    searchInputsDigest(identity, { ...manifest, ...changed }, settings, files);
  const base = digestOf({});

  it('ignores what the lister does not read: prompts, instructions, tools that are not indexed', () => {
    expect(digestOf({ instructions: 'Other.' })).toBe(base);
    expect(digestOf({ capabilities: { ...manifest.capabilities, prompts: [] } })).toBe(base);
    const greet = { name: 'greet', description: 'Hi there', inputSchema: { properties: { who: {} } } };
    expect(
      digestOf({ capabilities: { ...manifest.capabilities, tools: [manifest.capabilities.tools[0], greet] } }),
    ).toBe(base);
    expect(
      digestOf({
        staticmcp: { ...manifest.staticmcp, tools: { ...manifest.staticmcp.tools, greet: { parameterOrder: [] } } },
      }),
    ).toBe(base);
  });

  it('changes with the document files, the resource list, an indexed tool, the writer', () => {
    expect(digestOf({}, 'files-2')).not.toBe(base);
    expect(digestOf({}, 'files-1', 'writer 2')).not.toBe(base);
    expect(digestOf({ capabilities: { ...manifest.capabilities, resources: [] } })).not.toBe(base);
    const wiki = { name: 'wiki', description: 'Articles', inputSchema: { properties: { article: {} } } };
    expect(
      digestOf({ capabilities: { ...manifest.capabilities, tools: [wiki, manifest.capabilities.tools[1]] } }),
    ).not.toBe(base);
    expect(digestOf({ staticmcp: { ...manifest.staticmcp, tools: { wiki: { parameterOrder: ['x'] } } } })).not.toBe(
      base,
    );
  });

  it("counts as document files those below resources/ and the indexed tools' call files", () => {
    const isDocument = isDocumentFile(settings);
    expect(['resources/guide_md.json', 'tools/wiki/Paris.json', 'tools/wiki.json'].every(isDocument)).toBe(true);
    expect(
      ['tools/greet/Ada.json', 'mcp.json', 'prompts/explain.json', 'packs/search.index/a.pack'].some(isDocument),
    ).toBe(false);
  });
});
