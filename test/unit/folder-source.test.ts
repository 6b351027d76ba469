// What a tree in a folder gives a reader (folder-source.ts), against real folders and links: a file
// inside, also through links that stay inside (and a tree folder given through a link); never a file a link leads to outside the tree, be
// the link the file itself or a folder on the way, and whether it was there from the start or put
// there after the file was first read; sizes from the same open as the read. readNow opens files
// in a folder kept open once in use: the same refusals, and a rebuilt tree's folders once its
// manifest is read; the file it read is closed in a microtask, and none is left open.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** A tree folder with tools/a/1.json, and a folder outside it with the same layout and a secret. */
async function writeTreeAndOutside(): Promise<{ tree: string; outside: string }> {
  const base = await temporaryFolder('staticmcp-folder-source-');
  const tree = path.join(base, 'tree');
  const outside = path.join(base, 'outside');
  await fs.mkdir(path.join(tree, 'tools', 'a'), { recursive: true });
  await fs.mkdir(path.join(outside, 'a'), { recursive: true });
  await fs.writeFile(path.join(tree, 'tools', 'a', '1.json'), '{"inside":1}');
  await fs.writeFile(path.join(outside, 'a', '1.json'), '{"secret":1}');
  await fs.writeFile(path.join(outside, 'secret.json'), '{"secret":2}');
  return { tree, outside };
}

