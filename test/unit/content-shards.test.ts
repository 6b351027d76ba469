// Content builds shard like call builds (issue #39), in-process: a project of Markdown and text
// resources and a built website's pages, with search on, past the inline list and the file budget
// (so the list has parts and the resources are packed), built whole and as 2 shards. Each part
// holds only its own documents' files; the merge gives the one-machine tree byte for byte (packs,
// list parts, llms.txt and llms-full.txt, the search index), which check passes; it refuses a
// document found in two parts and a missing part.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/builder/build-project.js';
import { checkTree } from '../../src/check/check-tree.js';
import { listTreeFiles } from '../../src/check/list-tree-files.js';
import { ManifestPackedSource } from '../../src/core/packs/manifest-packed-source.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { mergeParts } from '../../src/merge/merge-parts.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { RESOURCE_FILES_IN_MARGIN_VARIABLE } from '../../src/builder/host-limits.js';

/** Past the 40 resource files this file lets a tree keep plain (500 without the test hook), counting raw names. */
const DOCUMENTS = 60;
const RESOURCE_FILES_IN_MARGIN = '40';
/** The first ones are Markdown (titles, summaries); the rest plain text, cheaper to build 4 times. */
const MARKDOWN = 10;
const SHARDS = 2;
const SITE = path.join(import.meta.dirname, '..', 'fixtures', 'site-project', 'public');

const documentText = (index: number) =>
  `# Page ${index}\n\nThe summary of page ${index}.\n\n## Details\n\n- marker word zq${index}x\n- ${'filler '.repeat(index % 7)}\n`;

/** Every file of a tree → the sha256 of its bytes. */
async function digestTree(root: string): Promise<Map<string, string>> {
  const { files } = await listTreeFiles(root);
  const digests = new Map<string, string>();
  for (const file of files.sort())
    digests.set(
      file,
      createHash('sha256')
        .update(await fs.readFile(path.join(root, file)))
        .digest('hex'),
    );
  return digests;
}

let project: string;
let whole: string;
let parts: string[];
/** The hook's value before this file set it, put back after it. */
let marginBefore: string | undefined;

beforeAll(async () => {
  marginBefore = process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE];
  process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE] = RESOURCE_FILES_IN_MARGIN;
  project = await temporaryFolder('content-shards-');
  await fs.mkdir(path.join(project, 'resources', 'guide'), { recursive: true });
  for (let index = 0; index < DOCUMENTS; index++)
    await fs.writeFile(
      path.join(
        project,
        'resources',
        index % 3 === 0 ? 'guide' : '',
        `page-${index}.${index < MARKDOWN ? 'md' : 'txt'}`,
      ),
      documentText(index),
    );
  await fs.cp(SITE, path.join(project, 'public'), { recursive: true });
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({
      site: 'public',
      search: true,
      publicUrl: 'https://docs.example.org',
      // Small enough that llms-full.txt leaves documents out (the merge must cut it where the build does).
      limits: { resourcesInManifest: 10, resourcesPerListPart: 20, maxCallFiles: 10, maxLlmsFullBytes: 2000 },
    }),
  );
  whole = path.join(project, 'whole');
  const report = await buildProject({ projectRoot: project, outDir: whole });
  expect(report.failures).toEqual([]);
  parts = [];
  for (let index = 1; index <= SHARDS; index++) {
    const part = path.join(project, `part-${index}`);
    const shardReport = await buildProject({ projectRoot: project, outDir: part, shard: { index, count: SHARDS } });
    expect(shardReport.failures).toEqual([]);
    parts.push(part);
  }
}, 60_000);

afterAll(() => {
  if (marginBefore === undefined) delete process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE];
  else process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE] = marginBefore;
});

