// Incremental packing's record (src/builder/pack-reuse.ts): a tool's packs are reused only when its
// records digest is the recorded one and every recorded file is still in the output folder
// untouched; a touched file, or a hand-edited record naming paths outside the tool's packs
// folder, means "pack again", never a crash or a file from elsewhere in the tree. One pack of an
// edited tool is linked by its own records digest, under the same rules; a record whose checksum
// does not match (damaged, or edited by hand) is not used at all. A tool whose recorded records had
// other bytes takes no records digest (they cannot match), and one recorded without it is never
// reused whole. A records digest is the same whether its names come as strings or as UTF-8 bytes
// (the pack step gives bytes where it can), so a build finds the packs of one that gave the other.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPreviousPacks, recordPacks, ToolRecordsDigest } from '../../src/builder/pack-reuse.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const GENERATOR = 'staticmcp test';

async function packedProject(): Promise<{ project: string; out: string }> {
  const project = await temporaryFolder('staticmcp-pack-reuse-');
  const out = path.join(project, 'dist');
  await fs.mkdir(path.join(out, 'packs/echo'), { recursive: true });
  await fs.writeFile(path.join(out, 'packs/echo/aaaa.pack'), 'pack bytes');
  await fs.writeFile(path.join(out, 'packs/echo/bbbb.idx'), 'index bytes');
  await recordPacks(project, out, GENERATOR, {
    echo: {
      records: 'digest-1',
      targetPackBytes: 1024,
      table: [{ first: '0000000000000000', index: 'packs/echo/bbbb.idx' }],
      files: [
        { path: 'packs/echo/aaaa.pack', sha256: '00', records: 'pack-records-1' },
        { path: 'packs/echo/bbbb.idx', sha256: '11' },
      ],
    },
  });
  return { project, out };
}

