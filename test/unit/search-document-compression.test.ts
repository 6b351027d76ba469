// The writers' deflate (search-document-compression.ts) picks a window from the input's size: the
// bytes must be those of zlib's largest window, so a tree stays byte-identical to one written with
// it (and to the kept records of earlier builds), and a reader's default window inflates them.
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  compressDocumentBody,
  compressExcerptSource,
  windowBitsFor,
} from '../../src/tree-writer/search-document-compression.js';

/** Text whose later lines repeat earlier ones from far back, so a too small window would miss them. */
function textOf(bytes: number, seed: number): string {
  const words = ['static', 'server', 'tree', 'pack', 'index', 'page', 'édition', '検索', 'worker', 'edge'];
  let text = '';
  let state = seed;
  const lines: string[] = [];
  while (text.length < bytes) {
    state = (state * 1103515245 + 12345) >>> 0;
    const line =
      lines.length > 8 && state % 3 === 0
        ? lines[state % lines.length]!
        : Array.from({ length: 6 }, (_, i) => words[(state >>> (i * 3)) % words.length]).join(' ') + ` ${state}`;
    lines.push(line);
    text += `${line}\n`;
  }
  return text.slice(0, bytes);
}

/** `block`, unrelated letters up to `distance`, then `block` again: one match `distance` back. */
function farRepeat(distance: number, blockLength: number): string {
  let state = distance;
  const letter = () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return String.fromCharCode(97 + ((state >>> 16) % 26));
  };
  const block = Array.from({ length: blockLength }, letter).join('');
  const filler = Array.from({ length: distance - blockLength }, letter).join('');
  return block + filler + block;
}

const SIZES = [
  0, 1, 100, 248, 249, 250, 500, 761, 762, 763, 4000, 7929, 7930, 8000, 16_000, 32_505, 32_506, 40_000, 100_000,
];

describe('the deflate window picked from the input', () => {
  it('writes the bytes of the largest window for every size around each window boundary', () => {
    for (const size of SIZES) {
      const text = textOf(size, size + 7);
      const plain = Buffer.from(text, 'utf8');
      const body = compressDocumentBody(text);
      const widest = deflateRawSync(plain, { level: 5 });
      expect(body.subarray(4).equals(widest), `body of ${size} characters`).toBe(true);
      expect(inflateRawSync(body.subarray(4)).toString('utf8')).toBe(text);
    }
  });

  it('still finds a match as far back as the largest window does, just under each window', () => {
    for (const bits of [10, 12, 13, 14]) {
      for (const distance of [2 ** bits - 263, 2 ** bits - 200]) {
        const text = farRepeat(distance, 120);
        const widest = deflateRawSync(Buffer.from(text, 'latin1'), { level: 5 });
        expect(compressDocumentBody(text).subarray(4).equals(widest), `a match ${distance} bytes back`).toBe(true);
      }
    }
  });

  it('keeps the sync-flushed excerpt sources the same bytes too', () => {
    for (const size of [10, 600, 5000]) {
      const text = textOf(size, size);
      const source = compressExcerptSource(text);
      const plainBytes = source.readUInt32BE(0) & 0x7fffffff;
      const widest = deflateRawSync(Buffer.from(text, 'utf8').subarray(0, plainBytes), {
        level: 5,
        finishFlush: constants.Z_SYNC_FLUSH,
      });
      expect(source.subarray(4).equals(widest), `excerpt source of ${size} characters`).toBe(true);
    }
  });

  it('grows the window with the input and stops at zlib’s largest', () => {
    expect(windowBitsFor(0)).toBe(9);
    expect(windowBitsFor(2 ** 12 - 263)).toBe(12);
    expect(windowBitsFor(2 ** 12 - 262)).toBe(13);
    expect(windowBitsFor(10_000_000)).toBe(15);
  });
});
