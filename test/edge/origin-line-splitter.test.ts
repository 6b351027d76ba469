// How the edge splits a live origin's answer into lines (origin-line-splitter.ts): lines split
// anywhere across chunks come out whole, and a line past its cap or one line too many is refused
// as soon as it shows, before the rest of the answer is read.
import { describe, expect, it } from 'vitest';
import { LineLimitExceeded, OriginLineSplitter } from '../../src/hosts/edge/origin-line-splitter.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function split(splitter: OriginLineSplitter, ...chunks: string[]): string[] {
  return chunks.flatMap((chunk) => splitter.push(encoder.encode(chunk)).map((line) => decoder.decode(line)));
}

function limitOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof LineLimitExceeded) return error.kind;
    throw error;
  }
  return undefined;
}

describe('the origin line splitter', () => {
  it('gives each line whole, however the chunks cut it, and the last one without a newline', () => {
    const splitter = new OriginLineSplitter(1024, 100);
    expect(split(splitter, '{"a"', ':1}\n{"b":', '2}\n\n{"c":3}\n{"é', '":', '4}')).toEqual([
      '{"a":1}',
      '{"b":2}',
      '',
      '{"c":3}',
    ]);
    expect(decoder.decode(splitter.finish())).toBe('{"é":4}');
    expect(splitter.finish()).toBeUndefined();
  });

  it('refuses a line past its cap while it is still open, not when it ends', () => {
    const splitter = new OriginLineSplitter(10, 100);
    expect(split(splitter, '0123456789\n')).toEqual(['0123456789']);
    expect(split(splitter, '01234')).toEqual([]);
    expect(limitOf(() => split(splitter, '567890'))).toBe('line-bytes');
    expect(limitOf(() => split(new OriginLineSplitter(10, 100), '01234567890\n'))).toBe('line-bytes');
  });

  it('refuses one line more than a run may send', () => {
    const splitter = new OriginLineSplitter(100, 3);
    expect(split(splitter, 'a\nb\nc\n')).toEqual(['a', 'b', 'c']);
    expect(limitOf(() => split(splitter, 'd\n'))).toBe('lines');
  });

  it('splits a 3 MiB line sent in 512-byte chunks in linear time', () => {
    const splitter = new OriginLineSplitter(10 * 1024 * 1024, 10);
    const chunk = encoder.encode('x'.repeat(512));
    const start = process.cpuUsage();
    let early = 0;
    for (let sent = 0; sent < 3 * 1024 * 1024; sent += chunk.byteLength) early += splitter.push(chunk).length;
    expect(early).toBe(0);
    const [line] = splitter.push(encoder.encode('\n'));
    expect(line?.byteLength).toBe(3 * 1024 * 1024);
    expect(cpuMsSince(start)).toBeLessThan(2_000);
  });
});