describe('the packs of the previous build', () => {
  it('are reused only for the same records, pack size and untouched files', async () => {
    const { project, out } = await packedProject();
    const previous = await readPreviousPacks(project, out, GENERATOR);
    expect(previous.reusable('echo', 'digest-1', 1024)?.table).toEqual([
      { first: '0000000000000000', index: 'packs/echo/bbbb.idx' },
    ]);
    expect(previous.reusable('echo', 'digest-2', 1024)).toBeUndefined();
    expect(previous.reusable('echo', 'digest-1', 2048)).toBeUndefined();
    expect(previous.reusable('other', 'digest-1', 1024)).toBeUndefined();
    // Another output folder or generator: nothing is reused.
    expect((await readPreviousPacks(project, `${out}2`, GENERATOR)).reusable('echo', 'digest-1', 1024)).toBeUndefined();
    expect((await readPreviousPacks(project, out, 'other')).reusable('echo', 'digest-1', 1024)).toBeUndefined();

    // One pack by its records digest and size (an edited tool's unchanged pack); an index never.
    expect(previous.reusablePack('echo', 'pack-records-1', 10)?.path).toBe('packs/echo/aaaa.pack');
    expect(previous.reusablePack('echo', 'pack-records-1', 11)).toBeUndefined();
    expect(previous.reusablePack('echo', 'pack-records-2', 10)).toBeUndefined();
    expect(previous.reusablePack('other', 'pack-records-1', 10)).toBeUndefined();

    // A file edited in place (same inode, new mtime) or removed: packed again.
    await fs.appendFile(path.join(out, 'packs/echo/aaaa.pack'), '!');
    expect(previous.reusable('echo', 'digest-1', 1024)).toBeUndefined();
    expect(previous.reusablePack('echo', 'pack-records-1', 10)).toBeUndefined();
  });

  it("are never reused from a record that names files outside the tool's packs folder, or is broken", async () => {
    const { project, out } = await packedProject();
    const recordFile = path.join(project, '.staticmcp/packs.json');
    const record = JSON.parse(await fs.readFile(recordFile, 'utf8'));
    const tool = record.tools.echo;
    for (const edit of [
      { ...tool, files: [{ ...tool.files[0], path: '../outside.pack' }, tool.files[1]] },
      { ...tool, files: [{ ...tool.files[0], path: 'mcp.json' }, tool.files[1]] },
      { ...tool, files: [{ ...tool.files[0], path: 'packs/other/aaaa.pack' }, tool.files[1]] },
      { ...tool, table: [{ first: '0000000000000000', index: 'packs/echo/elsewhere.idx' }] },
    ]) {
      // With its checksum made again: the folder checks hold on their own.
      const tools = { echo: edit };
      const checksum = createHash('sha256').update(JSON.stringify(tools)).digest('hex');
      await fs.writeFile(recordFile, JSON.stringify({ ...record, tools, checksum }));
      expect((await readPreviousPacks(project, out, GENERATOR)).reusable('echo', 'digest-1', 1024)).toBeUndefined();
    }
    // An edit the checksum does not cover: nothing of the record is used.
    const swapped = { ...tool, files: [{ ...tool.files[0], records: 'pack-records-2' }, tool.files[1]] };
    await fs.writeFile(recordFile, JSON.stringify({ ...record, tools: { echo: swapped } }));
    const damaged = await readPreviousPacks(project, out, GENERATOR);
    expect(damaged.reusable('echo', 'digest-1', 1024)).toBeUndefined();
    expect(damaged.reusablePack('echo', 'pack-records-2', 10)).toBeUndefined();
    await fs.writeFile(recordFile, '{"outDir": ');
    expect((await readPreviousPacks(project, out, GENERATOR)).reusable('echo', 'digest-1', 1024)).toBeUndefined();
  });

  it('take no records digest where the recorded records had other bytes, and never reuse a tool without one', async () => {
    const { project, out } = await packedProject();
    const tool = { records: '', targetPackBytes: 1024, recordBytes: 500, table: [], files: [] };
    await recordPacks(project, out, GENERATOR, { echo: tool, other: { ...tool, recordBytes: undefined } });
    const previous = await readPreviousPacks(project, out, GENERATOR);
    // A one-document edit changes the bytes: those records cannot be the recorded ones.
    expect(previous.cannotMatch('echo', 501, 1024)).toBe(true);
    expect(previous.cannotMatch('echo', 500, 2048)).toBe(true);
    // Same bytes (an edit that keeps the size, or no edit): the digest decides.
    expect(previous.cannotMatch('echo', 500, 1024)).toBe(false);
    // No recorded bytes (a record of an older build) or no record: the digest decides.
    expect(previous.cannotMatch('other', 501, 1024)).toBe(false);
    expect(previous.cannotMatch('missing', 501, 1024)).toBe(false);
    // A tool recorded without its digest is never reused whole.
    expect(previous.reusable('echo', '', 1024)).toBeUndefined();
  });
});

describe('a tool’s records digest', () => {
  it('is the same from the names as strings or as their UTF-8 bytes', () => {
    const records: [string[], Buffer][] = [
      [['tools/t/a.json'], createHash('sha256').update('a').digest()],
      [['tools/t/é/\u{1F600}.json'], createHash('sha256').update('b').digest()],
      [['tools/t/c.json', 'tools/t/c/x.json', 'tools/t/c/y.json'], createHash('sha256').update('c').digest()],
    ];
    const fromStrings = new ToolRecordsDigest(GENERATOR, 't', 4096);
    const fromBytes = new ToolRecordsDigest(GENERATOR, 't', 4096);
    for (const [names, body] of records) {
      fromStrings.add(names, body);
      fromBytes.addNameBytes(names.length, (index) => Buffer.from(names[index]!), body);
    }
    const other = new ToolRecordsDigest(GENERATOR, 't', 4096);
    for (const [names, body] of records.slice(1)) other.add(names, body);
    const expected = fromStrings.digest();
    expect(fromBytes.digest()).toBe(expected);
    expect(other.digest()).not.toBe(expected);
  });
});
