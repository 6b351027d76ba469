// The pack container read from byte buffers (the portable reader, as the worker would use it): a
// packed tool reads back every call, other paths read through, a missing pack or index answers
// "missing", a damaged or hostile one fails the read with its reason (never a wrong answer), and
// nothing outside packs/ is ever read.
import { randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/core/packs/crc32.js';
import { holdsNamedContent, MAX_DIGEST_CHECKED_PACK_BYTES } from '../../src/core/packs/pack-digest.js';
import { hexOfBytes } from '../../src/core/packs/hex-of-bytes.js';
import { callKeyOf, KEY_KIND, parsePack } from '../../src/core/packs/pack-format.js';
import { encodeIndex, encodePack, encodeRecord } from '../../src/core/packs/pack-encoding.js';
import {
  type ByteRange,
  type BytesOutcome,
  type PackFileSource,
  PackReader,
  textOfBody,
} from '../../src/core/packs/pack-reader.js';
import { SharedReads } from '../../src/core/packs/shared-reads.js';
import { parsePackTable } from '../../src/core/packs/pack-table.js';
import { PackedTreeSource } from '../../src/core/packs/packed-tree-source.js';
import { verifyPackedTool } from '../../src/core/packs/verify-packs.js';
import type { ReadOutcome, TreeSource } from '../../src/core/tree/tree-source.js';
import { packToolRecords } from '../../src/tree-writer/pack-writer.js';

const encoder = new TextEncoder();
const HTML_FALLBACK = encoder.encode('<!DOCTYPE html><html><body>Not found</body></html>');

/** A tree held in memory: text files for the plain source, bytes for packs; logs every path asked. */
class MemoryTree implements TreeSource, PackFileSource {
  readonly displayName = 'memory';
  readonly revalidateAfterMs = undefined;
  readonly asked: string[] = [];
  readonly ranges: ByteRange[] = [];
  /** A host that ignores Range and answers whole files. */
  ignoresRanges = false;
  /** A host that answers every unknown path with its HTML page (Pages without a 404.html). */
  fallbackPage = false;

  constructor(readonly files: Map<string, Uint8Array>) {}

  async read(relativePath: string): Promise<ReadOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath);
    return bytes ? { status: 'ok', text: new TextDecoder().decode(bytes) } : { status: 'missing' };
  }

  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    this.asked.push(relativePath);
    const bytes = this.files.get(relativePath) ?? (this.fallbackPage ? HTML_FALLBACK : undefined);
    if (!bytes) return { status: 'missing' };
    if (range) this.ranges.push(range);
    if (!range || this.ignoresRanges) return { status: 'ok', bytes, whole: true };
    return { status: 'ok', bytes: bytes.subarray(range.offset, range.offset + range.length), whole: false };
  }

  close(): void {}
}

function callBody(position: number): string {
  return JSON.stringify({ content: [{ type: 'text', text: `answer ${position} ${'é'.repeat(position % 50)}` }] });
}

/** The calls 0 to `count` - 1, as `callBody` answers them. */
function callBodies(count: number): string[] {
  return Array.from({ length: count }, (_, position) => callBody(position));
}

/**
 * The writer's packs by their arguments: the same arguments always write the same packs, so each
 * is written once per file. Tests that damage a file change a copy (`.slice()`) in their own map.
 */
const packedByArguments = new Map<string, ReturnType<typeof packToolRecords>>();

/** A packed tool `lookup` of `count` calls plus a plain manifest file, and the source over it. */
function buildPackedTree(count: number, targetPackBytes = 64 * 1024, targetIndexBytes = 16 * 1024) {
  const key = `${count} ${targetPackBytes} ${targetIndexBytes}`;
  let packed = packedByArguments.get(key);
  if (!packed) {
    const records = Array.from({ length: count }, (_, position) => ({
      paths: [`tools/lookup/key-${position}.json`],
      bytes: encoder.encode(callBody(position)),
    }));
    packed = packToolRecords({ tool: 'lookup', records, targetPackBytes, targetIndexBytes });
    packedByArguments.set(key, packed);
  }
  const files = new Map(packed.files.map((file) => [file.path, file.bytes]));
  files.set('mcp.json', encoder.encode('{"tools":[]}'));
  files.set('tools/plain/x.json', encoder.encode('{"plain":true}'));
  const tree = new MemoryTree(files);
  const parsed = parsePackTable({ lookup: packed.table });
  if ('problem' in parsed) throw new Error(parsed.problem);
  const source = new PackedTreeSource(tree, tree, parsed.table);
  return { tree, source, packed };
}

