// The hard-linking `staticmcp dev` asks of the tree writer for its rebuilds (one TreeFileReuse for
// the session, given to every build): unchanged files are linked from the previous tree, changed
// ones written, and a file someone touched in the output is never carried over, whatever its content.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeFileReuse } from '../../src/tree-writer/file-reuse.js';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function inode(file: string): Promise<number> {
  return (await fs.lstat(file)).ino;
}

/** What a build does with its writer: open it (with dev's reuse), write every file, swap it in. */
async function writeTree(out: string, files: Record<string, string>, reuse?: TreeFileReuse): Promise<void> {
  const writer = await TreeWriter.open(out, { reuse });
  for (const [file, content] of Object.entries(files)) await writer.write(file, content);
  await writer.commit();
}

describe('the tree writer with dev file reuse', () => {
  it('links unchanged files, writes changed ones, and never links a file edited in the output', async () => {
    const root = await temporaryFolder('staticmcp-reuse-');
    const out = path.join(root, 'dist');
    // A tree this reuse did not write: files are compared by content.
    await writeTree(out, { 'mcp.json': '{}', 'tools/a.json': 'A1', 'tools/b.json': 'B1' });
    const reuse = new TreeFileReuse();
    const firstA = await inode(path.join(out, 'tools/a.json'));
    await writeTree(out, { 'mcp.json': '{}', 'tools/a.json': 'A1', 'tools/b.json': 'B2' }, reuse);
    expect(await inode(path.join(out, 'tools/a.json'))).toBe(firstA);
    expect(await fs.readFile(path.join(out, 'tools/b.json'), 'utf8')).toBe('B2');

    // Recorded by this reuse now: an edit in place (same size) must not be linked into the next tree.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fs.writeFile(path.join(out, 'tools/a.json'), 'XX');
    await writeTree(out, { 'mcp.json': '{"v":2}', 'tools/a.json': 'A1', 'tools/c.json': 'C1' }, reuse);
    expect(await fs.readFile(path.join(out, 'tools/a.json'), 'utf8')).toBe('A1');
    expect(await fs.readdir(path.join(out, 'tools'))).toEqual(['a.json', 'c.json']);
    expect(await fs.readFile(path.join(out, 'mcp.json'), 'utf8')).toBe('{"v":2}');
    // Nothing is left beside the output folder.
    expect(await fs.readdir(root)).toEqual(['dist']);
  });

  it('still knows the tree in place after a write it dropped (a failed rebuild)', async () => {
    const root = await temporaryFolder('staticmcp-reuse-');
    const out = path.join(root, 'dist');
    const reuse = new TreeFileReuse();
    await writeTree(out, { 'tools/a.json': 'A1', 'tools/b.json': 'B1' }, reuse);
    const first = { a: await inode(path.join(out, 'tools/a.json')), b: await inode(path.join(out, 'tools/b.json')) };
    const dropped = await TreeWriter.open(out, { reuse });
    await dropped.write('tools/a.json', 'A2');
    await dropped.discard();
    // Touched with the same bytes: only the record of the committed write can tell.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fs.writeFile(path.join(out, 'tools/a.json'), 'A1');
    await writeTree(out, { 'tools/a.json': 'A1', 'tools/b.json': 'B1' }, reuse);
    expect(await inode(path.join(out, 'tools/b.json'))).toBe(first.b);
    expect(await inode(path.join(out, 'tools/a.json'))).not.toBe(first.a);
    expect(await fs.readFile(path.join(out, 'tools/a.json'), 'utf8')).toBe('A1');
    expect(await fs.readdir(root)).toEqual(['dist']);
  });
});
