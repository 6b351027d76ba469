// The tree writer's content digests held on disk past the newest few thousand (issue #43,
// spilled-digests.ts): every digest reads back as written, by path and in the content hash's order,
// with files written again in between; the file exists only past HELD_SLOTS and is gone once
// closed; and a digests' file cut short or changed under the build stops it with a clear error,
// never a wrong content hash. A file removed mid-build reads on from the open descriptor, and
// the file a killed build left behind is removed by the next one.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTreeHash } from '../../src/tree-writer/content-hash.js';
import { FileDigests } from '../../src/tree-writer/file-digests.js';
import { recoverInterruptedWrite } from '../../src/tree-writer/interrupted-write.js';
import { HELD_SLOTS, KEPT_BLOCKS } from '../../src/tree-writer/spilled-digests.js';
import { digestFileOf } from '../../src/tree-writer/swap-folders.js';

/** Every path with its digest, in the content hash's order. */
function* sortedOf(files: FileDigests): IterableIterator<[string, Buffer]> {
  for (const [slot, digest] of files.inHashOrder()) yield [files.at(slot), digest];
}

const digestOf = (text: string) => createHash('sha256').update(text).digest();
const pathOf = (index: number) => `tools/t/${index % 3 === 0 ? 'é' : 'a'}${index}.json`;
const folders: string[] = [];

function digestsBeside(count: number): { files: FileDigests; file: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'staticmcp-digests-'));
  folders.push(folder);
  const file = path.join(folder, 'out.staticmcp-digests-1');
  const files = new FileDigests(file);
  for (let index = 0; index < count; index++) files.set(pathOf(index), digestOf(`${index}`));
  return { files, file };
}