function packPaths(tree: MemoryTree): string[] {
  return [...tree.files.keys()].filter((path) => path.endsWith('.pack'));
}

function indexPaths(tree: MemoryTree): string[] {
  return [...tree.files.keys()].filter((path) => path.endsWith('.idx'));
}

describe('hexOfBytes', () => {
  it('writes lowercase hex of any length, the same on a second call of each length', () => {
    for (const length of [0, 1, 8, 32, 64, 65, 200, 8, 32, 65]) {
      const bytes = randomBytes(length);
      expect(hexOfBytes(bytes)).toBe(Buffer.from(bytes).toString('hex'));
    }
    expect(hexOfBytes(new Uint8Array([0, 15, 16, 255]))).toBe('000f10ff');
  });
});

describe('packed tree source over byte buffers', () => {
  it('reads back 10,000 calls across many packs, one index read and one record range each', async () => {
    const { tree, source, packed } = buildPackedTree(10_000);
    expect(packPaths(tree).length).toBeGreaterThan(16);
    expect(packed.table.length).toBeGreaterThan(4);
    const texts: (string | false)[] = [];
    for (let position = 0; position < 10_000; position += 1) {
      const read = await source.read(`tools/lookup/key-${position}.json`);
      texts.push(read.status === 'ok' && read.text);
    }
    expect(texts).toEqual(callBodies(10_000));
    // Every pack is sound as a whole (records tile it, checksums hold).
    for (const path of packPaths(tree)) expect(parsePack(tree.files.get(path)!, path)).toHaveProperty('records');
    expect(tree.asked.every((path) => path.startsWith('packs/lookup/'))).toBe(true);
    // One range read of a pack per call; each index read once (the default cache holds them all).
    expect(tree.asked.filter((path) => path.endsWith('.pack')).length).toBe(10_000);
    expect(tree.asked.filter((path) => path.endsWith('.idx')).length).toBe(packed.table.length);
  });

  it('reads through paths that are not packed, and answers absent calls as missing', async () => {
    const { tree, source } = buildPackedTree(50);
    expect(await source.read('mcp.json')).toEqual({ status: 'ok', text: '{"tools":[]}' });
    expect(await source.read('tools/plain/x.json')).toEqual({ status: 'ok', text: '{"plain":true}' });
    expect(await source.read('tools/lookup/absent.json')).toEqual({ status: 'missing' });
    expect(await source.lookup('tools/lookup/absent.json')).toMatchObject({
      status: 'missing',
      reason: expect.stringContaining('not in this tree'),
    });
    expect(tree.asked.filter((path) => !path.startsWith('packs/'))).toEqual(['mcp.json', 'tools/plain/x.json']);
  });

  it('answers a host that ignores byte ranges (whole packs) the same', async () => {
    const { tree, source } = buildPackedTree(300);
    tree.ignoresRanges = true;
    for (const position of [0, 17, 299]) {
      const read = await source.read(`tools/lookup/key-${position}.json`);
      expect(read.status === 'ok' && read.text).toBe(callBody(position));
    }
  });

  it('reads each pack once from a host that ignores byte ranges, while the packs fit in its whole-pack budget', async () => {
    const { tree, source } = buildPackedTree(3_000);
    tree.ignoresRanges = true;
    const packs = packPaths(tree).length;
    expect(packs).toBeGreaterThan(4);
    for (let round = 0; round < 2; round += 1) {
      const texts: (string | false)[] = [];
      for (let position = 0; position < 3_000; position += 1) {
        const read = await source.read(`tools/lookup/key-${position}.json`);
        texts.push(read.status === 'ok' && read.text);
      }
      expect(texts, `round ${round}`).toEqual(callBodies(3_000));
    }
    expect(tree.asked.filter((path) => path.endsWith('.pack')).length).toBe(packs);
    // A host that serves ranges fills no whole-pack budget: one range read per call, nothing kept.
    const ranged = buildPackedTree(300);
    for (let position = 0; position < 300; position += 1) await ranged.source.read(`tools/lookup/key-${position}.json`);
    expect(ranged.source.cacheSize().wholePackBytes).toBe(0);
  });

  it('keeps whole packs within their byte budget, and none larger than a quarter of it', async () => {
    const { tree, packed } = buildPackedTree(3_000, 16 * 1024);
    tree.ignoresRanges = true;
    const parsed = parsePackTable({ lookup: packed.table });
    if ('problem' in parsed) throw new Error(parsed.problem);
    const bounded = new PackedTreeSource(tree, tree, parsed.table, {
      cacheLimits: { maxIndexes: 100, maxIndexBytes: 1 << 20, maxWholePackBytes: 100_000 },
    });
    const texts: (string | false)[] = [];
    for (let position = 0; position < 3_000; position += 1) {
      const read = await bounded.read(`tools/lookup/key-${position}.json`);
      texts.push(read.status === 'ok' && read.text);
    }
    expect(texts).toEqual(callBodies(3_000));
    expect(bounded.cacheSize().wholePackBytes).toBeGreaterThan(50_000);
    expect(bounded.cacheSize().wholePackBytes).toBeLessThanOrEqual(100_000);
    const tooSmall = new PackedTreeSource(tree, tree, parsed.table, {
      cacheLimits: { maxIndexes: 100, maxIndexBytes: 1 << 20, maxWholePackBytes: 40_000 },
    });
    await tooSmall.read('tools/lookup/key-0.json');
    expect(tooSmall.cacheSize().wholePackBytes).toBe(0);
  });

  it('refuses an index that says a pack is larger than any pack is made, reading nothing of it', async () => {
    // A reader sizes its buffer for a record by the index: a forged 4 GB must never get that far.
    const name = 'tools/lookup/a.json';
    const index = encodeIndex(
      KEY_KIND.call,
      [{ path: 'packs/lookup/huge.pack', length: 0xffffffff }],
      [{ key: callKeyOf(name), pack: 0, recordOffset: 16, recordLength: 0xffffffff - 16 }],
    );
    const tree = new MemoryTree(new Map([['packs/lookup/x.idx', index]]));
    const found = await new PackReader(tree).lookup(
      [{ first: '00', index: 'packs/lookup/x.idx' }],
      KEY_KIND.call,
      callKeyOf(name),
      name,
    );
    expect(found).toMatchObject({ status: 'refused', reason: expect.stringContaining('larger than any pack is made') });
    expect(tree.asked).toEqual(['packs/lookup/x.idx']);
  });

  it('refuses the entries that name a pack whose name is not UTF-8, when used; the others still answer', async () => {
    // Parsed lazily, an index decodes a pack's name only when an entry names it (a search's title
    // index names every title pack): the damage is found then, and costs only what that pack holds.
    const good = 'tools/lookup/good.json';
    const bad = 'tools/lookup/bad.json';
    const goodRecord = encodeRecord({ names: [good], body: encoder.encode('{"ok":1}') });
    const goodPack = encodePack([goodRecord]);
    const badPack = encodePack([encodeRecord({ names: [bad], body: encoder.encode('{"ok":2}') })]);
    const [first, second] = [good, bad].sort((left, right) =>
      hexOfBytes(callKeyOf(left)).localeCompare(hexOfBytes(callKeyOf(right))),
    );
    const packOf = (name: string) => (name === good ? 0 : 1);
    const index = encodeIndex(
      KEY_KIND.call,
      [
        { path: 'packs/lookup/good.pack', length: goodPack.length },
        { path: 'packs/lookup/zzzz.pack', length: badPack.length },
      ],
      [first!, second!].map((name) => ({
        key: callKeyOf(name),
        pack: packOf(name),
        recordOffset: 16,
        recordLength: (name === good ? goodPack : badPack).length - 16,
      })),
    );
    // The second pack's name: "zzzz" becomes bytes that are not UTF-8.
    const at = Buffer.from(index).indexOf('zzzz');
    index.set([0xff, 0xfe, 0xff, 0xfe], at);
    const tree = new MemoryTree(
      new Map([
        ['packs/lookup/x.idx', index],
        ['packs/lookup/good.pack', goodPack],
      ]),
    );
    const reader = new PackReader(tree);
    const rows = [{ first: '00', index: 'packs/lookup/x.idx' }];
    expect(await reader.lookup(rows, KEY_KIND.call, callKeyOf(good), good)).toMatchObject({ status: 'ok' });
    expect(await reader.lookup(rows, KEY_KIND.call, callKeyOf(bad), bad)).toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('whose name is not UTF-8'),
    });
    expect(tree.asked.filter((path) => path.endsWith('.pack'))).toEqual(['packs/lookup/good.pack']);
  });

  it('keeps no whole pack larger than a lookup says, and asks the host for the record alone', async () => {
    // The search reader's large term packs and its documents: it caches what it decodes, so their
    // packs (read once in a long while) must not push out the title packs every query reads.
    const { tree, packed } = buildPackedTree(3_000);
    tree.ignoresRanges = true;
    const reader = new PackReader(tree);
    for (const keepPack of [false, true]) {
      const found = await reader.lookup(
        packed.table,
        KEY_KIND.call,
        callKeyOf('tools/lookup/key-7.json'),
        'tools/lookup/key-7.json',
        { upToBytes: keepPack ? 1 << 20 : 1000, pushesOut: true },
      );
      expect(found.status === 'ok' && new TextDecoder().decode(found.body)).toBe(callBody(7));
      expect(tree.ranges.at(-1)?.keepsWhole).toBe(keepPack);
      expect(reader.cacheSize().wholePackBytes > 0).toBe(keepPack);
    }
    const pack = packPaths(tree).find((path) => path === tree.asked.at(-1))!;
    expect(tree.ranges.at(-1)?.fileLength).toBe(tree.files.get(pack)!.length);
  });

  it("keeps a pack only into free room when a lookup may not push others out (the search reader's term packs)", async () => {
    const { tree, packed } = buildPackedTree(3_000, 4 * 1024, 1024);
    tree.ignoresRanges = true;
    const name = (key: number) => `tools/lookup/key-${key}.json`;
    // One key of each pack, in the order of their packs.
    const keyOfPack = new Map<string, number>();
    const locating = new PackReader(tree);
    for (let key = 0; key < 3_000; key += 1) {
      const entry = await locating.locate(packed.table, KEY_KIND.call, callKeyOf(name(key)), name(key));
      if (entry.status !== 'ok') throw new Error(entry.reason);
      if (!keyOfPack.has(entry.pack.path)) keyOfPack.set(entry.pack.path, key);
    }
    const sizes = [...keyOfPack.keys()].map((path) => tree.files.get(path)!.length);
    const budget = 4 * Math.max(...sizes);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(2 * budget);
    for (const pushesOut of [false, true]) {
      const reader = new PackReader(tree, { maxIndexes: 64, maxIndexBytes: 1 << 20, maxWholePackBytes: budget });
      const look = (key: number) =>
        reader.lookup(packed.table, KEY_KIND.call, callKeyOf(name(key)), name(key), {
          upToBytes: Number.POSITIVE_INFINITY,
          pushesOut,
        });
      for (const key of keyOfPack.values()) expect((await look(key)).status).toBe('ok');
      expect(reader.cacheSize().wholePackBytes).toBeGreaterThan(0);
      expect(reader.cacheSize().wholePackBytes).toBeLessThanOrEqual(budget);
      const asked = tree.asked.length;
      await look([...keyOfPack.values()][0]!);
      // The first pack kept is still there when no pack may push it out; later packs pushed it out otherwise.
      const packsRead = tree.asked.slice(asked).filter((path) => path.endsWith('.pack'));
      expect(packsRead, `pushesOut ${pushesOut}`).toEqual(pushesOut ? [[...keyOfPack.keys()][0]] : []);
    }
  });

  it('a kept whole pack that was damaged on the host is refused when read, and never kept', async () => {
    const { tree, source } = buildPackedTree(300);
    tree.ignoresRanges = true;
    for (const path of packPaths(tree)) tree.files.set(path, tree.files.get(path)!.subarray(0, 100));
    await expect(source.read('tools/lookup/key-5.json')).rejects.toThrow(/truncated|short|length/);
    expect(source.cacheSize().wholePackBytes).toBe(0);
  });

  it('keeps at most the indexes its limits allow', async () => {
    const { tree, packed } = buildPackedTree(3_000, 16 * 1024, 2 * 1024);
    const parsed = parsePackTable({ lookup: packed.table });
    if ('problem' in parsed) throw new Error(parsed.problem);
    const source = new PackedTreeSource(tree, tree, parsed.table, {
      cacheLimits: { maxIndexes: 3, maxIndexBytes: 1 << 20 },
    });
    expect(packed.table.length).toBeGreaterThan(8);
    for (let position = 0; position < 3_000; position += 7) await source.read(`tools/lookup/key-${position}.json`);
    expect(source.cacheSize().indexes).toBe(3);
    const byteBound = new PackedTreeSource(tree, tree, parsed.table, {
      cacheLimits: { maxIndexes: 100, maxIndexBytes: 6_000 },
    });
    for (let position = 0; position < 3_000; position += 7) await byteBound.read(`tools/lookup/key-${position}.json`);
    expect(byteBound.cacheSize().bytes).toBeLessThanOrEqual(6_000);
  });

  it('keeps every index of a tool by default while they fit in 8 MiB, however many they are', async () => {
    // 256 small indexes: the old default of 64 indexes sent 3 random calls in 4 to a second index read.
    const { tree, source } = buildPackedTree(6_000, 2 * 1024, 1024);
    const indexes = indexPaths(tree).length;
    expect(indexes).toBeGreaterThan(200);
    for (let position = 0; position < 6_000; position += 1) await source.read(`tools/lookup/key-${position}.json`);
    expect(source.cacheSize().indexes).toBe(indexes);
  });
});

