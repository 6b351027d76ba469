// The lookup of the search writer's kept entries by digest (tree-writer/kept-digest-table.ts): an
// edit build finds each unchanged document's kept entry through it, so a wrong answer would take
// another document's share, and a missed one would tokenize it again.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DigestTable } from '../../src/tree-writer/kept-digest-table.js';

/** A record: a tag byte, then its digest (at offset 1), then a filler byte. */
const RECORD_BYTES = 34;

function digestOf(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function recordsOf(digests: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(digests.length * RECORD_BYTES);
  digests.forEach((digest, record) => {
    bytes[record * RECORD_BYTES] = record % 2;
    bytes.set(digest, record * RECORD_BYTES + 1);
    bytes[record * RECORD_BYTES + 33] = 0xff;
  });
  return bytes;
}

describe('DigestTable', () => {
  it('finds every record by its digest and nothing else', () => {
    const digests = Array.from({ length: 5000 }, (_, number) => digestOf(`document ${number}`));
    const bytes = recordsOf(digests);
    const table = new DigestTable(1);
    table.index(bytes, RECORD_BYTES, digests.length);
    const wrong = digests.flatMap((digest, record) =>
      table.get(bytes, digest) === record * RECORD_BYTES ? [] : [record],
    );
    expect(wrong).toEqual([]);
    expect(table.get(bytes, digestOf('no such document'))).toBeUndefined();
    expect(table.get(bytes, digests[0]!.subarray(0, 16))).toBeUndefined();
  });

  it('tells apart digests whose first bytes are the same', () => {
    // Same first eight bytes: the same slot, so only the whole digest tells them apart.
    const digests = Array.from({ length: 40 }, (_, number) => {
      const digest = digestOf(`clash ${number}`);
      digest.fill(7, 0, 8);
      return digest;
    });
    const bytes = recordsOf(digests.slice(0, 30));
    const table = new DigestTable(1);
    table.index(bytes, RECORD_BYTES, 30);
    digests.slice(0, 30).forEach((digest, record) => {
      expect(table.get(bytes, digest)).toBe(record * RECORD_BYTES);
    });
    for (const missing of digests.slice(30)) expect(table.get(bytes, missing)).toBeUndefined();
  });

  it('finds the last of records with one digest, and only the records it was told to index', () => {
    const same = digestOf('twice');
    const digests = [digestOf('a'), same, digestOf('b'), same, digestOf('c')];
    const bytes = recordsOf(digests);
    const all = new DigestTable(1);
    all.index(bytes, RECORD_BYTES, digests.length);
    expect(all.get(bytes, same)).toBe(3 * RECORD_BYTES);
    // Records whose tag byte is 1 (the odd ones) only.
    const odd = new DigestTable(1);
    odd.index(bytes, RECORD_BYTES, digests.length, (start) => bytes[start] === 1);
    expect(odd.get(bytes, same)).toBe(3 * RECORD_BYTES);
    expect(odd.get(bytes, digests[0]!)).toBeUndefined();
    expect(odd.get(bytes, digests[2]!)).toBeUndefined();
    odd.clear();
    expect(odd.get(bytes, same)).toBeUndefined();
  });
});