describe('a content project built whole and as 2 shards', () => {
  it('splits the documents over the parts, each resource file in one part, its raw name beside it', async () => {
    const listed = await Promise.all(parts.map((part) => listTreeFiles(part)));
    const documentFiles = listed.map(({ files }) => files.filter((file) => file.startsWith('resources/')));
    // Every resource has its encoded file and its raw name (page-1_md.json, page-1.md.json).
    expect(documentFiles.flat().length).toBeGreaterThanOrEqual(DOCUMENTS * 2);
    expect(new Set(documentFiles.flat()).size).toBe(documentFiles.flat().length);
    // A stable hash splits them about evenly: no part holds them all.
    for (const files of documentFiles) {
      expect(files.length).toBeGreaterThan(documentFiles.flat().length / 4);
      expect(files.length).toBeLessThan((documentFiles.flat().length * 3) / 4);
    }
    for (const [index, files] of documentFiles.entries())
      for (const file of files.filter((name) => /\.(md|txt)\.json$/.test(name)))
        expect(files, `part ${index + 1}`).toContain(file.replace(/\.(md|txt)\.json$/, '_$1.json'));
    // The shared files stay shard 1's: the manifest and its list parts, the site's own files.
    expect(listed[0]!.files).toContain('mcp.json');
    expect(listed[0]!.files.some((file) => file.startsWith('lists/resources/'))).toBe(true);
    expect(listed[0]!.files).toContain('style.css');
    for (const { files } of listed.slice(1))
      expect(files.filter((file) => !file.startsWith('resources/'))).toEqual(['staticmcp-shard.json']);
  });

  it('merges into the one-machine tree byte for byte: packs, list parts, llms files and index', async () => {
    const merged = path.join(project, 'merged');
    const report = await mergeParts({ parts, outDir: merged });
    expect(report.failures).toEqual([]);
    const [wholeTree, mergedTree] = [await digestTree(whole), await digestTree(merged)];
    expect([...mergedTree.keys()]).toEqual([...wholeTree.keys()]);
    for (const [file, digest] of wholeTree) expect(mergedTree.get(file), file).toBe(digest);
    // What the comparison covers: packed resources, list parts, llms files cut short, a search index.
    const files = [...wholeTree.keys()];
    expect(files.some((file) => file.startsWith('packs/resources.files/'))).toBe(true);
    expect(files.some((file) => file.startsWith('lists/resources/'))).toBe(true);
    expect(files.some((file) => file.startsWith('packs/search.index/'))).toBe(true);
    expect(files).toEqual(expect.arrayContaining(['llms.txt', 'llms-full.txt', 'staticmcp.html', 'about.html']));
    expect(report.warnings.map((warning) => warning.message).join('\n')).toMatch(/leaves out \d+ documents/);
    const packFiles = new FolderPackFiles(merged);
    const checked = await checkTree({
      source: new ManifestPackedSource(new FolderSource(merged, 'tree'), packFiles),
      files: (await listTreeFiles(merged)).files,
      packFiles,
    });
    expect(checked.problems).toEqual([]);
  });

  it('refuses a document found in two parts, and a missing part', async () => {
    const [first, second] = parts as [string, string];
    const { files } = await listTreeFiles(second);
    const moved = files.find((file) => file.startsWith('resources/'))!;
    // A document of shard 2 also in shard 1's part (an artifact that picked up another's file).
    const widened = path.join(project, 'part-1-with-more');
    await fs.cp(first, widened, { recursive: true });
    await fs.mkdir(path.dirname(path.join(widened, moved)), { recursive: true });
    await fs.copyFile(path.join(second, moved), path.join(widened, moved));
    await expect(mergeParts({ parts: [widened, second], outDir: path.join(project, 'refused') })).rejects.toMatchObject(
      {
        code: 'PARTS_OVERLAP',
        message: expect.stringContaining(`the document file ${moved}`),
      },
    );
    await expect(mergeParts({ parts: [first], outDir: path.join(project, 'refused') })).rejects.toMatchObject({
      code: 'PART_MISSING',
    });
  });
});