describe('lookups made at once (a search asks for its words and title blocks together)', () => {
  it('share each index read, all find their records, and a damaged index fails every one of them', async () => {
    const { tree, packed } = buildPackedTree(2_000, 16 * 1024, 4 * 1024);
    tree.ignoresRanges = true;
    const paths = Array.from({ length: 40 }, (_, position) => `tools/lookup/key-${position * 50}.json`);
    const lookUpAll = (reader: PackReader) =>
      Promise.all(paths.map((path) => reader.lookup(packed.table, KEY_KIND.call, callKeyOf(path), path)));
    const found = await lookUpAll(new PackReader(new SharedReads(tree)));
    found.forEach((outcome, position) => {
      expect(outcome.status === 'ok' && textOfBody(outcome.body)).toBe(callBody(position * 50));
    });
    const indexReads = tree.asked.filter((path) => path.endsWith('.idx'));
    expect(indexReads.length).toBe(new Set(indexReads).size);
    expect(indexReads.length).toBeGreaterThan(2);

    for (const path of indexPaths(tree)) {
      const bytes = tree.files.get(path)!;
      tree.files.set(path, bytes.subarray(0, bytes.length - 1));
    }
    const refused = await lookUpAll(new PackReader(new SharedReads(tree)));
    for (const outcome of refused)
      expect(outcome).toMatchObject({ status: 'refused', reason: expect.stringContaining('truncated or edited') });
  });
});

