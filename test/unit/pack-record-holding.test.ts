// How the build's pack step holds a tool's records (issue #43): names by their slot in the tree
// writer's recorded paths (file-digests.ts) instead of a copy of each path. The packs must be the
// bytes the writer makes from the same records given as strings, whatever else the writer
// recorded around them; slots must give back the paths, their bytes and their string order; and a
// writer that spools nothing answers "not spooled" for every file.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TreeSlotList } from '../../src/builder/tree-slot-list.js';
import { CompactIds } from '../../src/tree-writer/compact-ids.js';
import { FileDigests } from '../../src/tree-writer/file-digests.js';
import { PackRecordList } from '../../src/tree-writer/pack-record-list.js';
import { generateListPacks, type PackRecord, packToolRecords } from '../../src/tree-writer/pack-writer.js';
import { sortPositions } from '../../src/tree-writer/sort-positions.js';

const encoder = new TextEncoder();
const digestOf = (index: number) => new Uint8Array(32).fill(index % 251);

/** Call paths with multi-byte names, among them where UTF-8 and UTF-16 orders disagree. */
function recordsOf(count: number): PackRecord[] {
  const odd = ['\u{1F600}', '\uFF01', 'é', 'z'];
  return Array.from({ length: count }, (_, index) => ({
    paths: [
      `tools/t/${odd[index % odd.length]}${index}.json`,
      ...(index % 7 === 0 ? [`tools/t/${index}-default.json`] : []),
    ],
    bytes: encoder.encode(`{"n":${index}}`),
  }));
}

/** Each file's path and sha256 (a deep compare of the bytes themselves takes seconds). */
function fingerprints(files: { path: string; bytes: Uint8Array }[]): string[] {
  return files.map((file) => `${file.path} ${createHash('sha256').update(file.bytes).digest('hex')}`);
}

function collect(generator: Generator<{ path: string; bytes: Uint8Array }, unknown>) {
  const files: { path: string; bytes: Uint8Array }[] = [];
  let step = generator.next();
  for (; !step.done; step = generator.next()) files.push({ path: step.value.path, bytes: step.value.bytes.slice() });
  files.sort((left, right) => (left.path < right.path ? -1 : 1));
  return { files: fingerprints(files), table: step.value };
}

