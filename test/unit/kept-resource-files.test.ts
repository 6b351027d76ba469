// The record of resource files kept between builds (kept-resource-files.ts): what a build keeps as
// it was and what it adds are both found by the next build, in the build's order, a record kept
// whole is not written again, and a damaged one finds nothing.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeptResourceFiles } from '../../src/builder/kept-resource-files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const RECORD = path.join('.staticmcp', 'resource-files.bin');
const digestOf = (seed: number) => Buffer.alloc(32, seed);

/** The key of document `name` with source bytes `version`. */
function keyOf(record: KeptResourceFiles, name: string, version: number): Buffer {
  return record.keyOf({
    treePath: `resources/${name}.json`,
    uri: `doc://${name}`,
    mimeType: 'text/markdown',
    text: true,
    meta: undefined,
    sourceSha256: Buffer.alloc(32, version),
  });
}

/** What a build finds of `names` (at source version 1): each one's digest's first byte and size, or null. */
async function found(project: string, names: string[]): Promise<([number, number] | null)[]> {
  const record = await KeptResourceFiles.open(project, 'generator 1', true);
  return names.map((name) => {
    const entry = record.lookup(keyOf(record, name, 1));
    return entry ? [entry.digest[0]!, entry.sizeBytes] : null;
  });
}

describe('the kept resource files record', () => {
  it('finds what the previous build kept and added, and leaves a record kept whole as it was', async () => {
    const project = await temporaryFolder('staticmcp-kept-files-');
    const names = Array.from({ length: 200 }, (_, index) => `page-${index}`);
    const first = await KeptResourceFiles.open(project, 'generator 1', true);
    for (const [index, name] of names.entries()) first.add(keyOf(first, name, 1), digestOf(index), 1000 + index);
    first.save();
    // An edit of page-50: the others kept as they were (runs of the previous record), page-50 anew.
    const second = await KeptResourceFiles.open(project, 'generator 1', true);
    for (const [index, name] of names.entries()) {
      const entry = second.lookup(keyOf(second, name, 1));
      if (name === 'page-50') second.add(keyOf(second, name, 1), digestOf(250), 7);
      else second.keep(entry!.position);
      if (name !== 'page-50') expect(entry!.sizeBytes).toBe(1000 + index);
    }
    second.save();
    const expected = names.map((name, index): [number, number] =>
      name === 'page-50' ? [250, 7] : [index, 1000 + index],
    );
    expect(await found(project, names)).toEqual(expected);
    // Kept whole: the record file is not written again.
    const before = statSync(path.join(project, RECORD), { bigint: true });
    const bytes = readFileSync(path.join(project, RECORD));
    const third = await KeptResourceFiles.open(project, 'generator 1', true);
    for (const name of names) third.keep(third.lookup(keyOf(third, name, 1))!.position);
    third.save();
    const after = statSync(path.join(project, RECORD), { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
    expect(readFileSync(path.join(project, RECORD)).equals(bytes)).toBe(true);
    // A build that keeps only some: the next finds those alone.
    const fourth = await KeptResourceFiles.open(project, 'generator 1', true);
    for (const name of names.slice(0, 10)) fourth.keep(fourth.lookup(keyOf(fourth, name, 1))!.position);
    fourth.save();
    expect(await found(project, names.slice(0, 12))).toEqual([...expected.slice(0, 10), null, null]);
    // A damaged record (one byte of an entry changed) finds nothing.
    const damaged = readFileSync(path.join(project, RECORD));
    damaged[damaged.length - 5]! ^= 1;
    writeFileSync(path.join(project, RECORD), damaged);
    expect(await found(project, names.slice(0, 3))).toEqual([null, null, null]);
  });
});
