// The hard-linking `staticmcp dev` switches on for its rebuilds: unchanged files are linked from
// the previous tree, changed ones written, and a file someone touched in the output is never
// carried over, whatever its content.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reuseUnchangedTreeFiles, writeTreeAtomically } from '../../src/tree-writer/write-tree.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function inode(file: string): Promise<number> {
  return (await fs.lstat(file)).ino;
}

describe('writeTreeAtomically with reuse', () => {
  it('links unchanged files, writes changed ones, and never links a file edited in the output', async () => {
    const root = await temporaryFolder('staticmcp-reuse-');
    const out = path.join(root, 'dist');
    // A tree this process did not write: files are compared by content.
    await writeTreeAtomically(
      out,
      new Map([
        ['mcp.json', '{}'],
        ['tools/a.json', 'A1'],
        ['tools/b.json', 'B1'],
      ]),
    );
    reuseUnchangedTreeFiles();
    const firstA = await inode(path.join(out, 'tools/a.json'));
    await writeTreeAtomically(
      out,
      new Map([
        ['mcp.json', '{}'],
        ['tools/a.json', 'A1'],
        ['tools/b.json', 'B2'],
      ]),
    );
    expect(await inode(path.join(out, 'tools/a.json'))).toBe(firstA);
    expect(await fs.readFile(path.join(out, 'tools/b.json'), 'utf8')).toBe('B2');

    // Recorded by this process now: an edit in place (same size) must not be linked into the next tree.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fs.writeFile(path.join(out, 'tools/a.json'), 'XX');
    await writeTreeAtomically(
      out,
      new Map([
        ['mcp.json', '{"v":2}'],
        ['tools/a.json', 'A1'],
        ['tools/c.json', 'C1'],
      ]),
    );
    expect(await fs.readFile(path.join(out, 'tools/a.json'), 'utf8')).toBe('A1');
    expect(await fs.readdir(path.join(out, 'tools'))).toEqual(['a.json', 'c.json']);
    expect(await fs.readFile(path.join(out, 'mcp.json'), 'utf8')).toBe('{"v":2}');
    // Nothing is left beside the output folder.
    expect(await fs.readdir(root)).toEqual(['dist']);
  });
});
