// The pack writer against real files: its packs and indexes written to a folder read back through
// FolderSource + FolderPackFiles; the same calls give byte-identical files in any order; one
// changed call renames only its pack and its index, and a rewrite given the previous packs by
// records digest encodes only that pack; a left-out-default copy is a second name on
// the same record, not a second copy of its bytes; a pack encoded in place is its records' bytes,
// and an index written from columns its entries' bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INDEX_ENTRY_BYTES, KEY_KIND, parseIndex, parsePack } from '../../src/core/packs/pack-format.js';
import { parsePackTable } from '../../src/core/packs/pack-table.js';
import { PackedTreeSource } from '../../src/core/packs/packed-tree-source.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { encodeIndex, encodePack, encodeRecord } from '../../src/core/packs/pack-encoding.js';
import {
  generateToolPacks,
  maxPackFilesFor,
  type PackRecord,
  packToolRecords,
} from '../../src/tree-writer/pack-writer.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const encoder = new TextEncoder();

function callsOf(count: number, change?: { position: number; text: string }): PackRecord[] {
  return Array.from({ length: count }, (_, position) => ({
    paths: [`tools/capital/country-${position}.json`],
    bytes: encoder.encode(
      change?.position === position
        ? change.text
        : JSON.stringify({ content: [{ type: 'text', text: `capital ${position}` }] }),
    ),
  }));
}

function writeFiles(root: string, files: { path: string; bytes: Uint8Array }[]): void {
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file.path)), { recursive: true });
    writeFileSync(path.join(root, file.path), file.bytes);
  }
}

function sourceOver(root: string, table: unknown): PackedTreeSource {
  const parsed = parsePackTable(table);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return new PackedTreeSource(new FolderSource(root, 'tree'), new FolderPackFiles(root), parsed.table);
}

