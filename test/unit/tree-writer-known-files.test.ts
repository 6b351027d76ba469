// A tree writer given the previous build's record of a file (its digest and identity:
// known-previous-files.ts) leaves that file in place when the new content has the recorded digest
// and the file is still the one recorded; a file touched since the record, or whose mode is no
// longer the writer's, is judged by its bytes as without a record, so a stale record never keeps
// wrong bytes or a hand-set permission in the new tree.
import { createHash } from 'node:crypto';
import { promises as fs, lstatSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import type { KnownFile } from '../../src/tree-writer/known-previous-files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function writeTree(out: string, files: Record<string, string>, known: KnownFile[] = []): Promise<void> {
  const writer = await TreeWriter.open(out);
  writer.knownPrevious.add(known);
  for (const [file, content] of Object.entries(files)) await writer.write(file, content);
  await writer.commit();
}

/** The record a build keeps of the tree file `relativePath`, claiming `content`'s digest. */
function recordOf(out: string, relativePath: string, content: string): KnownFile {
  const stats = lstatSync(path.join(out, relativePath), { bigint: true });
  return {
    path: relativePath,
    sha256: createHash('sha256').update(content).digest('hex'),
    inode: String(stats.ino),
    size: Number(stats.size),
    mtimeNs: String(stats.mtimeNs),
  };
}

describe('a tree writer with a record of the previous tree', () => {
  it('leaves a recorded, untouched file with the same digest in place', async () => {
    const out = path.join(await temporaryFolder('staticmcp-known-'), 'dist');
    await writeTree(out, { 'packs/a.idx': 'same\n', 'packs/b.idx': 'old\n' });
    const inode = (await fs.stat(path.join(out, 'packs/a.idx'))).ino;
    const known = [recordOf(out, 'packs/a.idx', 'same\n'), recordOf(out, 'packs/b.idx', 'old\n')];
    await writeTree(out, { 'packs/a.idx': 'same\n', 'packs/b.idx': 'new\n' }, known);
    expect((await fs.stat(path.join(out, 'packs/a.idx'))).ino).toBe(inode);
    expect(await fs.readFile(path.join(out, 'packs/b.idx'), 'utf8')).toBe('new\n');
  });

  it('writes the new bytes over a file rewritten since its record, whatever the record claims', async () => {
    const out = path.join(await temporaryFolder('staticmcp-known-'), 'dist');
    await writeTree(out, { 'packs/a.idx': 'same\n' });
    const known = [recordOf(out, 'packs/a.idx', 'same\n')];
    // Same size, other bytes, a later mtime: the record no longer describes the file.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fs.writeFile(path.join(out, 'packs/a.idx'), 'SAME\n');
    await writeTree(out, { 'packs/a.idx': 'same\n' }, known);
    expect(await fs.readFile(path.join(out, 'packs/a.idx'), 'utf8')).toBe('same\n');
  });

  it('rewrites a recorded file whose mode was changed since (a chmod keeps its mtime)', async () => {
    const out = path.join(await temporaryFolder('staticmcp-known-'), 'dist');
    await writeTree(out, { 'packs/a.idx': 'same\n' });
    const known = [recordOf(out, 'packs/a.idx', 'same\n')];
    const inode = (await fs.stat(path.join(out, 'packs/a.idx'))).ino;
    await fs.chmod(path.join(out, 'packs/a.idx'), 0o600);
    await writeTree(out, { 'packs/a.idx': 'same\n' }, known);
    const file = await fs.stat(path.join(out, 'packs/a.idx'));
    expect(file.ino).not.toBe(inode);
    expect(file.mode & 0o777).toBe(0o644);
    expect(await fs.readFile(path.join(out, 'packs/a.idx'), 'utf8')).toBe('same\n');
  });

  it('ignores records that are not well formed', async () => {
    const out = path.join(await temporaryFolder('staticmcp-known-'), 'dist');
    await writeTree(out, { 'packs/a.idx': 'old\n' });
    const broken = [{ path: 'packs/a.idx', sha256: 7 }, null] as unknown as KnownFile[];
    await writeTree(out, { 'packs/a.idx': 'new\n' }, broken);
    expect(await fs.readFile(path.join(out, 'packs/a.idx'), 'utf8')).toBe('new\n');
  });
});
