// Kept build state in parts (tree-writer/kept-parts.ts): an edit writes only the parts whose
// entries changed (the others are named as they are, the same files), a part read back is checked
// against its size and CRC-32 (missing or damaged: not used), and the files no directory names
// are removed, but a running writer's.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  decodePartTable,
  encodePartTable,
  ENTRIES_PER_PART,
  KeptPartReader,
  KeptPartWriter,
  MAX_HELD_PARTS,
  OPEN_PART_FLUSH_BYTES,
  removeUnnamedParts,
} from '../../src/tree-writer/kept-parts.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function partsFolder(): string {
  const made = mkdtempSync(path.join(os.tmpdir(), 'kept-parts-'));
  folders.push(made);
  return made;
}

/** Entry `number`'s bytes and key word: every ENTRIES_PER_PART / 4th entry ends a part. */
function entry(number: number, text = `entry ${number}`): { bytes: Uint8Array; keyWord: number } {
  return { bytes: Buffer.from(text), keyWord: number % (ENTRIES_PER_PART / 4) === 0 ? 0 : number };
}

describe('kept parts', () => {
  it('writes only the part an edited entry lies in; the others are the previous files', () => {
    const folder = partsFolder();
    const first = new KeptPartWriter(folder, []);
    for (let number = 1; number <= 1000; number += 1) first.append([entry(number).bytes], entry(number).keyWord);
    const previous = first.finish();
    expect(previous.length).toBeGreaterThan(10);
    const inodes = new Map(previous.map((part) => [part.name, statSync(path.join(folder, part.name)).ino]));

    // Entry 500 edited, every other one repeated from where it lay; the writer reads the previous
    // parts through the reader, so the entries before 500 in its part are copied from there.
    const reader = new KeptPartReader(folder, previous);
    const second = new KeptPartWriter(folder, previous, reader);
    let part = 0;
    let index = 0;
    let offset = 0;
    for (let number = 1; number <= 1000; number += 1) {
      const edited = number === 500;
      const { bytes, keyWord } = entry(number, edited ? 'entry 500, edited' : undefined);
      second.append([bytes], keyWord, edited ? undefined : { part, index, offset });
      index += 1;
      offset += entry(number).bytes.length;
      if (index === previous[part]!.count) {
        part += 1;
        index = 0;
        offset = 0;
      }
    }
    const parts = second.finish();
    const made = parts.filter((candidate) => !inodes.has(candidate.name));
    expect(made).toHaveLength(1);
    expect(readFileSync(path.join(folder, made[0]!.name), 'utf8')).toContain('entry 500, edited');
    for (const kept of parts.filter((candidate) => inodes.has(candidate.name)))
      expect(statSync(path.join(folder, kept.name)).ino).toBe(inodes.get(kept.name));
    // Read back whole, in order: every entry, the edited one as edited.
    const rereader = new KeptPartReader(folder, parts);
    const text = parts.map((_, position) => Buffer.from(rereader.bytesOf(position)!).toString()).join('');
    expect(text).toContain('entry 499entry 500, editedentry 501');
    expect(text).toBe(
      Array.from({ length: 1000 }, (_, at) => (at === 499 ? 'entry 500, edited' : `entry ${at + 1}`)).join(''),
    );
    expect(reader.bytesOf(0)).toBeDefined();

    // The directory's table round-trips; the previous parts it no longer names go.
    const table = encodePartTable(parts);
    expect(decodePartTable(table, 0, table.length)).toEqual(parts);
    removeUnnamedParts(folder, parts);
    expect(readdirSync(folder).sort()).toEqual(parts.map((kept) => kept.name).sort());
  });

  it('copies a run of repeated entries from the previous part when it is cut short, read again once let go', () => {
    const folder = partsFolder();
    const first = new KeptPartWriter(folder, []);
    for (let number = 1; number <= 300; number += 1) first.append([entry(number).bytes], entry(number).keyWord);
    const previous = first.finish();
    expect(previous.length).toBeGreaterThan(3);
    // Holding one part: by the time the run of part 0 breaks, its bytes were let go.
    const reader = new KeptPartReader(folder, previous, undefined, true);
    const second = new KeptPartWriter(folder, previous, reader);
    // Part 0's entries but its last (the one that closed it): the last part, cut short.
    const expected: string[] = [];
    let offset = 0;
    expect(reader.bytesOf(0)).toBeDefined();
    for (let index = 0; index < previous[0]!.count - 1; index += 1) {
      const { bytes, keyWord } = entry(index + 1);
      second.append([bytes], keyWord, { part: 0, index, offset });
      expected.push(bytes.toString());
      offset += bytes.length;
    }
    // Part 0 let go before the run is copied (at the close): it is read again.
    expect(reader.bytesOf(1)).toBeDefined();
    const parts = second.finish();
    expect(parts).toHaveLength(1);
    expect(parts[0]!.name).not.toBe(previous[0]!.name);
    expect(readFileSync(path.join(folder, parts[0]!.name), 'utf8')).toBe(expected.join(''));

    // The previous part gone before the run is copied: the build stops and says so, never a part of other bytes.
    const third = new KeptPartWriter(folder, parts, new KeptPartReader(folder, parts, undefined, true));
    third.append([entry(1).bytes], entry(1).keyWord, { part: 0, index: 0, offset: 0 });
    rmSync(path.join(folder, parts[0]!.name));
    expect(() => third.append([Buffer.from('new')], 1)).toThrow(/changed while this build read it.*build again/);
    third.discard();
  });

  it('writes a large new part to its file as it grows; a large repeated part is never written', () => {
    const folder = partsFolder();
    // 24 entries of 100 KB, none ending a part: one part of 2.4 MB, ten times what a writer holds of it.
    const big = (number: number, text = String.fromCharCode(97 + (number % 26))) =>
      Buffer.from(`${number}:`.padEnd(100_000, text));
    const first = new KeptPartWriter(folder, []);
    for (let number = 0; number < 24; number += 1) {
      first.append([big(number)], 1);
      // On disk already, but for the last piece under OPEN_PART_FLUSH_BYTES.
      const onDisk = readdirSync(folder).reduce((sum, name) => sum + statSync(path.join(folder, name)).size, 0);
      expect((number + 1) * 100_000 - onDisk).toBeLessThan(OPEN_PART_FLUSH_BYTES);
    }
    const previous = first.finish();
    expect(previous).toHaveLength(1);
    const whole = Buffer.concat(Array.from({ length: 24 }, (_, number) => big(number)));
    const written = readFileSync(path.join(folder, previous[0]!.name));
    expect(written.equals(whole)).toBe(true);
    expect(previous[0]).toMatchObject({ sizeBytes: whole.length, crc: crc32(whole), count: 24 });
    expect(Buffer.from(new KeptPartReader(folder, previous).bytesOf(0)!).equals(whole)).toBe(true);

    // Every entry repeated: the previous part, and no file written for it.
    const again = new KeptPartWriter(folder, previous);
    for (let number = 0; number < 24; number += 1)
      again.append([big(number)], 1, { part: 0, index: number, offset: number * 100_000 });
    expect(again.finish()).toEqual(previous);
    expect(readdirSync(folder)).toEqual([previous[0]!.name]);

    // The last entry edited: a new part, whole and checked, though its first 2.3 MB waited as a repeat.
    const edited = new KeptPartWriter(folder, previous);
    for (let number = 0; number < 24; number += 1)
      edited.append(
        [number === 23 ? big(number, '!') : big(number)],
        1,
        number === 23 ? undefined : { part: 0, index: number, offset: number * 100_000 },
      );
    const parts = edited.finish();
    expect(parts[0]!.name).not.toBe(previous[0]!.name);
    const editedWhole = Buffer.concat([whole.subarray(0, 23 * 100_000), big(23, '!')]);
    expect(Buffer.from(new KeptPartReader(folder, parts).bytesOf(0)!).equals(editedWhole)).toBe(true);
    expect(parts[0]!.crc).toBe(crc32(editedWhole));

    // The same with the previous part's reader: the run's 2.3 MB are copied from it when the edit
    // breaks the run, then go to the part's file with the edited entry.
    const deferred = new KeptPartWriter(folder, previous, new KeptPartReader(folder, previous));
    for (let number = 0; number < 24; number += 1)
      deferred.append(
        [number === 23 ? big(number, '!') : big(number)],
        1,
        number === 23 ? undefined : { part: 0, index: number, offset: number * 100_000 },
      );
    const deferredParts = deferred.finish();
    expect(readFileSync(path.join(folder, deferredParts[0]!.name)).equals(editedWhole)).toBe(true);
    expect(deferredParts[0]).toMatchObject({ sizeBytes: editedWhole.length, crc: crc32(editedWhole), count: 24 });
  });

  it('does not use a part that is missing, damaged or of another size', () => {
    const folder = partsFolder();
    const writer = new KeptPartWriter(folder, []);
    for (let number = 1; number <= 200; number += 1) writer.append([entry(number).bytes], entry(number).keyWord);
    const parts = writer.finish();
    expect(parts.length).toBeGreaterThan(3);
    const flipped = path.join(folder, parts[0]!.name);
    const bytes = readFileSync(flipped);
    bytes[3]! ^= 0x01;
    writeFileSync(flipped, bytes);
    writeFileSync(
      path.join(folder, parts[1]!.name),
      Buffer.concat([readFileSync(path.join(folder, parts[1]!.name)), Buffer.from('x')]),
    );
    rmSync(path.join(folder, parts[2]!.name));
    const reader = new KeptPartReader(folder, parts);
    expect([0, 1, 2, 3].map((index) => reader.bytesOf(index) !== undefined)).toEqual([false, false, false, true]);
    // A table naming a file outside the folder does not parse.
    const table = encodePartTable([{ ...parts[3]!, name: '../escape.part' }]);
    expect(() => decodePartTable(table, 0, table.length)).toThrow();
  });

  it('holds only the last parts it read: one let go is read and checked again', () => {
    const folder = partsFolder();
    const writer = new KeptPartWriter(folder, []);
    for (let number = 1; number <= 3000; number += 1) writer.append([entry(number).bytes], entry(number).keyWord);
    const parts = writer.finish();
    expect(parts.length).toBeGreaterThan(MAX_HELD_PARTS + 1);
    const reader = new KeptPartReader(folder, parts);
    for (let index = 0; index <= MAX_HELD_PARTS; index += 1) expect(reader.bytesOf(index)).toBeDefined();
    rmSync(path.join(folder, parts[0]!.name));
    rmSync(path.join(folder, parts[MAX_HELD_PARTS]!.name));
    // Part 0 was let go, so its file is read again (and is gone); the last part read is still held.
    expect(reader.bytesOf(0)).toBeUndefined();
    expect(Buffer.from(reader.bytesOf(MAX_HELD_PARTS)!).toString()).toContain('entry');
  });

  it('leaves the parts of a writer still running, and removes those of one that died', () => {
    const folder = partsFolder();
    const running = `${process.ppid}-abc-0.part`;
    const dead = `${2 ** 22 + 12345}-abc-0.part`;
    writeFileSync(path.join(folder, running), 'being written');
    writeFileSync(path.join(folder, dead), 'half written');
    removeUnnamedParts(folder, []);
    expect(readdirSync(folder)).toEqual([running]);
  });
});