describe('pack writer', () => {
  it('writes packs a folder reader answers every call from, within the target size', async () => {
    const root = temporaryFolderSync('staticmcp-packs-');
    // Each call is read back from disk: 3,000 fill more than 8 packs and several indexes.
    const calls = callsOf(3_000);
    const packed = packToolRecords({
      tool: 'capital',
      records: calls,
      targetPackBytes: 32 * 1024,
      targetIndexBytes: 16 * 1024,
    });
    writeFiles(root, packed.files);
    writeFileSync(path.join(root, 'mcp.json'), '{}');
    const packs = packed.files.filter((file) => file.path.endsWith('.pack'));
    expect(packs.length).toBeGreaterThan(8);
    expect(packed.files.filter((file) => file.path.endsWith('.idx')).length).toBeGreaterThan(1);
    // Power-of-two buckets of a hash: between half the target and the target, give or take.
    for (const pack of packs) expect(pack.bytes.length).toBeLessThan(32 * 1024 * 1.3);
    expect(readdirSync(path.join(root, 'packs/capital')).length).toBe(packed.files.length);
    const recordBytes = calls.reduce((sum, call) => sum + call.bytes.length + call.paths[0]!.length + 16, 0);
    expect(packed.files.length).toBeLessThanOrEqual(maxPackFilesFor(recordBytes, calls.length, 32 * 1024, 16 * 1024));
    const source = sourceOver(root, { capital: packed.table });
    for (let position = 0; position < calls.length; position += 1) {
      const read = await source.read(`tools/capital/country-${position}.json`);
      expect(read.status === 'ok' && read.text).toBe(new TextDecoder().decode(calls[position]!.bytes));
    }
    expect(await source.read('mcp.json')).toEqual({ status: 'ok', text: '{}' });
    expect(await source.read('tools/capital/nowhere.json')).toEqual({ status: 'missing' });
  });

  it('gives byte-identical files for the same calls in any order', () => {
    const calls = callsOf(2_000);
    const first = packToolRecords({ tool: 'capital', records: calls, targetPackBytes: 8 * 1024 });
    const second = packToolRecords({ tool: 'capital', records: [...calls].reverse(), targetPackBytes: 8 * 1024 });
    const contentOf = (packed: typeof first) =>
      packed.files.map((file) => [file.path, Buffer.from(file.bytes).toString('base64')]);
    expect(contentOf(second)).toEqual(contentOf(first));
    expect(second.table).toEqual(first.table);
  });

  it('encodes a pack in place, byte for byte as its records encoded one by one, and refuses a body of another size', () => {
    const calls = callsOf(3_000);
    const packed = packToolRecords({ tool: 'capital', records: calls, targetPackBytes: 8 * 1024 });
    const packs = packed.files.filter((file) => file.path.endsWith('.pack'));
    expect(packs.length).toBeGreaterThan(4);
    for (const pack of packs) {
      const parsed = parsePack(pack.bytes, pack.path);
      if (!('records' in parsed)) throw new Error(parsed.reason);
      const oneByOne = encodePack(parsed.records.map(({ record }) => encodeRecord(record)));
      expect(Buffer.from(oneByOne).equals(Buffer.from(pack.bytes))).toBe(true);
    }
    const announced = calls.map((call) => ({ paths: call.paths, byteLength: call.bytes.length + 1 }));
    const generator = generateToolPacks({
      tool: 'capital',
      records: announced,
      readBody: (firstPath) => calls.find((call) => call.paths[0] === firstPath)!.bytes,
      targetPackBytes: 8 * 1024,
    });
    expect(() => generator.next()).toThrow(/bytes, not the .* announced/);
  });

  it('writes each index byte for byte as its entries encoded one by one', () => {
    const packed = packToolRecords({ tool: 'capital', records: callsOf(3_000), targetPackBytes: 8 * 1024 });
    const indexes = packed.files.filter((file) => file.path.endsWith('.idx'));
    expect(indexes.length).toBeGreaterThan(1);
    for (const file of indexes) {
      const index = parseIndex(file.bytes, file.path);
      if (!('entryCount' in index)) throw new Error(index.reason);
      const entries = Array.from({ length: index.entryCount }, (_, entry) => {
        const at = index.entriesStart + entry * INDEX_ENTRY_BYTES;
        const keyAt = index.heapStart + index.view.getUint32(at);
        return {
          key: index.bytes.slice(keyAt, keyAt + index.view.getUint16(at + 4)),
          pack: index.view.getUint16(at + 6),
          recordOffset: index.view.getUint32(at + 8),
          recordLength: index.view.getUint32(at + 12),
        };
      });
      const oneByOne = encodeIndex(KEY_KIND.call, [...index.packs], entries);
      expect(Buffer.from(oneByOne).equals(Buffer.from(file.bytes))).toBe(true);
    }
  });

  it('renames only the changed call’s pack and index', () => {
    const options = { tool: 'capital', targetPackBytes: 8 * 1024, targetIndexBytes: 4 * 1024 };
    const before = packToolRecords({ ...options, records: callsOf(2_000) });
    const after = packToolRecords({
      ...options,
      records: callsOf(2_000, { position: 1234, text: '{"changed":"a longer answer than before"}' }),
    });
    const beforeNames = new Set(before.files.map((file) => file.path));
    const afterNames = new Set(after.files.map((file) => file.path));
    const gone = [...beforeNames].filter((name) => !afterNames.has(name));
    const added = [...afterNames].filter((name) => !beforeNames.has(name));
    expect(before.files.length).toBeGreaterThan(20);
    expect(gone.map((name) => path.extname(name)).sort()).toEqual(['.idx', '.pack']);
    expect(added.map((name) => path.extname(name)).sort()).toEqual(['.idx', '.pack']);
    // The table changes in the one row of the renamed index.
    const changedRows = after.table.filter((row, position) => row.index !== before.table[position]!.index);
    expect(changedRows).toHaveLength(1);
  });

  it('links the packs whose records a previous write had, reading only the changed pack’s bodies', () => {
    const options = { tool: 'capital', targetPackBytes: 8 * 1024, targetIndexBytes: 4 * 1024 };
    const digestOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
    const run = (records: PackRecord[], previous?: Map<string, { path: string; bytes: Uint8Array }>) => {
      const bodies = new Map(records.map((record) => [record.paths[0]!, record.bytes]));
      const read: string[] = [];
      const generator = generateToolPacks({
        ...options,
        records: records.map((record) => ({ paths: record.paths, byteLength: record.bytes.length })),
        readBody: (firstPath) => {
          read.push(firstPath);
          return bodies.get(firstPath)!;
        },
        bodyDigest: (firstPath) => digestOf(bodies.get(firstPath)!),
        reusedPack: (records, length) => {
          const pack = previous?.get(records);
          return pack?.bytes.length === length ? pack.path : undefined;
        },
      });
      const packs = new Map<string, { path: string; bytes: Uint8Array }>();
      const files: { path: string; bytes: Uint8Array }[] = [];
      let reused = 0;
      let step = generator.next();
      for (; !step.done; step = generator.next()) {
        const { path: filePath, records: packRecords } = step.value;
        // A reused pack's bytes are the previous write's (the caller links its file).
        const bytes = step.value.reused
          ? [...previous!.values()].find((pack) => pack.path === filePath)!.bytes
          : step.value.bytes.slice();
        if (step.value.reused) reused += 1;
        if (packRecords !== undefined) packs.set(packRecords, { path: filePath, bytes });
        files.push({ path: filePath, bytes });
      }
      return { packs, files, table: step.value, read, reused };
    };
    const first = run(callsOf(2_000));
    const edited = callsOf(2_000, { position: 1234, text: '{"changed":"a longer answer than before"}' });
    const second = run(edited, first.packs);
    expect(first.packs.size).toBeGreaterThan(20);
    expect(second.reused).toBe(first.packs.size - 1);
    // Only the changed pack's bodies were read, and the files are a from-scratch write's.
    expect(second.read.length).toBeGreaterThan(0);
    expect(second.read.length).toBeLessThan(200);
    expect(second.read).toContain('tools/capital/country-1234.json');
    const fresh = packToolRecords({ ...options, records: edited });
    const sorted = second.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    expect(sorted.map((file) => file.path)).toEqual(fresh.files.map((file) => file.path));
    for (const [position, file] of fresh.files.entries())
      expect(Buffer.from(sorted[position]!.bytes).equals(file.bytes), file.path).toBe(true);
    expect(second.table).toEqual(fresh.table);
  });

  it('names each pack by the digest of its records, names and body digests in pack order', () => {
    // The key a previous build's .staticmcp/packs.json records: a pack of the same records is
    // linked from the previous tree only while this stays what it is.
    const digestOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
    const records: PackRecord[] = [
      { paths: ['tools/capital/Japan/en.json', 'tools/capital/Japan.json'], bytes: encoder.encode('{"a":1}') },
      ...callsOf(3_000),
    ];
    const bodies = new Map(records.map((record) => [record.paths[0]!, record.bytes]));
    const generator = generateToolPacks({
      tool: 'capital',
      targetPackBytes: 64 * 1024,
      records: records.map((record) => ({ paths: record.paths, byteLength: record.bytes.length })),
      readBody: (firstPath) => bodies.get(firstPath)!,
      bodyDigest: (firstPath) => digestOf(bodies.get(firstPath)!),
    });
    let packs = 0;
    for (let step = generator.next(); !step.done; step = generator.next()) {
      if (!step.value.path.endsWith('.pack')) continue;
      packs += 1;
      const parsed = parsePack(step.value.bytes, step.value.path);
      if (!('records' in parsed)) throw new Error(parsed.reason);
      const expected = createHash('sha256');
      for (const { record } of parsed.records) {
        for (const name of record.names) expected.update(name).update('\0');
        expected.update(digestOf(record.body)).update('\n');
      }
      expect(step.value.records).toBe(expected.digest('hex'));
    }
    expect(packs).toBeGreaterThan(1);
  });

  it('stores a left-out-default copy as a second name of one record', async () => {
    const root = temporaryFolderSync('staticmcp-packs-');
    const body = encoder.encode('{"content":[{"type":"text","text":"Tokyo"}]}');
    const packed = packToolRecords({
      tool: 'capital',
      records: [{ paths: ['tools/capital/Japan/en.json', 'tools/capital/Japan.json'], bytes: body }, ...callsOf(10)],
      targetPackBytes: 1 << 20,
    });
    writeFiles(root, packed.files);
    const pack = packed.files.find((file) => file.path.endsWith('.pack'))!;
    const parsed = parsePack(readFileSync(path.join(root, pack.path)), pack.path);
    expect(parsed).toHaveProperty('records');
    if ('records' in parsed) expect(parsed.records).toHaveLength(11);
    const source = sourceOver(root, { capital: packed.table });
    for (const name of ['tools/capital/Japan/en.json', 'tools/capital/Japan.json']) {
      expect(await source.read(name)).toMatchObject({ status: 'ok', text: new TextDecoder().decode(body) });
    }
  });

  it('never reads outside the folder through a pack symlinked out of it', async () => {
    const root = temporaryFolderSync('staticmcp-packs-');
    const outside = temporaryFolderSync('staticmcp-outside-');
    const packed = packToolRecords({ tool: 'capital', records: callsOf(10), targetPackBytes: 1 << 20 });
    writeFiles(outside, packed.files);
    writeFiles(
      root,
      packed.files.filter((file) => file.path.endsWith('.idx')),
    );
    for (const file of packed.files.filter((entry) => entry.path.endsWith('.pack'))) {
      symlinkSync(path.join(outside, file.path), path.join(root, file.path));
    }
    const source = sourceOver(root, { capital: packed.table });
    expect(await source.lookup('tools/capital/country-3.json')).toMatchObject({
      status: 'missing',
      reason: expect.stringContaining('missing on the host'),
    });
  });

  it('writes nothing for a tool without calls', () => {
    expect(packToolRecords({ tool: 'capital', records: [], targetPackBytes: 1 << 20 })).toEqual({
      files: [],
      table: [],
    });
  });
});
