// A spooled file's copy (copySpooled: a resource's copy at its raw name) becomes a hard link to the
// first name's file when the spool is written out, not a file of its own: the tree holds the same
// bytes at both paths, and neither name can change the other's bytes.
import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { readTree } from '../helpers/files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const text = (files: Map<string, Buffer>, file: string) => files.get(file)?.toString('utf8');

async function writeCopies(out: string, body: (writer: TreeWriter) => Promise<void>): Promise<Map<string, Buffer>> {
  const writer = await TreeWriter.open(out);
  await writer.write('mcp.json', '{}\n');
  await body(writer);
  await writer.commit();
  return readTree(out);
}

describe('copies of spooled files', () => {
  it('are links to the first name’s file, with the same bytes', async () => {
    const out = path.join(await temporaryFolder('staticmcp-copies-'), 'dist');
    const files = await writeCopies(out, async (writer) => {
      for (let index = 0; index < 20; index++)
        await writer.write(`resources/doc-${index}.md.json`, `{"n":${index}}\n`, { spool: true });
      for (let index = 0; index < 20; index++)
        expect(writer.copySpooled(`resources/doc-${index}.md.json`, `resources/doc-${index}_md.json`)).toBeGreaterThan(
          0,
        );
    });
    expect(files.size).toBe(41);
    for (let index = 0; index < 20; index++) {
      const [first, copy] = [`resources/doc-${index}.md.json`, `resources/doc-${index}_md.json`];
      expect(text(files, copy)).toBe(`{"n":${index}}\n`);
      expect(text(files, first)).toBe(`{"n":${index}}\n`);
      expect(statSync(path.join(out, copy)).ino).toBe(statSync(path.join(out, first)).ino);
    }
  });

  it('keep their own bytes when the first name was written again', async () => {
    const out = path.join(await temporaryFolder('staticmcp-copies-'), 'dist');
    const files = await writeCopies(out, async (writer) => {
      await writer.write('resources/a.json', 'first\n', { spool: true });
      writer.copySpooled('resources/a.json', 'resources/b.json');
      await writer.write('resources/a.json', 'replaced\n');
    });
    expect(text(files, 'resources/a.json')).toBe('replaced\n');
    expect(text(files, 'resources/b.json')).toBe('first\n');
  });

  it('stop sharing a file when one name is written again after the spool was written out', async () => {
    const out = path.join(await temporaryFolder('staticmcp-copies-'), 'dist');
    const files = await writeCopies(out, async (writer) => {
      await writer.write('resources/a.json', 'shared\n', { spool: true });
      writer.copySpooled('resources/a.json', 'resources/b.json');
      // Compares with a previous tree, which writes the spool out first (there is none here).
      expect(await writer.matchesPrevious('mcp.json')).toBe(false);
      await writer.write('resources/b.json', 'b alone\n');
    });
    expect(text(files, 'resources/a.json')).toBe('shared\n');
    expect(text(files, 'resources/b.json')).toBe('b alone\n');
  });

  it('are right again when a rebuild leaves the first name unchanged', async () => {
    const out = path.join(await temporaryFolder('staticmcp-copies-'), 'dist');
    const build = (copyText: string) =>
      writeCopies(out, async (writer) => {
        await writer.write('resources/a.json', 'same\n', { spool: true });
        writer.copySpooled('resources/a.json', 'resources/b.json');
        await writer.write('resources/c.json', copyText, { spool: true });
        writer.copySpooled('resources/c.json', 'resources/d.json');
      });
    await build('before\n');
    const files = await build('after\n');
    expect([...files.keys()].sort()).toEqual([
      'mcp.json',
      'resources/a.json',
      'resources/b.json',
      'resources/c.json',
      'resources/d.json',
    ]);
    expect([text(files, 'resources/a.json'), text(files, 'resources/b.json')]).toEqual(['same\n', 'same\n']);
    expect([text(files, 'resources/c.json'), text(files, 'resources/d.json')]).toEqual(['after\n', 'after\n']);
  });
});
