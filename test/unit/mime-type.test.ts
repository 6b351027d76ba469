// A resource's MIME type comes from its file name (mime-type.ts): the answer kept per extension
// must be the one `mime` gives for every name, whatever was asked before it (upper case, a dot in
// a folder and none in the name, a dotfile, Windows separators, no extension at all).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { mimeTypeFor } from '../../src/project/mime-type.js';

const mime = createRequire(import.meta.url)('mime') as { default: { getType(name: string): string | null } };

const NAMES = [
  'resources/guide.md',
  'resources/GUIDE.MD',
  'resources/v2.0/README',
  'resources/v2.md/notes',
  'resources/.md',
  'resources/.env.md',
  'resources\\windows\\page.html',
  'resources\\v1.json\\data',
  'resources/archive.tar.gz',
  'resources/trailing.',
  'resources/data.JSON',
  'resources/data.json',
  'md',
  '.md',
  'page.html',
  'resources/unknown.zzz-not-a-type',
];

describe('mimeTypeFor', () => {
  it("gives mime's type for each name, asked once, again, and in another order", () => {
    const expected = NAMES.map((name) => mime.default.getType(name) ?? 'application/octet-stream');
    expect(NAMES.map(mimeTypeFor)).toEqual(expected);
    expect(NAMES.map(mimeTypeFor)).toEqual(expected);
    expect([...NAMES].reverse().map(mimeTypeFor)).toEqual([...expected].reverse());
    // The names whose answer does not follow their extension alone.
    expect(mimeTypeFor('resources/v2.md/notes')).toBe('application/octet-stream');
    expect(mimeTypeFor('resources/.md')).toBe('application/octet-stream');
    expect(mimeTypeFor('resources/GUIDE.MD')).toBe('text/markdown');
  });
});
