// A run's stderr as log lines: a line split over many chunks, or a character split between two,
// arrives whole, and a long line in small pieces costs time linear in its length.
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/core/results/log-lines.js';
import { captureOutput } from '../../src/script/run/capture-output.js';
import { cpuMsSince } from '../helpers/cpu-time.js';

function capture(): { lines: LogLine[]; feed(chunks: Buffer[]): void } {
  const lines: LogLine[] = [];
  const output = captureOutput({
    maxOutputBytes: 64 * 1024 * 1024,
    onOverflow: () => {},
    onLogLine: (line) => lines.push(line),
  });
  return {
    lines,
    feed(chunks) {
      for (const chunk of chunks) output.onStderr(chunk);
      output.finish();
    },
  };
}

describe('stderr log lines', () => {
  it('decodes a character split between two chunks, and a last line without a newline', () => {
    const bytes = Buffer.from('INFO: caf\u00e9 \u{1F600}\nWARNING: last', 'utf8');
    const { lines, feed } = capture();
    // Cut inside the é and inside the emoji.
    feed([bytes.subarray(0, 10), bytes.subarray(10, 14), bytes.subarray(14)]);
    expect(lines.map((line) => line.message)).toEqual(['caf\u00e9 \u{1F600}', 'last']);
  });

  it('reads a 3 MiB line sent in 512-byte pieces in linear time', () => {
    const text = `INFO: ${'x'.repeat(3 * 1024 * 1024)}\n`;
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let start = 0; start < bytes.length; start += 512) chunks.push(bytes.subarray(start, start + 512));
    const { lines, feed } = capture();
    const start = process.cpuUsage();
    feed(chunks);
    // Splitting the whole pending text per piece took tens of seconds; linear takes milliseconds.
    expect(cpuMsSince(start)).toBeLessThan(2_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toHaveLength(3 * 1024 * 1024);
  });
});
