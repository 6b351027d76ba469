// joinedPath (src/project/joined-path.ts) is path.join: the concatenation where that is already
// normal, path.join's own answer for every other pair.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinedPath } from '../../src/project/joined-path.js';

describe('joinedPath', () => {
  const folders = [
    '/p/resources',
    '/p/resources/',
    '/',
    '/p//r',
    '/p/./r',
    '/p/../r',
    '/p/r/.',
    '/p/r/..',
    '/p/...',
    'rel/p',
  ];
  const belows = [
    'doc.md',
    'part-0/doc-7.md',
    '.hidden/a.md',
    'a/../b.md',
    './a.md',
    'a//b.md',
    'a/',
    '..',
    '.',
    '',
    '...',
  ];
  it.each(folders.flatMap((folder) => belows.map((below) => [folder, below])))(
    'joins %j and %j as path.join does',
    (folder, below) => {
      expect(joinedPath(folder, below)).toBe(path.join(folder, below));
    },
  );
});