describe('the pack step’s compact holding', () => {
  it('packs names held as tree-writer slots into the bytes the strings give', () => {
    const records = recordsOf(2_000);
    const files = new FileDigests();
    // Other files before, between and after the call files, and one dropped: slots are not positions.
    files.set('index.html', digestOf(0));
    files.set('tools/t/dropped.json', digestOf(1));
    files.drop('tools/t/dropped.json');
    for (const [index, record] of records.entries()) {
      for (const name of record.paths) files.set(name, digestOf(index));
      if (index % 500 === 0) files.set(`resources/r${index}.json`, digestOf(index));
    }
    const list = new PackRecordList(files);
    // Pushed in another order than the strings below: the writer sorts records itself.
    for (const record of [...records].reverse())
      list.pushIds(
        record.paths.map((name) => files.slotOf(name)),
        record.bytes.length,
      );
    const bodies = new Map(records.map((record) => [record.paths[0]!, record.bytes]));
    const options = { tool: 't', targetPackBytes: 16 * 1024, targetIndexBytes: 4 * 1024 };
    const fromSlots = collect(generateListPacks(list, { ...options, readBody: (firstPath) => bodies.get(firstPath)! }));
    const fromStrings = packToolRecords({ ...options, records });
    expect(fromSlots.files.length).toBeGreaterThan(4);
    expect(fromSlots).toEqual({ files: fingerprints(fromStrings.files), table: fromStrings.table });
  });

  it('packs the same bytes when the writer holds the bodies’ lengths and the slots come close together', () => {
    // One name a record, as a tool without left-out-default copies: the list keeps about a byte a
    // name and no body length the writer holds (spooled files), only the others'.
    const records = recordsOf(3_000).map((record) => ({ paths: record.paths.slice(0, 1), bytes: record.bytes }));
    const files = new FileDigests();
    let spoolAt = 0;
    for (const [index, record] of records.entries()) {
      files.set(record.paths[0]!, digestOf(index));
      // The first ones written as files (the writer holds no length), the rest spooled.
      if (index >= 700) files.setSpooled(record.paths[0]!, spoolAt, record.bytes.length);
      spoolAt += record.bytes.length;
      // Other files among them, now and then far apart: slots are not positions.
      if (index % 400 === 0)
        for (let other = 0; other < (index === 2_000 ? 300 : 3); other++)
          files.set(`resources/r${index}-${other}.json`, digestOf(other));
    }
    const list = new PackRecordList(files);
    for (const record of records) list.pushIds([files.slotOf(record.paths[0]!)], record.bytes.length);
    for (const [index, record] of records.entries()) {
      expect(list.nameAt(index)).toBe(record.paths[0]);
      expect(list.bodyLengthOf(index)).toBe(record.bytes.length);
    }
    const bodies = new Map(records.map((record) => [record.paths[0]!, record.bytes]));
    const options = { tool: 't', targetPackBytes: 16 * 1024, targetIndexBytes: 4 * 1024 };
    const fromSlots = collect(generateListPacks(list, { ...options, readBody: (firstPath) => bodies.get(firstPath)! }));
    const fromStrings = packToolRecords({ ...options, records });
    expect(fromSlots.files.length).toBeGreaterThan(4);
    expect(fromSlots).toEqual({ files: fingerprints(fromStrings.files), table: fromStrings.table });
  });

  it('keeps numbers that come close together, or not, as they were pushed', () => {
    for (const step of [
      (index: number) => index * 3,
      (index: number) => 5_000 - index,
      (index: number) => index ** 2,
    ]) {
      const ids = new CompactIds();
      const pushed = Array.from({ length: 1_000 }, (_, index) => step(index));
      for (const id of pushed) ids.push(id);
      expect(Array.from({ length: ids.length }, (_, position) => ids.at(position))).toEqual(pushed);
    }
    const close = new CompactIds();
    for (let id = 0; id < 1_000; id++) close.push(2 ** 31 + id * 7);
    expect(close.isPlain).toBe(false);
    expect(close.at(999)).toBe(2 ** 31 + 999 * 7);
  });

  it('gives back each slot’s path, its UTF-8 bytes and the strings’ order', () => {
    const files = new FileDigests();
    const paths = ['tools/t/\u{1F600}.json', 'tools/t/\uFF01.json', 'a', 'tools/t/é.json', 'tools/t/b.json'];
    for (const [index, filePath] of paths.entries()) files.set(filePath, digestOf(index));
    // Written again: keeps its slot, and its neighbours' ends stay where they were.
    files.set('a', digestOf(9));
    expect(files.slotCount).toBe(paths.length);
    const list = new TreeSlotList(files);
    for (const filePath of paths) {
      const slot = files.slotOf(filePath);
      expect(files.at(slot)).toBe(filePath);
      expect(Buffer.from(files.bytesAt(slot)).toString('utf8')).toBe(filePath);
      list.push(slot);
    }
    expect(Array.from(list.sortedPositions(), (position) => list.at(position))).toEqual([...paths].sort());
    expect(Array.from(list.sortedSlots(), (slot) => files.at(slot))).toEqual([...paths].sort());
    list.release();
    expect(list.length).toBe(0);
    files.drop('a');
    expect(files.slotOf('a')).toBe(-1);
    expect(files.isLive(paths.indexOf('a'))).toBe(false);
  });

  it('lists a tool’s slots as pushed, whether they come close together or far apart', () => {
    // A tool's call files among the writer's slots: in a row, or interleaved with another tool's
    // far behind (held 4 bytes a slot from there on); sorted by their paths either way.
    const files = new FileDigests();
    for (let index = 0; index < 3_000; index++) files.set(`tools/t/${(index * 7919) % 3_000}.json`, digestOf(index));
    for (const pick of [(slot: number) => slot % 2 === 0, (slot: number) => slot < 40 || slot > 2_900]) {
      const list = new TreeSlotList(files);
      const pushed = Array.from({ length: 3_000 }, (_, slot) => slot).filter(pick);
      for (const slot of pushed) list.push(slot);
      expect(Array.from({ length: list.length }, (_, position) => list.slotAt(position))).toEqual(pushed);
      const byPath = [...pushed].sort((left, right) => (files.at(left) < files.at(right) ? -1 : 1));
      expect([...list.sortedSlots()]).toEqual(byPath);
      expect(Array.from(list.sortedPositions(), (position) => list.slotAt(position))).toEqual(byPath);
    }
  });

  it('answers "not spooled" for every file of a writer that spooled none, and tracks those it did', () => {
    const files = new FileDigests();
    for (let index = 0; index < 5_000; index++) files.set(`tools/t/${index}.json`, digestOf(index));
    expect(files.spooledAt('tools/t/4999.json')).toBeUndefined();
    expect([...files.spooledPaths()]).toEqual([]);
    files.set('tools/t/late.json', digestOf(1));
    files.setSpooled('tools/t/late.json', 2 ** 33, 12);
    expect(files.spooledAt('tools/t/late.json')).toEqual({ offset: 2 ** 33, length: 12 });
    expect(files.spooledAt('tools/t/10.json')).toBeUndefined();
    expect([...files.spooledPaths()]).toEqual(['tools/t/late.json']);
    // Written again as a file: no longer read from the spool.
    files.set('tools/t/late.json', digestOf(2));
    expect(files.spooledAt('tools/t/late.json')).toBeUndefined();
    expect([...files.spooledPaths()]).toEqual([]);
  });

  it('sorts positions off the heap into the order the built-in sort gives, ties kept in place', () => {
    for (const count of [0, 1, 15, 16, 17, 33, 1_000, 4_099]) {
      // Few distinct keys: long runs of ties, which a stable sort leaves in position order.
      const keys = Array.from({ length: count }, (_, index) => (index * 7919) % 13);
      const compare = (left: number, right: number) => keys[left]! - keys[right]!;
      const expected = Array.from({ length: count }, (_, index) => index).sort(compare);
      const order = Uint32Array.from({ length: count }, (_, index) => index);
      expect(Array.from(sortPositions(order, compare))).toEqual(expected);
    }
  });
});
