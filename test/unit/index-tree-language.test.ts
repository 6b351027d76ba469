// `staticmcp index --language` (issue #40): the index stems as a build with that search.language
// does; without the option, a tree re-indexed keeps the stemming its own index had.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProject } from '../../src/builder/build-project.js';
import { indexTree } from '../../src/index-tree/index-tree.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function searchOf(tree: string): Promise<Record<string, unknown>> {
  const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
  return manifest.staticmcp.search;
}

describe('staticmcp index --language', () => {
  it('indexes unstemmed for another language, and keeps that when run again without it', async () => {
    const project = await temporaryFolder();
    await fs.mkdir(path.join(project, 'resources'));
    await fs.writeFile(path.join(project, 'resources', 'sums.md'), '# Sums\n\nEvery checksum is verified.\n');
    const tree = path.join(project, 'dist');
    expect((await buildProject({ projectRoot: project, outDir: tree })).failures).toEqual([]);
    expect((await searchOf(tree)).stemming).toBe('porter');

    await indexTree({ tree, tools: [], language: 'de' });
    expect((await searchOf(tree)).stemming).toBe('none');
    await indexTree({ tree, tools: [] });
    expect((await searchOf(tree)).stemming).toBe('none');
    await indexTree({ tree, tools: [], language: 'en' });
    expect((await searchOf(tree)).stemming).toBe('porter');
  }, 60_000);
});
