// A deferred file (tree-writer.ts writeDeferred: an unchanged document's resource file, known by
// its digest and size) that is written out at the swap stays where the previous tree has it when
// that file holds bytes of the recorded digest, and its bytes are then never made (no read of the
// source); a previous file with other bytes of the same size, another mode, or a symlink gets the
// bytes made and written, so the new tree is always what a full write gives.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const FILE = 'resources/a.json';
const CONTENT = '{\n  "uri": "resource://a.md",\n  "text": "alpha"\n}\n';

async function previousTree(content: string): Promise<string> {
  const out = path.join(await temporaryFolder('staticmcp-deferred-'), 'dist');
  const writer = await TreeWriter.open(out);
  await writer.write(FILE, content);
  await writer.write('mcp.json', '{}\n');
  await writer.commit();
  return out;
}

/** Writes FILE as a deferred file of CONTENT over `out`; returns how often its bytes were made. */
async function writeDeferredTree(out: string): Promise<number> {
  let made = 0;
  const writer = await TreeWriter.open(out);
  writer.setDeferredSource(() => {
    made += 1;
    return Buffer.from(CONTENT);
  });
  const digest = createHash('sha256').update(CONTENT).digest();
  writer.writeDeferred(FILE, digest, Buffer.byteLength(CONTENT), 0);
  await writer.write('mcp.json', '{}\n');
  await writer.commit();
  return made;
}

describe('a deferred file written out at the swap', () => {
  it('stays where the previous tree holds its bytes, which are never made', async () => {
    const out = await previousTree(CONTENT);
    const inode = (await fs.stat(path.join(out, FILE))).ino;
    expect(await writeDeferredTree(out)).toBe(0);
    expect((await fs.stat(path.join(out, FILE))).ino).toBe(inode);
    expect(await fs.readFile(path.join(out, FILE), 'utf8')).toBe(CONTENT);
  });

  it('is made and written over a previous file of the same size with other bytes', async () => {
    const out = await previousTree(CONTENT.replace('alpha', 'ALPHA'));
    expect(await writeDeferredTree(out)).toBe(1);
    expect(await fs.readFile(path.join(out, FILE), 'utf8')).toBe(CONTENT);
  });

  it('is made and written over a previous file whose mode is not the writer’s', async () => {
    const out = await previousTree(CONTENT);
    await fs.chmod(path.join(out, FILE), 0o600);
    expect(await writeDeferredTree(out)).toBe(1);
    const file = await fs.stat(path.join(out, FILE));
    expect(file.mode & 0o777).toBe(0o644);
    expect(await fs.readFile(path.join(out, FILE), 'utf8')).toBe(CONTENT);
  });

  it('is made and written where the previous tree has a symlink to the same bytes', async () => {
    const out = await previousTree(CONTENT);
    const outside = path.join(path.dirname(out), 'outside.json');
    await fs.writeFile(outside, CONTENT, { mode: 0o644 });
    await fs.rm(path.join(out, FILE));
    await fs.symlink(outside, path.join(out, FILE));
    expect(await writeDeferredTree(out)).toBe(1);
    expect((await fs.lstat(path.join(out, FILE))).isSymbolicLink()).toBe(false);
    expect(await fs.readFile(path.join(out, FILE), 'utf8')).toBe(CONTENT);
  });
});
