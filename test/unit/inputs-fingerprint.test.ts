// The up-to-date check's fingerprint of a project's inputs (up-to-date.ts): a build is replayed
// only when it is the same, so every change a file can show in its metadata (bytes of another
// length, an mtime a nanosecond on, its mode, a rename, a new file, a new folder) changes it,
// and nothing else does.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintInputs } from '../../src/builder/up-to-date.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function makeProject(): Promise<string> {
  const root = await temporaryFolder('inputs-fingerprint-');
  await fs.mkdir(path.join(root, 'resources', 'part-0'), { recursive: true });
  await fs.mkdir(path.join(root, 'tools'));
  for (let index = 0; index < 5; index++)
    await fs.writeFile(path.join(root, 'resources', 'part-0', `doc-${index}.md`), `# Document ${index}\n`);
  await fs.writeFile(path.join(root, 'tools', 'echo'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  return root;
}

async function fingerprintOf(root: string): Promise<string> {
  const scope = {
    projectRoot: root,
    toolsRoot: path.join(root, 'tools'),
    outDir: path.join(root, 'tree'),
    generator: 'test',
  };
  return (await fingerprintInputs(scope)).digest;
}

describe("the inputs' fingerprint", () => {
  it('is the same for the same metadata, and changes with each change a file shows', async () => {
    const root = await makeProject();
    const doc = path.join(root, 'resources', 'part-0', 'doc-2.md');
    const seen = new Set<string>();
    const expectNew = async (what: string) => {
      const digest = await fingerprintOf(root);
      expect(seen.has(digest), what).toBe(false);
      seen.add(digest);
    };
    await expectNew('first');
    expect(await fingerprintOf(root)).toBe([...seen][0]);
    // The tree and its swap folders are not inputs.
    await fs.mkdir(path.join(root, 'tree'));
    await fs.writeFile(path.join(root, 'tree', 'mcp.json'), '{}');
    expect(await fingerprintOf(root)).toBe([...seen][0]);

    await fs.appendFile(doc, 'more\n');
    await expectNew('bytes appended');
    const { mtimeNs } = await fs.stat(doc, { bigint: true });
    // An mtime one microsecond on (what utimes can set): the size and every other field unchanged.
    const later = Number(mtimeNs + 1_000n) / 1e9;
    await fs.utimes(doc, later, later);
    await expectNew('mtime');
    await fs.chmod(doc, 0o600);
    await expectNew('mode');
    await fs.rename(doc, path.join(root, 'resources', 'part-0', 'doc-2b.md'));
    await expectNew('renamed');
    await fs.writeFile(path.join(root, 'resources', 'part-0', 'doc-9.md'), '');
    await expectNew('an empty file added');
    await fs.mkdir(path.join(root, 'resources', 'part-1'));
    await expectNew('an empty folder added');
    await fs.writeFile(path.join(root, 'tools', 'echo'), '#!/bin/sh\necho ho\n');
    await expectNew('a tool edited (same size)');
  });
});
