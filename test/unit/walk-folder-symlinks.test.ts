// Symlinked folders in a project walk (walk-folder.ts): a folder is walked under its own name even
// when a symlink to it sorts first, and a symlink to a folder outside the walked one is still
// followed once.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkFolder } from '../../src/project/walk-folder.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const OPTIONS = { maxDepth: 8, tooDeepMessage: 'too deep' };

describe('a folder walk with symlinked folders', () => {
  it('walks a folder under its own name when a symlink to it sorts before it', async () => {
    const root = path.join(temporaryFolderSync('walk-symlinks-'), 'resources');
    mkdirSync(path.join(root, 'sub', 'deeper'), { recursive: true });
    writeFileSync(path.join(root, 'sub', 'page.md'), '# Page\n');
    writeFileSync(path.join(root, 'sub', 'deeper', 'note.md'), '# Note\n');
    symlinkSync('sub', path.join(root, 'link'));

    const walked = await walkFolder(root, OPTIONS);

    expect(walked.files.map((file) => file.relativePath)).toEqual(['sub/deeper/note.md', 'sub/page.md']);
    expect(walked.notices).toEqual([
      { relativePath: 'link', message: 'is a symlink to a folder walked under its own name; skipped' },
    ]);
  });

  it('follows a symlink to a folder outside once, and still reports a loop back into the walk', async () => {
    const base = temporaryFolderSync('walk-symlinks-');
    const root = path.join(base, 'resources');
    mkdirSync(path.join(root, 'docs'), { recursive: true });
    mkdirSync(path.join(base, 'shared'));
    writeFileSync(path.join(root, 'docs', 'a.md'), '# A\n');
    writeFileSync(path.join(base, 'shared', 'b.md'), '# B\n');
    symlinkSync('../shared', path.join(root, 'ext'));
    symlinkSync('..', path.join(root, 'docs', 'up'));

    const walked = await walkFolder(root, OPTIONS);

    expect(walked.files.map((file) => file.relativePath)).toEqual(['docs/a.md', 'ext/b.md']);
    expect(walked.notices).toEqual([
      { relativePath: 'docs/up', message: 'is a symlink back into a folder already scanned (a loop); skipped' },
    ]);
  });
});
