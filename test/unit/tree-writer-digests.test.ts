// The tree writer hashes what it wrote from the digests it recorded while writing, without reading
// the files back: the hash must still be the one the files on disk give (docs/tree-format.md "The content
// hash"), also after a file is replaced or copied, as the build does for collisions and for the
// copies other bridges read.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeOutput } from '../../src/builder/tree-output.js';
import { FileDigests } from '../../src/tree-writer/file-digests.js';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { readTree } from '../helpers/files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** Every path with its digest, in the content hash's order. */
function* sortedOf(files: FileDigests): IterableIterator<[string, Buffer]> {
  for (const [slot, digest] of files.inHashOrder()) yield [files.at(slot), digest];
}

function hashByTheRule(files: Map<string, Buffer>): string {
  const hash = createHash('sha256');
  // By the paths' UTF-8 bytes, as docs/tree-format.md says (not JavaScript's default sort).
  for (const file of [...files.keys()].sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right))))
    hash.update(`${file}\0${createHash('sha256').update(files.get(file)!).digest('hex')}\0`);
  return `sha256:${hash.digest('hex')}`;
}

describe('the tree writer’s content hash', () => {
  it('is the hash of the files on disk after writes, replacements and copies', async () => {
    const out = path.join(await temporaryFolder('staticmcp-digests-'), 'dist');
    const writer = await TreeWriter.open(out);
    const output = new TreeOutput(writer);
    for (let index = 0; index < 300; index++) await output.write(`tools/t/${index}.json`, `{"n":${index}}\n`);
    await output.write('tools/t/7.json', '{"replaced":true}\n');
    await output.copy('tools/t/7.json', 'tools/t.json');
    await output.write('index.html', Buffer.from('<p>é</p>\n'));
    // Where UTF-8 byte order and JavaScript's sort disagree: U+FF01 before U+1F600 here, after it there.
    await output.write('tools/t/\u{1F600}.json', '{"emoji":true}\n');
    await output.write('tools/t/\uFF01.json', '{"fullwidth":true}\n');
    const hash = await writer.hashWritten();
    await writer.commit();
    const files = await readTree(out);
    expect(files.size).toBe(304);
    expect(hash).toBe(hashByTheRule(files));
    expect(output.tally.files).toBe(304);
  });

  it('finds every path again, with its digest, after room is made for many more at once', () => {
    const files = new FileDigests();
    const digest = (index: number) => new Uint8Array(32).fill(index % 251);
    for (let index = 0; index < 3_000; index++) files.set(`resources/a/${index}.json`, digest(index));
    // The content build's room for its documents: the paths already recorded are placed again.
    files.reserve(40_000);
    for (let index = 3_000; index < 30_000; index++) files.set(`resources/a/${index}.json`, digest(index));
    files.reserve(0);
    const wrong: number[] = [];
    for (let index = 0; index < 30_000; index++)
      if (
        files.slotOf(`resources/a/${index}.json`) !== index ||
        files.get(`resources/a/${index}.json`)![0] !== index % 251
      )
        wrong.push(index);
    expect(wrong).toEqual([]);
    expect(files.has('resources/a/30000.json')).toBe(false);
    expect(files.size).toBe(30_000);
  });

  it('keeps a walk in the hash order whole when files change or the order is let go under it', () => {
    const files = new FileDigests();
    const digest = (index: number) => new Uint8Array(32).fill(index % 251);
    // In an order that is not the sorted one.
    for (let index = 0; index < 5_000; index++) files.set(`tools/t/${(index * 7919) % 5_000}.json`, digest(index));
    const expected = Array.from(sortedOf(files), ([filePath, bytes]) => `${filePath} ${bytes[0]}`);
    const walk = sortedOf(files);
    const seen: string[] = [];
    for (let step = walk.next(); !step.done; step = walk.next()) {
      seen.push(`${step.value[0]} ${step.value[1][0]}`);
      if (seen.length === 100) files.set('tools/t/new.json', digest(1));
      if (seen.length === 200) files.forgetOrder();
    }
    expect(seen).toEqual(expected);
    files.forgetOrder();
    expect([...sortedOf(files)].length).toBe(5_001);
  });

  it('finds every path with its own digest when lookups of missing paths come between the writes', () => {
    const files = new FileDigests();
    const digest = (index: number) => new Uint8Array(32).fill(index % 251);
    // As the build asks: a path not there yet is looked up, then other paths are added or looked up
    // before it is set (the table grows several times on the way).
    for (let index = 0; index < 4_000; index++) {
      const asked = `resources/r${index}.md.json`;
      expect(files.has(asked)).toBe(false);
      files.set(`resources/r${index}.json`, digest(index));
      if (index % 3 === 0) expect(files.get(`resources/none-${index}.json`)).toBeUndefined();
      files.set(asked, digest(index + 1));
    }
    expect(files.size).toBe(8_000);
    for (let index = 0; index < 4_000; index++) {
      expect(files.get(`resources/r${index}.json`)?.[0]).toBe(index % 251);
      expect(files.get(`resources/r${index}.md.json`)?.[0]).toBe((index + 1) % 251);
    }
    expect(new Set(files.paths()).size).toBe(8_000);
  });
});