/** The content hash from a plain list of the same paths and digests (no spilling). */
function hashOf(entries: Iterable<[string, Buffer]>): string {
  const hash = createTreeHash();
  for (const [filePath, digest] of entries) hash.addDigest(filePath, digest);
  return hash.digest();
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('file digests past HELD_SLOTS', () => {
  const count = HELD_SLOTS * 2 + 17;

  it('reads every digest back, by path and in the hash order, files written again included', () => {
    const { files, file } = digestsBeside(count);
    expect(existsSync(file)).toBe(true);
    // Written again: one on disk, one still held in memory.
    files.set(pathOf(5), digestOf('again 5'));
    files.set(pathOf(count - 2), digestOf('again last'));
    const expected = (index: number) =>
      digestOf(index === 5 ? 'again 5' : index === count - 2 ? 'again last' : `${index}`);
    for (const index of [0, 5, HELD_SLOTS - 1, HELD_SLOTS, count - 2, count - 1])
      expect(files.get(pathOf(index))?.equals(expected(index))).toBe(true);
    // Compared in place (a raw-name copy and its twin, pack-resource-files.ts): spilled, held, both.
    files.set('resources/copy-of-1.json', digestOf('1'));
    files.set('resources/copy-of-last.json', digestOf('again last'));
    expect(files.sameDigest(pathOf(1), 'resources/copy-of-1.json')).toBe(true);
    expect(files.sameDigest(pathOf(count - 2), 'resources/copy-of-last.json')).toBe(true);
    expect(files.sameDigest(pathOf(5), 'resources/copy-of-1.json')).toBe(false);
    expect(files.sameDigest(pathOf(1), 'resources/absent.json')).toBe(false);
    files.drop('resources/copy-of-1.json');
    expect(files.sameDigest(pathOf(1), 'resources/copy-of-1.json')).toBe(false);
    files.set('resources/copy-of-1.json', digestOf('other'));
    expect(files.sameDigest(pathOf(1), 'resources/copy-of-1.json')).toBe(false);
    files.drop('resources/copy-of-1.json');
    files.drop('resources/copy-of-last.json');
    const plain = new FileDigests();
    for (let index = 0; index < count; index++) plain.set(pathOf(index), expected(index));
    const sorted = Array.from(
      sortedOf(files),
      ([filePath, digest]) => [filePath, Buffer.from(digest)] as [string, Buffer],
    );
    expect(sorted.length).toBe(count);
    expect(hashOf(sorted)).toBe(hashOf(sortedOf(plain)));
    files.close();
    expect(existsSync(file)).toBe(false);
  });

  it('reads digests in any order across more blocks than it keeps, its places reused', () => {
    // Digests per checked block (spilled-digests.ts BLOCK_SLOTS): past KEPT_BLOCKS blocks the oldest place is reused.
    const blockSlots = 16;
    const many = HELD_SLOTS * Math.ceil(((KEPT_BLOCKS + 64) * blockSlots) / HELD_SLOTS) + 17;
    const { files } = digestsBeside(many);
    // The pack step's order: a call key's, random among the slots.
    let seed = 7;
    const order = Array.from({ length: many }, (_, index) => index);
    for (let index = many - 1; index > 0; index--) {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      const other = seed % (index + 1);
      [order[index], order[other]] = [order[other]!, order[index]!];
    }
    const wrong = order.slice(0, 20_000).filter((index) => !files.get(pathOf(index))?.equals(digestOf(`${index}`)));
    expect(wrong).toEqual([]);
    // Block 0 read first, then enough blocks to use every place: block 0's place is the next taken,
    // by the far block's read, between reading slot 0 and comparing it.
    files.get(pathOf(0));
    for (let block = 1; block <= KEPT_BLOCKS; block++) files.get(pathOf(block * blockSlots));
    const far = (KEPT_BLOCKS + 32) * blockSlots;
    expect(files.sameDigest(pathOf(0), pathOf(far))).toBe(false);
    files.set('resources/copy-of-far.json', digestOf(`${far}`));
    expect(files.sameDigest(pathOf(far), 'resources/copy-of-far.json')).toBe(true);
    files.close();
  });

  it('reads digests by slot in a scattered order without keeping their blocks', () => {
    // The pack step's reads (digestAt, in call-key order): each right, spilled or held, and the
    // blocks read are not kept (KEPT_BLOCKS of them, 2 MiB, held through the pack step's peak).
    const many = HELD_SLOTS * 8 + 5;
    const { files, file } = digestsBeside(many);
    let seed = 11;
    const order = Array.from({ length: many }, (_, index) => index);
    for (let index = many - 1; index > 0; index--) {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      const other = seed % (index + 1);
      [order[index], order[other]] = [order[other]!, order[index]!];
    }
    // Made before: each digest made is an ArrayBuffer of its own until a collection.
    const slots = order.map((index) => files.slotOf(pathOf(index)));
    const expected = order.map((index) => digestOf(`${index}`));
    const before = process.memoryUsage().arrayBuffers;
    const wrong = order.filter((_, at) => !files.digestAt(slots[at]!).equals(expected[at]!));
    expect(wrong).toEqual([]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024);
    // A changed byte is still found, and only for the digests of its block.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from([0x55]), 0, 1, 32 * 2000 + 3);
    closeSync(fd);
    expect(() => files.digestAt(files.slotOf(pathOf(2001)))).toThrow(/is not what was written/);
    expect(files.digestAt(files.slotOf(pathOf(0))).equals(digestOf('0'))).toBe(true);
    files.close();
  });

  it('keeps a small tree in memory: no file', () => {
    const { files, file } = digestsBeside(HELD_SLOTS);
    expect(files.get(pathOf(7))?.equals(digestOf('7'))).toBe(true);
    expect(existsSync(file)).toBe(false);
    files.close();
  });

  it('stops with a clear error when the file is cut short', () => {
    const { files, file } = digestsBeside(count);
    truncateSync(file, 1000);
    expect(() => files.get(pathOf(HELD_SLOTS - 1))).toThrow(/content digests .* changed under it .*ended after/);
    expect(() => [...sortedOf(files)]).toThrow(/changed under it/);
    files.close();
  });

  it('stops with a clear error when a byte of the file changes, never a wrong hash', () => {
    const { files, file } = digestsBeside(count);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from([0x55]), 0, 1, 32 * 1000 + 3);
    closeSync(fd);
    expect(() => [...sortedOf(files)]).toThrow(/SCRATCH_FILE_DAMAGED|is not what was written/);
    expect(() => files.get(pathOf(1000))).toThrow(/is not what was written/);
    // A digest in another block still reads.
    expect(files.get(pathOf(0))?.equals(digestOf('0'))).toBe(true);
    files.close();
  });

  it('gives the memory of a walk in the hash order back as soon as the walk ends', () => {
    // Past a few windows of the walk (16,384 digests, 512 KiB) and its chunk of the file: the
    // build walks twice in a row (the content hash, then the pack step), and buffers left for a
    // collection held both walks' at its peak. ArrayBuffer bytes, counted until their buffers are
    // collected or given back, show what is still held; no collection runs between the two reads.
    const { files } = digestsBeside(70_000);
    const before = process.memoryUsage().arrayBuffers;
    let walked = 0;
    for (const [, digest] of sortedOf(files)) walked += digest.length;
    const held = process.memoryUsage().arrayBuffers - before;
    expect(walked).toBe(70_000 * 32);
    expect(held).toBeLessThan(512 * 1024);
    files.close();
  });

  it('reads on when the file is removed mid-build (its descriptor stays open)', () => {
    const { files, file } = digestsBeside(count);
    rmSync(file);
    expect(files.get(pathOf(3))?.equals(digestOf('3'))).toBe(true);
    expect([...sortedOf(files)].length).toBe(count);
    files.close();
  });

  it('is removed by the next build when a killed build left it', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'staticmcp-digests-'));
    folders.push(folder);
    const outDir = path.join(folder, 'out');
    // The pid of a process that has ended (a spawn refused under load has no pid to use).
    const ended = spawnSync('true');
    expect(ended.error).toBeUndefined();
    const deadPid = ended.pid;
    expect(deadPid).toBeGreaterThan(0);
    const left = digestFileOf(outDir, deadPid);
    writeFileSync(left, Buffer.alloc(512));
    const notes = await recoverInterruptedWrite(outDir);
    expect(existsSync(left)).toBe(false);
    expect(notes.join('\n')).toContain(`staticmcp-digests-${deadPid}`);
  });
});
