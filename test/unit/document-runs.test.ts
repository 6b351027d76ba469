// The saved runs' file (src/project/document-runs.ts): a run is read back as it was written, and a
// block is believed whole or not at all: one damaged, cut short or written under another key is
// not taken, while the others of the file still are.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeEntry } from '../../src/project/document-record.js';
import { DocumentRunReader, DocumentRunWriter, NO_STRING } from '../../src/project/document-runs.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const KEY = 'staticmcp test markdown-summary/3 65536 resources/';

function documentOf(folder: string, name: string, number: number) {
  const entry = encodeEntry({
    relativePath: `${folder}/${name}`,
    mimeType: 'text/markdown',
    trusted: true,
    stats: { ino: BigInt(1000 + number), size: BigInt(10 * number), mtimeNs: -5n + BigInt(number) },
    sha256: number.toString(16).padStart(64, '0'),
    parsedJson: '{"text":true}',
    sitePage: false,
  });
  return {
    name,
    mimeType: 'text/markdown',
    text: true,
    path: Buffer.from(`${folder.slice('resources/'.length)}/${name}`),
    title: number % 2 === 0 ? Buffer.from(`Tïtle ${number}`) : undefined,
    description: Buffer.from(`About ${number}`),
    entry,
  };
}

/** Runs of three documents in each of `folders` (a run per folder), written to `file`. */
function writeRuns(file: string, folders: string[], key = KEY): void {
  const writer = new DocumentRunWriter(file, `${file}.new-test`, key, 256);
  let number = 0;
  for (const folder of folders)
    for (const name of ['a.md', 'b.md', 'c.md']) {
      number += 1;
      writer.add(folder, documentOf(folder, name, number));
    }
  writer.save();
}

describe('saved document runs', () => {
  it('reads a run back as it was written', async () => {
    const file = path.join(await temporaryFolder('document-runs-'), 'runs.bin');
    writeRuns(file, ['resources/one', 'resources/two']);
    const reader = DocumentRunReader.open(file, KEY)!;
    const run = reader.take('resources/two/a.md')!;
    expect(run).toMatchObject({
      folder: 'resources/two',
      count: 3,
      names: 'a.md/b.md/c.md/',
      mimeType: 'text/markdown',
    });
    expect([...run.titleLengths]).toEqual([Buffer.byteLength('Tïtle 4'), NO_STRING, Buffer.byteLength('Tïtle 6')]);
    expect(Buffer.from(run.titles).toString()).toBe('Tïtle 4Tïtle 6');
    expect(Buffer.from(run.paths).toString()).toBe('two/a.mdtwo/b.mdtwo/c.md');
    // Inode 1004, size 40, mtime -1 ns (before 1970) of its first document, as the walk holds them.
    const identity = Buffer.from(run.identities);
    expect([identity.readBigUInt64LE(0), identity.readBigUInt64LE(8), identity.readBigInt64LE(16)]).toEqual([
      1004n,
      40n,
      -1n,
    ]);
    const entries = ['a.md', 'b.md', 'c.md'].map((name, at) => documentOf('resources/two', name, 4 + at).entry);
    expect(Buffer.from(run.entries).equals(Buffer.concat(entries))).toBe(true);
    // A run is taken once, by its first file only.
    expect(reader.take('resources/two/a.md')).toBeUndefined();
    expect(reader.take('resources/one/b.md')).toBeUndefined();
    expect(reader.take('resources/one/a.md')?.count).toBe(3);
    reader.close();
  });

  it('takes no block that is damaged, cut short or of another key, and still takes the others', async () => {
    const file = path.join(await temporaryFolder('document-runs-'), 'runs.bin');
    writeRuns(file, ['resources/one', 'resources/two', 'resources/three']);
    const bytes = await fs.readFile(file);
    const second = bytes.indexOf('resources/two');
    bytes[second + 200]! ^= 0x01;
    await fs.writeFile(file, bytes);
    let reader = DocumentRunReader.open(file, KEY)!;
    expect(reader.take('resources/one/a.md')?.count).toBe(3);
    expect(reader.take('resources/two/a.md')).toBeUndefined();
    expect(reader.take('resources/three/a.md')?.count).toBe(3);
    reader.close();

    writeRuns(file, ['resources/one', 'resources/two', 'resources/three']);
    const whole = await fs.readFile(file);
    await fs.writeFile(file, whole.subarray(0, whole.length - 10));
    reader = DocumentRunReader.open(file, KEY)!;
    expect(reader.take('resources/one/a.md')?.count).toBe(3);
    expect(reader.take('resources/three/a.md')).toBeUndefined();
    reader.close();

    expect(DocumentRunReader.open(file, `${KEY}other`)).toBeUndefined();
    writeRuns(file, ['resources/one'], `${KEY}x`);
    expect(DocumentRunReader.open(file, KEY)).toBeUndefined();
    expect(DocumentRunReader.open(path.join(path.dirname(file), 'missing.bin'), KEY)).toBeUndefined();
  });
});
