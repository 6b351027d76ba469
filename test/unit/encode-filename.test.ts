import { describe, expect, it } from 'vitest';
import { encodeFilename, encodeKeySegment } from '../../src/core/tree/encode-filename.js';
import { hashLikeRustDefaultHasher, sipHash13Halves, sipHash13Low } from '../../src/core/tree/siphash.js';

describe('hashLikeRustDefaultHasher (SipHash-1-3, key 0, str terminator 0xFF)', () => {
  it.each([
    ['', '30406ea523c53def'],
    ['Hello World', '6ec8f3d824bb8003'],
    ['A'.repeat(250), '6caae0a338faa11c'],
    ['x'.repeat(201), '38298ec4fa395c3b'],
  ])('hashes %j like the reference generator', (input, expected) => {
    expect(hashLikeRustDefaultHasher(input)).toBe(expected);
  });

  it('gives the reference halves from its one shared state, hash after hash', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    // 'Hello World' and its 0xFF terminator: the reference value above, as two halves.
    const hello = new Uint8Array([...bytes('Hello World'), 0xff]);
    expect(sipHash13Halves(hello)).toEqual([0x6ec8f3d8, 0x24bb8003]);
    // A long input first leaves nothing behind for the next hash, and the low half alone agrees.
    sipHash13Low(bytes('A'.repeat(250)));
    expect(sipHash13Low(hello)).toBe(0x24bb8003);
    expect(sipHash13Halves(hello)).toEqual([0x6ec8f3d8, 0x24bb8003]);
  });
});

describe('encodeFilename (StaticMCP standard §3)', () => {
  it.each([
    ['Hello World', 'hello_world'],
    ['François Mitterrand', 'francois_mitterrand'],
    ['COVID-19 pandemic', 'covid-19_pandemic'],
    ['José María Aznar', 'jose_maria_aznar'],
    ['King George III', 'king_george_iii'],
    ['1992–93 Sacramento Kings', '1992_93_sacramento_kings'],
    ['Rosæ Crucis', 'ros__crucis'],
    ['Ørsted', '_rsted'],
    ['Egypt/Culture', 'egypt_culture'],
    ['../../etc/passwd', '______etc_passwd'],
    ['😀x', '_x'],
  ])('encodes %j as %j', (input, expected) => {
    expect(encodeFilename(input)).toBe(expected);
  });

  it('encodes every ASCII character as the full NFD rule does (ASCII skips that step)', () => {
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join('');
    const fullRule = (value: string): string =>
      value
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .replace(/[^a-z0-9_-]/gu, '_');
    expect(encodeFilename(ascii)).toBe(fullRule(ascii));
    expect(encodeFilename(`${ascii}é`)).toBe(fullRule(`${ascii}é`));
  });

  it('shortens long names to 183 characters, an underscore and the hash', () => {
    expect(encodeFilename('A'.repeat(250))).toBe(`${'a'.repeat(183)}_6caae0a338faa11c`);
    expect(encodeFilename('x'.repeat(201))).toBe(`${'x'.repeat(183)}_38298ec4fa395c3b`);
    expect(encodeFilename('x'.repeat(200))).toBe('x'.repeat(200));
  });

  it('gives an empty value a visible key segment', () => {
    expect(encodeFilename('')).toBe('');
    expect(encodeKeySegment('')).toBe('_30406ea523c53def');
  });
});
