// One stat per document (issue #39, "Edits in a second"): the identities the up-to-date walk took
// are what discovery compares with the document cache, so they must be each file's own, never
// another file's (a symlinked folder, a file outside the walk, a lookup out of order: no answer,
// and discovery stats the file itself), and an edit after the walk is still caught where the
// tree file is written.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintInputs } from '../../src/builder/up-to-date.js';
import { discoverResources } from '../../src/project/discover-resources.js';
import { DocumentCache } from '../../src/project/document-cache.js';
import { readResourceContent } from '../../src/project/resource-file-content.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function makeProject(): Promise<string> {
  const root = await temporaryFolder('walked-identities-');
  await fs.mkdir(path.join(root, 'resources', 'sub'), { recursive: true });
  await fs.writeFile(path.join(root, 'resources', 'a.md'), '# A\n');
  await fs.writeFile(path.join(root, 'resources', 'b.md'), '# B, longer\n');
  await fs.writeFile(path.join(root, 'resources', 'sub', 'c.md'), '# C\n');
  await fs.symlink('sub', path.join(root, 'resources', 'link'));
  // Older than the document cache's racy window: their identities are trusted by the next build.
  const anHourAgo = new Date(Date.now() - 3_600_000);
  for (const name of ['a.md', 'b.md', 'sub/c.md'])
    await fs.utimes(path.join(root, 'resources', name), anHourAgo, anHourAgo);
  return root;
}

const walk = (root: string) =>
  fingerprintInputs({
    projectRoot: root,
    toolsRoot: path.join(root, 'tools'),
    outDir: path.join(root, 'tree'),
    generator: 'test',
  });

describe("the up-to-date walk's identities", () => {
  it("are each file's own stat, and answer nothing the walk did not see as that file", async () => {
    const root = await makeProject();
    const { identities } = await walk(root);
    for (const name of ['resources/a.md', 'resources/b.md', 'resources/sub/c.md']) {
      const stats = await fs.stat(path.join(root, name), { bigint: true });
      const found = identities.lookup(name);
      expect({ ino: found?.ino, size: found?.size, mtimeNs: found?.mtimeNs }, name).toEqual({
        ino: stats.ino,
        size: stats.size,
        mtimeNs: stats.mtimeNs,
      });
    }
    // Through a symlinked folder (the walk does not enter it), a folder, a missing file.
    expect(identities.lookup('resources/link/c.md')).toBeUndefined();
    expect(identities.lookup('resources/sub')).toBeUndefined();
    expect(identities.lookup('resources/sub/missing.md')).toBeUndefined();
    // Out of order within a folder: not answered (the caller stats), rather than a search.
    const again = (await walk(root)).identities;
    expect(again.lookup('resources/b.md')).toBeDefined();
    expect(again.lookup('resources/a.md')).toBeUndefined();
  });

  it('still catch a document edited after the walk, when its tree file is written', async () => {
    const root = await makeProject();
    // A first discovery records every document in the cache.
    const first = await DocumentCache.open(root, 'test', false);
    await discoverResources(path.join(root, 'resources'), undefined, root, first, (await walk(root)).identities);
    await first.save();
    const { identities } = await walk(root);
    await fs.writeFile(path.join(root, 'resources', 'a.md'), '# A, edited after the walk\n');
    const documents = await DocumentCache.open(root, 'test', false);
    const found = await discoverResources(path.join(root, 'resources'), undefined, root, documents, identities);
    // Known by the walk's identity: the parse is the cache's, nothing read.
    expect(documents.reusedCount).toBe(3);
    const edited = found.resources.find((resource) => resource.uri === 'resource://a.md');
    expect(edited).toBeDefined();
    const read = await readResourceContent(edited!);
    expect(read).toMatchObject({ content: { text: '# A, edited after the walk\n' } });
    expect('warning' in read ? read.warning : '').toMatch(/changed while the build ran/);
    // An untouched one is written with no such warning: the identity kept for it is its own.
    const untouched = found.resources.find((resource) => resource.uri === 'resource://b.md');
    const readUntouched = await readResourceContent(untouched!);
    expect(readUntouched).toMatchObject({ content: { text: '# B, longer\n' } });
    expect('warning' in readUntouched ? readUntouched.warning : undefined).toBeUndefined();
    // sub/ is published under its own name, not through the symlink to it that sorts first.
    const uris = found.resources.map((resource) => resource.uri);
    expect(uris).toContain('resource://sub/c.md');
    expect(uris.filter((uri) => uri.startsWith('resource://link/'))).toEqual([]);
  });
});
