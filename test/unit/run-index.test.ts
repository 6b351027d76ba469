// The cache bucket's index of result lines, kept off the heap: every key finds its own line
// through the table's growth, a later line of a key wins, a key that is not 32 hex characters (a
// damaged log line) is never stored or found, and appends never add keys (run-bucket.ts). Lines
// laid end to end, with gaps, long lines and keys set again between growths, are found where they
// are. The index keeps 48 bits of a key: a key alike in those to a cached one is a miss, never its
// result.
// A reopened log is scanned whole, whatever lines cross its reads; a torn last line is cut off.
// A cleared index (the build's, once every call is answered) starts over empty.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunBucket } from '../../src/builder/run-bucket.js';
import { RunIndex } from '../../src/builder/run-index.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

/** A scratch path of its own for an index (the index creates and unlinks it past a few thousand keys). */
const scratchFile = (): string => path.join(temporaryFolderSync('staticmcp-run-index-'), 'keys');
const keyOf = (index: number): string => createHash('sha256').update(String(index)).digest('hex').slice(0, 32);

describe('RunIndex', () => {
  it('finds each of 5,000 keys at its own line, and the later line of a key set twice', () => {
    const index = new RunIndex(scratchFile());
    for (let call = 0; call < 5_000; call++) index.set(keyOf(call), call * 100, call + 1);
    index.set(keyOf(7), 999_999, 3);
    expect(index.size).toBe(5_000);
    for (let call = 0; call < 5_000; call++) {
      expect(index.get(keyOf(call))).toEqual(
        call === 7 ? { offset: 999_999, length: 3 } : { offset: call * 100, length: call + 1 },
      );
    }
    expect(index.has(keyOf(5_000))).toBe(false);
    expect(index.get(keyOf(5_001))).toBeUndefined();
  });

  it('finds lines laid end to end past gaps, long lines and keys set again across growths', () => {
    const index = new RunIndex(scratchFile());
    const expected = new Map<string, { offset: number; length: number }>();
    let offset = 0;
    for (let line = 0; line < 20_000; line++) {
      // Every 7th line sets an earlier key again; some lines are long; some follow skipped bytes.
      const key = keyOf(line % 7 === 6 ? line - 500 : line);
      const length = line % 101 === 0 ? 70_000 + line : 40 + (line % 300);
      if (line % 53 === 0) offset += 1 + (line % 4_000);
      index.set(key, offset, length);
      expected.set(key, { offset, length });
      offset += length + 1;
    }
    expect(index.size).toBe(expected.size);
    for (const [key, where] of expected) expect(index.get(key)).toEqual(where);
    index.set(keyOf(3), offset, 12, true);
    expect(index.get(keyOf(3))).toEqual({ offset, length: 12 });
    expect(index.size).toBe(expected.size);
  });

  it('never stores or finds a key that is not 32 hex characters, and moves only known keys when asked', () => {
    const index = new RunIndex(scratchFile());
    index.set('zz'.repeat(16), 1, 1);
    index.set(keyOf(1).slice(0, 31), 1, 1);
    expect(index.size).toBe(0);
    expect(index.has('zz'.repeat(16))).toBe(false);
    index.set(keyOf(2), 10, 5, true);
    expect(index.has(keyOf(2))).toBe(false);
    index.set(keyOf(2), 10, 5);
    index.set(keyOf(2), 20, 6, true);
    expect(index.get(keyOf(2))).toEqual({ offset: 20, length: 6 });
    index.clear();
    expect(index.has(keyOf(2))).toBe(false);
  });

  it('after a clear that gives its grown memory back, finds only the keys set since, through a new growth', () => {
    const index = new RunIndex(scratchFile());
    for (let call = 0; call < 5_000; call++) index.set(keyOf(call), call * 100, call + 1);
    index.clear();
    expect(index.size).toBe(0);
    expect(index.has(keyOf(1))).toBe(false);
    for (let call = 5_000; call < 8_000; call++) index.set(keyOf(call), call, 2);
    expect(index.size).toBe(3_000);
    expect(index.get(keyOf(4_999))).toBeUndefined();
    for (let call = 5_000; call < 8_000; call++) expect(index.get(keyOf(call))).toEqual({ offset: call, length: 2 });
  });

  it('keeps 40,000 keys in sorted runs on disk, leaving no file, and finds each, moved or set again', () => {
    const folder = temporaryFolderSync('staticmcp-run-index-');
    const index = new RunIndex(path.join(folder, 'keys'));
    const expected = new Map<string, { offset: number; length: number }>();
    let offset = 0;
    const setLine = (key: string, length: number): void => {
      index.set(key, offset, length);
      expected.set(key, { offset, length });
      offset += length + 1;
    };
    /**
     * The keys whose line the index gets wrong, looked up in the order they were first set (a key
     * set again right after the line before its first one: next to its replaced entry) and then
     * in a scattered order (each lookup far from the one before: read from disk).
     */
    const wrongKeys = (): string[] => {
      const keys = [...expected.keys()];
      const scattered = keys.map((_, at) => keys[(at * 7_919) % keys.length]!);
      return [...keys, ...scattered].filter((key) => {
        const where = index.get(key);
        return where?.offset !== expected.get(key)!.offset || where?.length !== expected.get(key)!.length;
      });
    };
    // Keys set again land in other runs than their first line (runs hold ~12,000 keys).
    for (let line = 0; line < 40_000; line++) setLine(keyOf(line % 10 === 9 ? line - 15_000 : line), 30 + (line % 50));
    expect(readdirSync(folder)).toEqual([]);
    expect(index.size).toBe(expected.size);
    expect(wrongKeys()).toEqual([]);
    expect(index.has(keyOf(40_001))).toBe(false);
    // Moved after the merge (a rerun's append), then more keys added: a second merge.
    index.set(keyOf(12), offset, 7, true);
    expected.set(keyOf(12), { offset, length: 7 });
    offset += 8;
    for (let line = 40_000; line < 46_000; line++) setLine(keyOf(line % 2 === 0 ? line - 35_000 : line), 20);
    expect(index.size).toBe(expected.size);
    expect(wrongKeys()).toEqual([]);
    index.clear();
    expect(index.has(keyOf(12))).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('gives key bits back chunk by chunk as a build looks each key up, and answers the same after', () => {
    const index = new RunIndex(scratchFile());
    // Keys made faster than by sha256 (300,000 of them), each distinct in the 48 bits kept.
    const hex = (value: number): string => value.toString(16).padStart(8, '0');
    const fastKey = (line: number): string => `${hex(Math.imul(line, 0x9e3779b1) >>> 0)}${hex(line)}${'0'.repeat(16)}`;
    // Two chunks of key bits and part of a third; every 9th line sets an earlier key again.
    const lines = 300_000;
    const expected = new Map<string, number>();
    for (let line = 0; line < lines; line++) {
      const key = fastKey(line % 9 === 8 && line >= 70_000 ? line - 70_000 : line);
      index.set(key, line * 10, 9);
      expected.set(key, line * 10);
    }
    const keys = [...expected.keys()];
    const wrong = (order: readonly string[]): number =>
      order.filter((key) => index.get(key)?.offset !== expected.get(key)).length;
    expect(index.heldKeyBits).toBe(lines);
    // Looked up in the log's order, as a build does: every chunk but the last is given back.
    expect(wrong(keys.slice(0, keys.length / 2))).toBe(0);
    expect(index.heldKeyBits).toBeLessThan(lines);
    expect(wrong(keys.slice(keys.length / 2))).toBe(0);
    expect(index.heldKeyBits).toBeLessThanOrEqual(lines - 2 * 131_072);
    // Looked up again, a run in order and some scattered: from the keys on disk, the same answers.
    expect(wrong(keys.slice(1_000, 3_000))).toBe(0);
    expect(wrong(keys.filter((_, at) => at % 97 === 0).map((_, at) => keys[(at * 7_919) % keys.length]!))).toBe(0);
    expect(index.has(fastKey(lines + 1))).toBe(false);
    // A key moved after its chunk was given back (a rerun's append) is found at its new line.
    index.set(fastKey(5), lines * 10, 4, true);
    expect(index.get(fastKey(5))).toEqual({ offset: lines * 10, length: 4 });
  });

  it('stops with what to do when its scratch file cannot be made, never with a wrong answer', () => {
    const index = new RunIndex(path.join(temporaryFolderSync('staticmcp-run-index-'), 'missing', 'keys'));
    let failure: unknown;
    try {
      for (let line = 0; line < 20_000; line++) index.set(keyOf(line), line * 10, 9);
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({
      code: 'SCRATCH_FILE_FAILED',
      message: expect.stringContaining(path.join('missing', 'keys')),
      hint: expect.stringContaining('build again'),
    });
  });

  it('keeps an offset past 4 GiB', () => {
    const index = new RunIndex(scratchFile());
    index.set(keyOf(3), 2 ** 40 + 17, 9);
    expect(index.get(keyOf(3))).toEqual({ offset: 2 ** 40 + 17, length: 9 });
  });

  it('answers a key alike in its first 64 bits (so in the 48 kept) to a cached one as a miss, not with that result', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'staticmcp-run-index-'));
    try {
      const file = path.join(folder, 'bucket.log');
      const cached = keyOf(1);
      const alike = `${cached.slice(0, 16)}${cached.slice(16) === '0'.repeat(16) ? '1' : '0'}${'0'.repeat(15)}`;
      const writing = new RunBucket<{ answer: number }>(file, false);
      writing.set(cached, { answer: 42 });
      writing.release();
      const reading = new RunBucket<{ answer: number }>(file, false);
      expect(reading.get(cached)).toEqual({ answer: 42 });
      expect(reading.get(alike)).toBeUndefined();
      reading.release();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('finds every result of a reopened log whose lines straddle its scan reads, and cuts a torn last line', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'staticmcp-run-index-'));
    try {
      const file = path.join(folder, 'bucket.log');
      const writing = new RunBucket<{ text: string }>(file, false);
      // Short lines and lines longer than a scan read (64 KiB), so keys and records cross reads.
      const textOf = (index: number): string => (index % 97 === 0 ? 'long '.repeat(14_000) : `result ${index}`);
      for (let index = 0; index < 3000; index++) writing.set(keyOf(index), { text: textOf(index) });
      writing.release();
      appendFileSync(file, `${keyOf(3000)}\t{"text":"torn`);
      const reading = new RunBucket<{ text: string }>(file, false);
      for (let index = 0; index < 3000; index++) expect(reading.get(keyOf(index))?.text).toBe(textOf(index));
      expect(reading.has(keyOf(3000))).toBe(false);
      reading.release();
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
