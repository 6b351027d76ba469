// The build cache's keys: each part, objects as canonical JSON, followed by a NUL, hashed with
// sha256, whether the parts are hashed at once (strings and objects) or streamed (with bytes).
// A key that changed for the same parts would rerun every cached call of a project.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashParts } from '../../src/builder/cache-keys.js';
import { canonicalJson } from '../../src/core/tree/canonical-json.js';

const sha256Hex = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

describe('hashParts', () => {
  it('hashes each part and a NUL, objects whatever their key order, text as UTF-8', () => {
    const args = { b: [1, 'é'], a: { y: null, x: '\ud83d\ude00 lone \ud800' } };
    const canonical = canonicalJson(args);
    expect(canonical.startsWith('{"a":{"x":')).toBe(true);
    expect(hashParts(args)).toBe(sha256Hex(`${canonical}\0`));
    expect(hashParts({ a: args.a, b: args.b })).toBe(hashParts(args));
    expect(hashParts('tool', 'v1', args)).toBe(sha256Hex(`tool\0v1\0${canonical}\0`));
    expect(hashParts('a', 'b')).not.toBe(hashParts('ab'));
  });

  it('gives bytes the same key as the text they encode', () => {
    expect(hashParts('seed', Buffer.from('é'), { a: 1 })).toBe(hashParts('seed', 'é', { a: 1 }));
    expect(hashParts(Buffer.from('x'))).toBe(sha256Hex('x\0'));
  });
});
