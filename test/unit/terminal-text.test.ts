// Human lines on a terminal: control characters shown as escapes, and a huge value shown by its ends
// and its length, so an error about a 5,000-character argument stays a readable line or two.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LONGEST_SHOWN_WORD_CHARS, shortenLongWords, writeHumanLines } from '../../src/shared/terminal-text.js';

function printed(lines: string[]): string {
  const stream = new PassThrough();
  writeHumanLines(stream, lines);
  return stream.read()?.toString() ?? '';
}

describe('human lines', () => {
  it('shows a huge value by its ends and its length', () => {
    const port = '9'.repeat(5000);
    const line = printed([`staticmcp serve: --port ${port} is not a port number`]);
    expect(line.length).toBeLessThan(400);
    expect(line).toContain('[5000 characters]');
    expect(line).toMatch(/^staticmcp serve: --port 9{120}…\[5000 characters\]…9{40} is not a port number\n$/);
  });

  it('leaves words up to the limit as they are, and cuts by character, not UTF-16 unit', () => {
    const path = `/srv/${'a'.repeat(LONGEST_SHOWN_WORD_CHARS - 5)}`;
    expect(shortenLongWords(`missing ${path}`)).toBe(`missing ${path}`);
    const emoji = '😀'.repeat(300);
    const shown = shortenLongWords(emoji);
    expect(shown).toBe(`${'😀'.repeat(120)}…[300 characters]…${'😀'.repeat(40)}`);
    expect(shown).not.toMatch(/\uFFFD/);
  });

  it('escapes control characters before shortening, one message one line', () => {
    const escapedWord = `\\x1b[2J${'x'.repeat(300)}\\nforged`;
    const shown = `${escapedWord.slice(0, 120)}…[${escapedWord.length} characters]…${escapedWord.slice(-40)}`;
    expect(printed([`bad \x1b[2J${'x'.repeat(300)}\nforged line`])).toBe(`bad ${shown} line\n`);
  });
});
