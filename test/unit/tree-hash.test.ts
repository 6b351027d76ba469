// The tree's content hash (tree-writer/content-hash.ts) is its documented definition, sha256 over
// `path \0 <hex digest> \0` per file, whatever the paths: many short ones (gathered into batches
// before each update), non-ASCII ones, and one longer than a batch.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTreeHash, digestFile } from '../../src/tree-writer/content-hash.js';

describe('the tree hash', () => {
  it('is sha256 over each path, NUL, its digest in hex, NUL, for any paths', () => {
    const paths = [
      ...Array.from({ length: 5_000 }, (_, at) => `resources/part-${at % 7}/doc-${at}.md.json`),
      'resources/été/naïve-日本語-😀.json',
      `resources/${'long-'.repeat(30_000)}.json`,
      'tools/echo/word=alpha.json',
    ];
    const tree = createTreeHash();
    const plain = createHash('sha256');
    for (const [at, filePath] of paths.entries()) {
      const digest = digestFile(`content ${at}`);
      tree.addDigest(filePath, digest);
      plain.update(`${filePath}\0${digest.toString('hex')}\0`);
    }
    expect(tree.digest()).toBe(`sha256:${plain.digest('hex')}`);
    expect(createTreeHash().digest()).toBe(`sha256:${createHash('sha256').digest('hex')}`);
  });
});
