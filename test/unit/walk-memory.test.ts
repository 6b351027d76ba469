// What a folder walk holds per file (walk-folder.ts) while discovery goes through it: a build of
// 100,000 documents holds the whole walk. A joined path is a tree of concatenations and views
// (~800 bytes of heap for a path under a deep project folder); the walk keeps flat strings, and
// the absolute path not at all.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { walkFolder } from '../../src/project/walk-folder.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const FOLDERS = 4;
const FILES_PER_FOLDER = 1500;
// A file's path inside the walked folder (~25 characters) as a flat string, its walk entry and
// slot: ~130 bytes (its absolute path, ~130 characters, is made when asked, not held). Enough
// files that what the test process itself allocates meanwhile (code compiled lazily, in a worker
// shared with other files) stays a small share of each file's figure.
const BOUND_BYTES_PER_FILE = 250;

describe('a folder walk', () => {
  it('holds a flat relative path, under 250 bytes a file', async () => {
    const root = path.join(
      temporaryFolderSync('walk-memory-'),
      'a-rather-long-folder-name/another-level/and-one-more/resources',
    );
    for (let folder = 0; folder < FOLDERS; folder++) {
      mkdirSync(path.join(root, `section-${folder}`), { recursive: true });
      for (let file = 0; file < FILES_PER_FOLDER; file++)
        writeFileSync(path.join(root, `section-${folder}`, `page-${file}.md`), 'x');
    }
    collect();
    const before = process.memoryUsage().heapUsed;
    const walked = await walkFolder(root, { maxDepth: 8, tooDeepMessage: 'too deep' });
    collect();
    const perFile = (process.memoryUsage().heapUsed - before) / walked.files.length;
    expect(walked.files).toHaveLength(FOLDERS * FILES_PER_FOLDER);
    expect(walked.files[0]!.file).toBe(path.join(root, 'section-0', 'page-0.md'));
    expect(walked.files[0]!.relativePath).toBe('section-0/page-0.md');
    expect(perFile).toBeLessThan(BOUND_BYTES_PER_FILE);
  });
});