describe('bad packs and indexes: absent ones read as not in this tree, damaged ones fail the read saying why', () => {
  const target = 'tools/lookup/key-7.json';

  async function expectMissing(source: PackedTreeSource, status: 'missing' | 'refused', reason: string) {
    const found = await source.lookup(target);
    expect(found).toMatchObject({ status, reason: expect.stringContaining(reason) });
    // Damage is named to the caller (a call answers that its answer cannot be read, and why).
    if (status === 'refused') await expect(source.read(target)).rejects.toThrow(reason);
    else expect(await source.read(target)).toEqual({ status: 'missing' });
  }

  function packOf(tree: MemoryTree, path: string): string {
    const key = callKeyOf(path);
    for (const pack of packPaths(tree)) {
      const parsed = parsePack(tree.files.get(pack)!, pack);
      if ('records' in parsed && parsed.records.some((entry) => entry.record.names.includes(path))) return pack;
    }
    throw new Error(`no pack holds ${path} (${hexOfBytes(key)})`);
  }

  it('an index the host answers with its HTML page is missing, not broken', async () => {
    const { tree, source } = buildPackedTree(100);
    tree.fallbackPage = true;
    for (const path of indexPaths(tree)) tree.files.delete(path);
    await expectMissing(source, 'missing', 'is not a pack index');
  });

  it('a pack missing on the host, or answered with the HTML page, is missing', async () => {
    const { tree, source } = buildPackedTree(100);
    tree.files.delete(packOf(tree, target));
    await expectMissing(source, 'missing', 'is missing on the host');
    tree.fallbackPage = true;
    tree.ignoresRanges = true;
    await expectMissing(source, 'missing', 'is not a pack');
  });

  it('a truncated pack is refused, whether read by range or whole', async () => {
    const { tree, source } = buildPackedTree(100, 1 << 20);
    const pack = packOf(tree, target);
    tree.files.set(pack, tree.files.get(pack)!.subarray(0, 40));
    await expectMissing(source, 'refused', 'truncated');
    tree.ignoresRanges = true;
    await expectMissing(source, 'refused', 'truncated or replaced');
  });

  it('a hand-edited body byte fails the record checksum', async () => {
    const { tree, source } = buildPackedTree(100, 1 << 20);
    const pack = packOf(tree, target);
    const bytes = tree.files.get(pack)!.slice();
    const parsed = parsePack(bytes, pack);
    if (!('records' in parsed)) throw new Error('pack did not parse');
    const record = parsed.records.find((entry) => entry.record.names.includes(target))!;
    const at = record.offset + record.length - 3;
    bytes[at] = bytes[at]! ^ 0x01;
    tree.files.set(pack, bytes);
    await expectMissing(source, 'refused', 'checksum');
    expect(parsePack(bytes, pack)).toMatchObject({ status: 'refused', reason: expect.stringContaining('checksum') });
  });

  it('a pack sent whole is checked by its name; an edited byte in it refuses only its own record', async () => {
    const { tree, source } = buildPackedTree(100, 1 << 20);
    tree.ignoresRanges = true;
    const pack = packOf(tree, target);
    const sound = tree.files.get(pack)!;
    expect(await holdsNamedContent(sound, pack)).toBe(true);
    const bytes = sound.slice();
    const parsed = parsePack(bytes, pack);
    if (!('records' in parsed)) throw new Error('pack did not parse');
    const record = parsed.records.find((entry) => entry.record.names.includes(target))!;
    const other = parsed.records.find((entry) => !entry.record.names.includes(target))!.record.names[0]!;
    bytes[record.offset + record.length - 3]! ^= 0x01;
    tree.files.set(pack, bytes);
    expect(await holdsNamedContent(bytes, pack)).toBe(false);
    await expectMissing(source, 'refused', 'checksum');
    expect(await source.read(other)).toMatchObject({ status: 'ok' });
    // Not named by its digest, or too large to hash: checked record by record.
    expect(await holdsNamedContent(sound, 'packs/lookup/not-a-digest.pack')).toBe(false);
    expect(await holdsNamedContent(new Uint8Array(MAX_DIGEST_CHECKED_PACK_BYTES + 1), pack)).toBe(false);
  });

  it('a reordered pack (same length, records moved) is refused', async () => {
    const { tree, source } = buildPackedTree(100, 1 << 20);
    const pack = packOf(tree, target);
    const parsed = parsePack(tree.files.get(pack)!, pack);
    if (!('records' in parsed)) throw new Error('pack did not parse');
    const original = tree.files.get(pack)!;
    const reversed = encodePack(
      parsed.records.map((entry) => original.subarray(entry.offset, entry.offset + entry.length)).reverse(),
    );
    expect(reversed.length).toBe(original.length);
    tree.files.set(pack, reversed);
    await expectMissing(source, 'refused', 'not a sound pack record');
  });

  function singleIndexTree(
    entries: { key: Uint8Array; recordOffset: number; recordLength: number; pack?: number }[],
    packNames = ['packs/lookup/a.pack'],
  ) {
    const records = [
      encodeRecord({ names: [target], body: encoder.encode('{"ok":1}') }),
      encodeRecord({ names: ['tools/lookup/other.json'], body: encoder.encode('{"other":1}') }),
    ];
    const pack = encodePack(records);
    const index = encodeIndex(
      KEY_KIND.call,
      packNames.map((path) => ({ path, length: pack.length })),
      entries.map((entry) => ({ pack: 0, ...entry })),
    );
    const tree = new MemoryTree(
      new Map([
        ['packs/lookup/a.pack', pack],
        ['packs/lookup/i.idx', index],
      ]),
    );
    const parsed = parsePackTable({ lookup: [{ first: '0000000000000000', index: 'packs/lookup/i.idx' }] });
    if ('problem' in parsed) throw new Error(parsed.problem);
    return { tree, source: new PackedTreeSource(tree, tree, parsed.table) };
  }

  it('an index entry past its pack end is refused when the index loads', async () => {
    const { source } = singleIndexTree([{ key: callKeyOf(target), recordOffset: 16, recordLength: 10_000 }]);
    await expectMissing(source, 'refused', 'points past the end');
  });

  it('an index entry that sends a key to a record naming another path is not in this tree', async () => {
    const own = encodeRecord({ names: [target], body: encoder.encode('{"ok":1}') }).length;
    const other = encodeRecord({ names: ['tools/lookup/other.json'], body: encoder.encode('{"other":1}') }).length;
    const { source } = singleIndexTree([{ key: callKeyOf(target), recordOffset: 16 + own, recordLength: other }]);
    await expectMissing(source, 'refused', 'does not name it');
  });

  it('two entries under one key (a collision) are told apart by the record names', async () => {
    const first = encodeRecord({ names: [target], body: encoder.encode('{"ok":1}') }).length;
    const second = encodeRecord({ names: ['tools/lookup/other.json'], body: encoder.encode('{"other":1}') }).length;
    const key = callKeyOf(target);
    const { source } = singleIndexTree([
      { key, recordOffset: 16 + first, recordLength: second },
      { key, recordOffset: 16, recordLength: first },
    ]);
    expect(await source.read(target)).toMatchObject({ status: 'ok', text: '{"ok":1}' });
  });

  it('an index naming a pack outside packs/ is refused and nothing outside packs/ is read', async () => {
    for (const hostile of [
      '../secret.pack',
      'mcp.json',
      'packs/../mcp.json',
      '/etc/passwd.pack',
      'packs/lookup/x.idx',
    ]) {
      const { tree, source } = singleIndexTree(
        [{ key: callKeyOf(target), recordOffset: 16, recordLength: 20 }],
        [hostile],
      );
      await expectMissing(source, 'refused', 'not a pack of this tree');
      expect(tree.asked.every((path) => path.startsWith('packs/'))).toBe(true);
    }
  });

  it('a pack table naming an index outside packs/ is refused as a whole', () => {
    for (const index of ['../x.idx', 'packs/../../x.idx', 'tools/x.json', 'packs/a/.git/x.idx']) {
      expect(parsePackTable({ lookup: [{ first: '00', index }] })).toHaveProperty('problem');
    }
    expect(parsePackTable({ lookup: [{ first: 'ZZ', index: 'packs/a/b.idx' }] })).toHaveProperty('problem');
    expect(
      parsePackTable({
        lookup: [
          { first: '80', index: 'packs/a/b.idx' },
          { first: '00', index: 'packs/a/c.idx' },
        ],
      }),
    ).toHaveProperty('problem');
    expect(parsePackTable('packs')).toHaveProperty('problem');
  });

  it('a truncated or hand-edited index is refused', async () => {
    const { tree, source } = buildPackedTree(100);
    for (const path of indexPaths(tree))
      tree.files.set(path, tree.files.get(path)!.subarray(0, tree.files.get(path)!.length - 1));
    await expectMissing(source, 'refused', 'damaged pack index');
    const edited = buildPackedTree(100);
    for (const path of indexPaths(edited.tree)) {
      const bytes = edited.tree.files.get(path)!.slice();
      bytes[9] = 99;
      edited.tree.files.set(path, bytes);
    }
    await expectMissing(edited.source, 'refused', 'format 99');
  });
});

