// A tree written over a previous one leaves the files that did not change where they are (linked
// into the new tree at the swap instead of written again): a rebuild of an unchanged project
// writes almost nothing. What changed is written; a file whose mode is not the writer's is written
// again rather than linked, so the new tree never inherits a permission someone set by hand, and
// nothing is linked through a symlinked folder (it would tie the tree to a file outside it).
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function writeTree(out: string, files: Record<string, string>): Promise<void> {
  const writer = await TreeWriter.open(out);
  for (const [file, content] of Object.entries(files)) await writer.write(file, content);
  await writer.commit();
}

describe('a tree written over the previous one', () => {
  it('keeps unchanged files (same inode), writes changed ones, and rewrites a file of another mode', async () => {
    const out = path.join(await temporaryFolder('staticmcp-unchanged-'), 'dist');
    await writeTree(out, { 'tools/a.json': 'same\n', 'tools/b.json': 'old\n', 'tools/c.json': 'same too\n' });
    const before = {
      a: (await fs.stat(path.join(out, 'tools/a.json'))).ino,
      c: (await fs.stat(path.join(out, 'tools/c.json'))).ino,
    };
    await fs.chmod(path.join(out, 'tools/c.json'), 0o600);
    await writeTree(out, { 'tools/a.json': 'same\n', 'tools/b.json': 'new\n', 'tools/c.json': 'same too\n' });
    expect((await fs.stat(path.join(out, 'tools/a.json'))).ino).toBe(before.a);
    expect(await fs.readFile(path.join(out, 'tools/b.json'), 'utf8')).toBe('new\n');
    const c = await fs.stat(path.join(out, 'tools/c.json'));
    expect(c.ino).not.toBe(before.c);
    expect(c.mode & 0o777).toBe(0o644);
    expect((await fs.readdir(path.dirname(out))).sort()).toEqual(['dist']);
  });

  it('never links a file reached through a symlinked folder of the output folder', async () => {
    const parent = await temporaryFolder('staticmcp-unchanged-');
    const outside = path.join(parent, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'a.json'), 'same\n', { mode: 0o644 });
    const out = path.join(parent, 'dist');
    await fs.mkdir(out);
    await fs.symlink(outside, path.join(out, 'tools'));
    await writeTree(out, { 'tools/a.json': 'same\n' });
    const published = await fs.lstat(path.join(out, 'tools/a.json'));
    expect((await fs.lstat(path.join(out, 'tools'))).isDirectory()).toBe(true);
    expect(published.ino).not.toBe((await fs.stat(path.join(outside, 'a.json'))).ino);
    expect(await fs.readFile(path.join(outside, 'a.json'), 'utf8')).toBe('same\n');
  });

  it('writes a file over a symlink or a FIFO of the previous tree (neither is followed, the FIFO never blocks)', async () => {
    const parent = await temporaryFolder('staticmcp-unchanged-');
    const outside = path.join(parent, 'outside.json');
    await fs.writeFile(outside, 'same\n', { mode: 0o644 });
    const out = path.join(parent, 'dist');
    await writeTree(out, { 'tools/a.json': 'same\n', 'tools/b.json': 'same\n' });
    await fs.rm(path.join(out, 'tools/a.json'));
    await fs.symlink(outside, path.join(out, 'tools/a.json'));
    await fs.rm(path.join(out, 'tools/b.json'));
    execFileSync('mkfifo', ['-m', '644', path.join(out, 'tools/b.json')]);
    await writeTree(out, { 'tools/a.json': 'same\n', 'tools/b.json': 'same\n' });
    for (const name of ['a.json', 'b.json']) {
      const published = await fs.lstat(path.join(out, 'tools', name));
      expect(published.isFile()).toBe(true);
      expect(published.ino).not.toBe((await fs.stat(outside)).ino);
      expect(await fs.readFile(path.join(out, 'tools', name), 'utf8')).toBe('same\n');
    }
  });
});