describe('FolderSource', () => {
  it('reads a file inside the tree, sized from the same open', async () => {
    const { tree } = await writeTreeAndOutside();
    const source = new FolderSource(tree, 'tree');
    expect(await source.sizeOf('tools/a/1.json')).toBe(12);
    expect(await source.read('tools/a/1.json')).toEqual({ status: 'ok', text: '{"inside":1}' });
    expect(await source.read('tools/a/2.json')).toEqual({ status: 'missing' });
    expect(await source.sizeOf('tools/a/2.json')).toBeUndefined();
    expect(await source.read('tools/a/1.json/x')).toEqual({ status: 'missing' });
    source.close();
  });

  it('follows links that stay inside the tree, a file link and a folder link', async () => {
    const { tree } = await writeTreeAndOutside();
    await fs.symlink(path.join(tree, 'tools', 'a', '1.json'), path.join(tree, 'tools', 'a', 'same.json'));
    await fs.symlink(path.join(tree, 'tools', 'a'), path.join(tree, 'tools', 'b'));
    const source = new FolderSource(tree, 'tree');
    expect(await source.read('tools/a/same.json')).toEqual({ status: 'ok', text: '{"inside":1}' });
    expect(await source.sizeOf('tools/b/1.json')).toBe(12);
    expect(await source.read('tools/b/1.json')).toEqual({ status: 'ok', text: '{"inside":1}' });
    source.close();
    // The tree's folder given through a link.
    const linked = `${tree}-link`;
    await fs.symlink(tree, linked);
    const throughLink = new FolderSource(linked, 'tree');
    expect(await throughLink.read('tools/a/1.json')).toEqual({ status: 'ok', text: '{"inside":1}' });
    throughLink.close();
  });

  it('reads a link leading outside as missing, a file link or a folder on the way', async () => {
    const { tree, outside } = await writeTreeAndOutside();
    await fs.symlink(path.join(outside, 'secret.json'), path.join(tree, 'tools', 'a', 'leak.json'));
    await fs.symlink(outside, path.join(tree, 'tools', 'out'));
    const source = new FolderSource(tree, 'tree');
    expect(await source.sizeOf('tools/a/leak.json')).toBeUndefined();
    expect(await source.read('tools/a/leak.json')).toEqual({ status: 'missing' });
    expect(await source.sizeOf('tools/out/a/1.json')).toBeUndefined();
    expect(await source.read('tools/out/a/1.json')).toEqual({ status: 'missing' });
    source.close();
  });

  it('never follows a folder swapped for a link outside after a file in it was read', async () => {
    const { tree, outside } = await writeTreeAndOutside();
    const source = new FolderSource(tree, 'tree');
    expect(await source.read('tools/a/1.json')).toEqual({ status: 'ok', text: '{"inside":1}' });
    await fs.rm(path.join(tree, 'tools'), { recursive: true });
    await fs.symlink(outside, path.join(tree, 'tools'));
    expect(await source.sizeOf('a/1.json')).toBeUndefined();
    expect(await source.sizeOf('tools/a/1.json')).toBeUndefined();
    expect(await source.read('tools/a/1.json')).toEqual({ status: 'missing' });
    source.close();
  });

  it.runIf(process.platform === 'linux')(
    'readNow leaves no file open: each is closed once its caller has run, or when the source closes',
    async () => {
      const { tree } = await writeTreeAndOutside();
      await fs.writeFile(path.join(tree, 'tools', 'a', '2.json'), '{"inside":2}');
      const openFiles = async () => (await fs.readdir('/proc/self/fd')).length;
      const source = new FolderSource(tree, 'tree');
      // Keeps tools/a open (the second file of a folder in use): one descriptor from then on.
      source.readNow('tools/a/1.json', 100);
      source.readNow('tools/a/2.json', 100);
      await Promise.resolve();
      const before = await openFiles();
      for (let round = 0; round < 50; round += 1)
        expect(source.readNow(`tools/a/${(round % 2) + 1}.json`, 100)?.status).toBe('ok');
      await Promise.resolve();
      expect(await openFiles()).toBe(before);
      source.readNow('tools/a/1.json', 100);
      source.close();
      // The kept folder and the file just read, both closed at once.
      expect(await openFiles()).toBe(before - 1);
    },
  );

  it('readNow opens files in a folder in use, never outside, and a rebuilt tree once its manifest is read', async () => {
    const { tree, outside } = await writeTreeAndOutside();
    await fs.writeFile(path.join(tree, 'tools', 'a', '2.json'), '{"inside":2}');
    await fs.symlink(path.join(outside, 'secret.json'), path.join(tree, 'tools', 'a', 'leak.json'));
    const source = new FolderSource(tree, 'tree');
    // The second file of the folder is the first opened through it.
    expect(source.readNow('tools/a/1.json', 100)).toEqual({ status: 'ok', text: '{"inside":1}' });
    expect(source.readNow('tools/a/2.json', 100)).toEqual({ status: 'ok', text: '{"inside":2}' });
    expect(source.readNow('tools/a/leak.json', 100)).toBeUndefined();
    expect(source.readNow('tools/a/3.json', 100)).toBeUndefined();
    expect(source.readNow('tools/a/1.json', 5)).toBeUndefined();

    // A rebuild swaps the whole folder in: until its manifest is read, the tree loaded so far is read.
    const rebuilt = `${tree}-new`;
    await fs.mkdir(path.join(rebuilt, 'tools', 'a'), { recursive: true });
    await fs.writeFile(path.join(rebuilt, 'tools', 'a', '1.json'), '{"rebuilt":1}');
    await fs.writeFile(path.join(rebuilt, 'mcp.json'), '{}');
    await fs.rename(tree, `${tree}-old`);
    await fs.rename(rebuilt, tree);
    expect(source.readNow('tools/a/1.json', 100)).toEqual({ status: 'ok', text: '{"inside":1}' });
    expect(await source.read('mcp.json')).toEqual({ status: 'ok', text: '{}' });
    expect(source.readNow('tools/a/1.json', 100)).toEqual({ status: 'ok', text: '{"rebuilt":1}' });
    expect(source.readNow('tools/a/1.json', 100)).toEqual({ status: 'ok', text: '{"rebuilt":1}' });

    // The folder in use deleted and replaced by a link outside: nothing is read through either.
    await fs.rm(path.join(tree, 'tools'), { recursive: true });
    await fs.symlink(outside, path.join(tree, 'tools'));
    await fs.mkdir(path.join(outside, 'tools', 'a'), { recursive: true });
    await fs.writeFile(path.join(outside, 'tools', 'a', '1.json'), '{"secret":3}');
    expect(source.readNow('tools/a/1.json', 100)).toBeUndefined();
    expect(source.readNow('tools/a/1.json', 100)).toBeUndefined();
    expect(source.readNow('a/1.json', 100)).toBeUndefined();
    expect(await source.read('tools/a/1.json')).toEqual({ status: 'missing' });
    source.close();
  });
});