describe('random damage', () => {
  it('a byte flipped anywhere in an index or a pack never gives a wrong answer: missing, or a read failing with the damage', async () => {
    let seed = 7;
    const nextRandom = (limit: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % limit;
    };
    for (let round = 0; round < 300; round += 1) {
      const { tree, source } = buildPackedTree(40, 1 << 20);
      tree.ignoresRanges = round % 2 === 0;
      const files = [...packPaths(tree), ...indexPaths(tree)];
      const damaged = files[nextRandom(files.length)]!;
      const bytes = tree.files.get(damaged)!.slice();
      const at = nextRandom(bytes.length);
      bytes[at] = bytes[at]! ^ (1 + nextRandom(255));
      tree.files.set(damaged, bytes);
      for (let position = 0; position < 40; position += 1) {
        const read = await source.read(`tools/lookup/key-${position}.json`).catch((error: Error) => error);
        if (read instanceof Error) expect(read.message).toMatch(/damaged|not a sound|not a pack|truncated|format/);
        else if (read.status === 'ok') expect(read.text).toBe(callBody(position));
        else expect(read.status).toBe('missing');
      }
    }
  });
});

describe('record checksum', () => {
  it('is CRC-32 as zlib computes it, over any range', () => {
    expect(crc32(encoder.encode('123456789'))).toBe(0xcbf43926);
    const bytes = randomBytes(5_003);
    for (const [start, end] of [
      [0, 5_003],
      [3, 4_000],
      [7, 8],
      [9, 9],
      [14, 2_061],
    ] as const) {
      expect(crc32(bytes, start, end)).toBe(zlibCrc32(bytes.subarray(start, end)));
    }
  });
});

