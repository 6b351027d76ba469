// `index` and `merge` after a run killed between the two renames of its tree swap: the previous
// tree, parked beside the output folder, is put back before they read or replace it, and their
// reports say so (the CLI prints each note on stderr, as a build does).
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProject } from '../../src/builder/build-project.js';
import { indexTree } from '../../src/index-tree/index-tree.js';
import { mergeParts } from '../../src/merge/merge-parts.js';
import { OLD_MARK } from '../../src/tree-writer/swap-folders.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const RESTORED = 'restored the previous tree that an interrupted build left at';

async function makeContentProject(): Promise<string> {
  const project = await temporaryFolder('recovered-trees-');
  await fs.mkdir(path.join(project, 'resources'));
  for (const name of ['one', 'two', 'three'])
    await fs.writeFile(path.join(project, 'resources', `${name}.md`), `# Page ${name}\n\nText of page ${name}.\n`);
  return project;
}

/** Moves `tree` where a swap killed between its renames leaves it, under a pid no longer running. */
async function parkAsInterrupted(tree: string): Promise<void> {
  await fs.rename(tree, `${tree}${OLD_MARK}${spawnSync('true').pid}`);
}

describe('a tree parked by a run killed mid-swap', () => {
  it('is put back by index, which then indexes it in place and says so', async () => {
    const project = await makeContentProject();
    const tree = path.join(project, 'dist');
    expect((await buildProject({ projectRoot: project, outDir: tree })).failures).toEqual([]);
    await parkAsInterrupted(tree);

    const report = await indexTree({ tree, tools: [] });
    expect(report.recovered).toEqual([expect.stringContaining(`${RESTORED} dist${OLD_MARK}`)]);
    expect(report.documents).toBe(3);
    expect(await fs.readdir(project)).not.toContainEqual(expect.stringContaining(OLD_MARK));
  }, 60_000);

  it('is put back by merge before the merged tree replaces it, and merge says so', async () => {
    const project = await makeContentProject();
    const parts: string[] = [];
    for (const index of [1, 2]) {
      const part = path.join(project, `part-${index}`);
      const report = await buildProject({ projectRoot: project, outDir: part, shard: { index, count: 2 } });
      expect(report.failures).toEqual([]);
      parts.push(part);
    }
    const out = path.join(project, 'merged');
    await mergeParts({ parts, outDir: out });
    await parkAsInterrupted(out);

    const report = await mergeParts({ parts, outDir: out });
    expect(report.recovered).toEqual([expect.stringContaining(`${RESTORED} merged${OLD_MARK}`)]);
    expect(JSON.parse(await fs.readFile(path.join(out, 'mcp.json'), 'utf8')).capabilities.resources).toHaveLength(3);
    expect(await fs.readdir(project)).not.toContainEqual(expect.stringContaining(OLD_MARK));
  }, 60_000);
});
