// The Node 20 code cache of the CLI bundle (src/cli/code-cache.ts): a run without a cache file
// writes one, a later run uses it, and a damaged, truncated or stale file is ignored: the script
// still runs and answers right, and a good cache file replaces the bad one; a file others may
// write is never read. A bundle's cache is read into the buffer its text was, and V8 takes it there.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cacheFileFor,
  flushCacheWrite,
  readCacheFile,
  readScriptFile,
  requireWithCodeCache,
  wrapCommonJs,
  writeCacheFile,
} from '../../src/cli/code-cache.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const SOURCE = `module.exports = { answer: [1, 2, 3].map((n) => n * 14).join(','), where: __filename };
exports.ignored = true;
function unused() { return 'a function body long enough to be worth caching'.repeat(3); }
`;
const ANSWER = '14,28,42';
const importModule = (specifier: string): Promise<unknown> => import(specifier);

/** Runs SOURCE from a file in `folder` with the cache file `cacheFile`, and lets its cache write happen. */
function runScript(folder: string, source: string, cacheFile: string): { answer: string; where: string } {
  const file = path.join(folder, 'script.cjs');
  const script = wrapCommonJs(source);
  writeFileSync(file, script);
  const exports = requireWithCodeCache(file, script, cacheFile, importModule, createRequire(file)) as {
    answer: string;
    where: string;
  };
  // The write waits for a timer or the exit; the test does not.
  flushCacheWrite();
  return exports;
}

describe('the code cache of the CLI bundle', () => {
  it('is written by a first run and read by the next', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    const cacheFile = cacheFileFor(folder, 'key');
    expect(runScript(folder, SOURCE, cacheFile).answer).toBe(ANSWER);
    expect(readCacheFile(cacheFile)?.byteLength).toBeGreaterThan(0);
    expect(runScript(folder, SOURCE, cacheFile)).toEqual({ answer: ANSWER, where: path.join(folder, 'script.cjs') });
  });

  it('reads the cache into the buffer the script was read into, and V8 takes it from there', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    const cacheFile = cacheFileFor(folder, 'key');
    // Longer than its cache, as the bundles are: the cache fits in the room after the text.
    runScript(folder, `${SOURCE}// ${'a comment V8 keeps no code for '.repeat(100)}\n`, cacheFile);
    const written = statSync(cacheFile).ino;
    // As start-cli.ts loads a bundle: the script's text, then the cache into the same buffer.
    const file = path.join(folder, 'script.cjs');
    const { source, scratch } = readScriptFile(file);
    expect(readCacheFile(cacheFile, scratch)?.buffer).toBe(scratch.buffer);
    const exports = requireWithCodeCache(file, source, cacheFile, importModule, createRequire(file), scratch);
    flushCacheWrite();
    expect((exports as { answer: string }).answer).toBe(ANSWER);
    // A cache V8 refused would be written again (a new file renamed over it).
    expect(statSync(cacheFile).ino).toBe(written);
  });

  it('ignores a damaged or truncated cache file, and replaces it', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    const cacheFile = cacheFileFor(folder, 'key');
    runScript(folder, SOURCE, cacheFile);
    const good = readFileSync(cacheFile);
    const damaged = Buffer.from(good);
    for (let index = 12; index < damaged.byteLength; index += 7) damaged[index] = (damaged[index] ?? 0) ^ 0x5a;
    for (const bad of [damaged, good.subarray(0, good.byteLength >> 1), Buffer.from('not a cache'), Buffer.alloc(0)]) {
      writeFileSync(cacheFile, bad);
      expect(readCacheFile(cacheFile)).toBeUndefined();
      expect(runScript(folder, SOURCE, cacheFile).answer).toBe(ANSWER);
      expect(readCacheFile(cacheFile)).toBeDefined();
    }
  });

  it('ignores a cache file with one byte changed, wherever it is', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    const cacheFile = cacheFileFor(folder, 'key');
    runScript(folder, SOURCE, cacheFile);
    const good = readFileSync(cacheFile);
    // Header bytes and payload bytes in every lane of the checksum, and the last one.
    const positions = [4, 8, ...Array.from({ length: 40 }, (_, index) => 16 + index * 3), good.byteLength - 1];
    for (const position of positions) {
      const damaged = Buffer.from(good);
      damaged[position] = (damaged[position] ?? 0) ^ 0x01;
      writeFileSync(cacheFile, damaged);
      expect(readCacheFile(cacheFile), `byte ${position} changed`).toBeUndefined();
    }
  });

  it('does not read a cache file that others may write, and replaces it with one only its user can', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    const cacheFile = cacheFileFor(folder, 'key');
    runScript(folder, SOURCE, cacheFile);
    expect(statSync(cacheFile).mode & 0o077).toBe(0);
    chmodSync(cacheFile, 0o666);
    expect(readCacheFile(cacheFile)).toBeUndefined();
    expect(runScript(folder, SOURCE, cacheFile).answer).toBe(ANSWER);
    expect(readCacheFile(cacheFile)).toBeDefined();
  });

  it('runs a changed script right from a stale cache file of the old one, and replaces it', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    const cacheFile = cacheFileFor(folder, 'key');
    // A well-formed cache file (its checksum holds) made for another source.
    writeCacheFile(cacheFile, readCacheFileOf(folder, `${SOURCE}// another script\n`));
    const stale = readFileSync(cacheFile);
    expect(runScript(folder, SOURCE, cacheFile).answer).toBe(ANSWER);
    expect(readFileSync(cacheFile).equals(stale)).toBe(false);
  });

  it('runs without a cache where the cache folder cannot be made', () => {
    const folder = temporaryFolderSync('staticmcp-code-cache-');
    writeFileSync(path.join(folder, 'not-a-folder'), '');
    const cacheFile = cacheFileFor(path.join(folder, 'not-a-folder'), 'key');
    expect(runScript(folder, SOURCE, cacheFile).answer).toBe(ANSWER);
    expect(readCacheFile(cacheFile)).toBeUndefined();
  });
});

/** The cache payload V8 makes for `source`, run from a file in `folder`. */
function readCacheFileOf(folder: string, source: string): Uint8Array {
  const cacheFile = cacheFileFor(folder, 'other');
  runScript(folder, source, cacheFile);
  const payload = readCacheFile(cacheFile);
  if (!payload) throw new Error('no cache was written');
  return payload;
}