describe('verifying a packed tool (what check will run)', () => {
  it('finds nothing wrong with what the writer wrote', async () => {
    const { tree, packed } = buildPackedTree(2_000, 8 * 1024, 2 * 1024);
    expect(await verifyPackedTool('lookup', packed.table, tree)).toEqual([]);
  });

  it('names a missing pack, an edited pack, an edited index and a row that hides its entries', async () => {
    const missing = buildPackedTree(500, 8 * 1024, 2 * 1024);
    const gone = packPaths(missing.tree)[0]!;
    missing.tree.files.delete(gone);
    expect(await verifyPackedTool('lookup', missing.packed.table, missing.tree)).toEqual([
      expect.stringMatching(new RegExp(`^${gone} is missing: \\d+ calls cannot be answered`)),
    ]);

    const edited = buildPackedTree(500, 8 * 1024, 2 * 1024);
    const pack = packPaths(edited.tree)[0]!;
    const bytes = edited.tree.files.get(pack)!.slice();
    bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 1;
    edited.tree.files.set(pack, bytes);
    expect(await verifyPackedTool('lookup', edited.packed.table, edited.tree)).toEqual([
      expect.stringContaining('checksum'),
    ]);

    const renamed = buildPackedTree(500, 8 * 1024, 2 * 1024);
    const index = renamed.packed.table[0]!.index;
    const indexBytes = renamed.tree.files.get(index)!.slice();
    // A pack length field nudged by one: parses, but the bytes no longer match the name.
    const view = new DataView(indexBytes.buffer);
    view.setUint32(24, view.getUint32(24) + 1);
    renamed.tree.files.set(index, indexBytes);
    const problems = await verifyPackedTool('lookup', renamed.packed.table, renamed.tree);
    expect(problems).toContainEqual(expect.stringContaining('not named by its content hash'));

    const shifted = buildPackedTree(500, 8 * 1024, 2 * 1024);
    const table = shifted.packed.table;
    expect(table.length).toBeGreaterThan(2);
    // Row 1 starts halfway into its own range: the keys before that are sent to row 0's index.
    const middle = (BigInt(`0x${table[1]!.first}`) + BigInt(`0x${table[2]!.first}`)) / 2n;
    const rows = table.map((row, position) =>
      position === 1 ? { ...row, first: middle.toString(16).padStart(16, '0') } : row,
    );
    expect(parsePackTable({ lookup: rows })).toHaveProperty('table');
    const shiftedProblems = await verifyPackedTool('lookup', rows, shifted.tree);
    expect(shiftedProblems).toContainEqual(expect.stringContaining("outside its row's key range"));
    expect(shiftedProblems).toContainEqual(expect.stringContaining('not reachable through the pack table'));
  });
});
