// The common extensions' MIME types are answered without the MIME database
// (common-mime-types.ts), and each answer must be the database's; every other name goes to it.
import { describe, expect, it } from 'vitest';
import { commonMimeTypeFor } from '../../src/project/common-mime-types.js';
import { mimeTypeFor } from '../../src/project/mime-type.js';

const COMMON = [
  'doc.md',
  'README.MD',
  'guides/intro.Markdown',
  'part-0/doc-7.md',
  'notes.txt',
  'page.html',
  'PAGE.HTM',
  'data.json',
  'folder\\win.JSON',
  'a.b.c.md',
];

const OTHERS = ['md', '.md', 'dir/.md', 'x.mdx', 'x.yaml', 'x', 'dir.md/x', 'x.md.bak', 'x.', 'image.png', 'x.ts'];

describe('commonMimeTypeFor', () => {
  it('answers the common extensions as the MIME database does, in any case and folder', () => {
    for (const name of COMMON) {
      expect(commonMimeTypeFor(name), name).toBeDefined();
      expect(commonMimeTypeFor(name), name).toBe(mimeTypeFor(name));
    }
  });

  it('leaves every other name to the database', () => {
    for (const name of OTHERS) expect(commonMimeTypeFor(name), name).toBeUndefined();
  });
});
