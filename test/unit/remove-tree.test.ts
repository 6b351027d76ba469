// removeTree: what a build runs on its temporary tree and on the tree it replaces. It removes
// every file and folder (thousands at a time, one unlink each), and never what a symlink inside
// the tree points to: an output folder holding a link to the user's files must not take them along.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTree } from '../../src/tree-writer/remove-tree.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

describe('removeTree', () => {
  it('removes nested folders with many files, and a missing folder is not an error', async () => {
    const root = temporaryFolderSync('staticmcp-remove-tree-');
    const tree = path.join(root, 'tree');
    for (let folder = 0; folder < 5; folder += 1) {
      const deep = path.join(tree, 'tools', `tool-${folder}`, 'nested');
      mkdirSync(deep, { recursive: true });
      for (let file = 0; file < 200; file += 1) writeFileSync(path.join(deep, `${file}.json`), '{}\n');
    }
    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    await expect(removeTree(tree)).resolves.toBeUndefined();
  });

  it('removes a symlink inside the tree, not the files it points to', async () => {
    const root = temporaryFolderSync('staticmcp-remove-tree-');
    const outside = path.join(root, 'my-notes');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'keep.txt'), 'mine\n');
    const tree = path.join(root, 'tree');
    mkdirSync(path.join(tree, 'resources'), { recursive: true });
    symlinkSync(outside, path.join(tree, 'resources', 'linked-folder'));
    symlinkSync(path.join(outside, 'keep.txt'), path.join(tree, 'linked-file.txt'));
    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('mine\n');
  });

  it('removes a plain file given in place of a folder', async () => {
    const root = temporaryFolderSync('staticmcp-remove-tree-');
    const file = path.join(root, 'not-a-folder');
    writeFileSync(file, 'x');
    await removeTree(file);
    expect(existsSync(file)).toBe(false);
  });
});
