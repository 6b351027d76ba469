// The document cache's record read through a window (document-record-reader.ts), on real record
// files: 5,000 entries (several windows) found in the order written, out of order and by digest,
// with the bytes that were written; an entry longer than a window; a record cut short or changed
// after it was checked finds nothing rather than wrong bytes; a damaged record is not opened.
import { createHash } from 'node:crypto';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocumentRecordHash, encodeEntry } from '../../src/project/document-record.js';
import { DocumentRecord } from '../../src/project/document-record-reader.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const KEY = 'test-generator markdown-summary/3 65536';
const COUNT = 5_000;

function entryOf(index: number, parsedJson = JSON.stringify({ text: true, summary: { title: `Page ${index}` } })) {
  return {
    relativePath: `resources/part-${index % 7}/doc-${index}.md`,
    mimeType: index % 3 === 0 ? 'text/plain' : 'text/markdown',
    trusted: index % 5 !== 0,
    stats: {
      ino: BigInt(1000 + index),
      size: BigInt(4000 + index),
      mtimeNs: 1_700_000_000_000_000_000n + BigInt(index),
    },
    sha256: createHash('sha256').update(`bytes ${index}`).digest('hex'),
    parsedJson,
    sitePage: false,
  };
}

/** A record file of `entries`, as the document cache writes it. */
function writeRecord(file: string, entries: ReturnType<typeof entryOf>[]): Buffer[] {
  const encoded = entries.map(encodeEntry);
  const hash = new DocumentRecordHash();
  const header = DocumentRecordHash.header(KEY);
  hash.add(header);
  for (const bytes of encoded) hash.add(bytes);
  writeFileSync(file, Buffer.concat([header, ...encoded, hash.trailer()]));
  return encoded;
}

describe('a document record read through a window', () => {
  const folder = temporaryFolderSync('document-record-');
  const file = path.join(folder, 'documents.bin');
  const entries = Array.from({ length: COUNT }, (_, index) => entryOf(index));
  const encoded = writeRecord(file, entries);

  it('finds every entry in the order written, with its fields and bytes', () => {
    const record = DocumentRecord.open(file, KEY)!;
    expect(record.size).toBe(COUNT);
    // Each entry's fields as read, compared once (an expect per field made this test slow).
    const wrong: number[] = [];
    for (let index = 0; index < COUNT; index++) {
      const entry = entries[index]!;
      const at = record.offsetOf(entry.relativePath)!;
      const right =
        record.entryBytes(at).equals(encoded[index]!) &&
        record.sha256At(at) === entry.sha256 &&
        record.mimeTypeAt(at) === entry.mimeType &&
        record.hasMimeTypeAt(at, entry.mimeType) &&
        !record.hasMimeTypeAt(at, entry.mimeType === 'text/plain' ? 'text/markdown' : 'text/plain') &&
        record.parsedJsonAt(at) === entry.parsedJson &&
        (record.flagsAt(at) & 1) === (entry.trusted ? 1 : 0) &&
        record.sameIdentityAt(at, entry.stats) &&
        !record.sameIdentityAt(at, { ...entry.stats, size: entry.stats.size + 1n });
      if (!right) wrong.push(index);
    }
    expect(wrong).toEqual([]);
    record.close();
  });

  it('finds entries out of order, by path and by digest and MIME type', () => {
    const record = DocumentRecord.open(file, KEY)!;
    // A stride through the record, and back: never the entry after the last one.
    const wrong: number[] = [];
    for (let step = 0; step < COUNT; step++) {
      const index = (step * 2_003) % COUNT;
      const at = record.offsetOf(entries[index]!.relativePath);
      if (at === undefined || !record.entryBytes(at).equals(encoded[index]!)) wrong.push(index);
    }
    expect(wrong).toEqual([]);
    expect(record.offsetOf('resources/none.md')).toBeUndefined();
    for (const index of [0, 1, 2_500, COUNT - 1]) {
      const { sha256, mimeType, parsedJson } = entries[index]!;
      const at = record.offsetOfDigest(sha256, mimeType)!;
      expect(record.parsedJsonAt(at)).toBe(parsedJson);
      expect(record.offsetOfDigest(sha256, 'image/png')).toBeUndefined();
    }
    expect(record.offsetOfDigest('00'.repeat(32), 'text/markdown')).toBeUndefined();
    record.close();
    expect(record.offsetOf(entries[0]!.relativePath)).toBeUndefined();
  });

  it('tells paths apart by every character, ASCII or not, at the cursor and away from it', () => {
    const unicodeFile = path.join(folder, 'unicode.bin');
    const named = (relativePath: string, index: number) => ({ ...entryOf(index), relativePath });
    const paths = ['resources/é.md', 'resources/e.md', 'resources/日本.md', 'resources/ab.md', 'resources/ac.md'];
    const written = writeRecord(unicodeFile, paths.map(named));
    const record = DocumentRecord.open(unicodeFile, KEY)!;
    // In order: each found at the cursor.
    const inOrder = paths.map((relativePath) => record.offsetOf(relativePath));
    expect(inOrder.map((at, index) => at !== undefined && record.entryBytes(at).equals(written[index]!))).toEqual(
      paths.map(() => true),
    );
    // Asked with the cursor on an entry of the same length in code units, or the same bytes but one.
    const again = DocumentRecord.open(unicodeFile, KEY)!;
    for (const [asked, wanted] of [
      ['resources/e.md', 1],
      ['resources/ab.md', 3],
      ['resources/ad.md', undefined],
      ['resources/日本.md', 2],
      ['resources/ëe.md', undefined],
    ] as const) {
      const at = again.offsetOf(asked);
      expect(at === undefined ? undefined : again.entryBytes(at).equals(written[wanted!]!)).toBe(
        wanted === undefined ? undefined : true,
      );
    }
    record.close();
    again.close();
  });

  it('reads an entry longer than a window whole', () => {
    const longFile = path.join(folder, 'long.bin');
    const long = entryOf(1, JSON.stringify({ text: true, summary: { description: 'x'.repeat(600_000) } }));
    const written = writeRecord(longFile, [entryOf(0), long, entryOf(2)]);
    const record = DocumentRecord.open(longFile, KEY)!;
    expect(record.size).toBe(3);
    expect(record.entryBytes(record.offsetOf(long.relativePath)!).equals(written[1]!)).toBe(true);
    expect(record.parsedJsonAt(record.offsetOf(entryOf(2).relativePath)!)).toBe(entryOf(2).parsedJson);
    record.close();
  });

  it('finds nothing more once the file was cut short after it was checked', () => {
    const cutFile = path.join(folder, 'cut.bin');
    writeRecord(cutFile, entries);
    const record = DocumentRecord.open(cutFile, KEY)!;
    expect(record.offsetOf(entries[0]!.relativePath)).toBeDefined();
    truncateSync(cutFile, 4_096);
    let found = 0;
    for (let index = 1; index < COUNT; index++)
      if (record.offsetOf(entries[index]!.relativePath) !== undefined) found++;
    // What the first window held was read before the cut; nothing past it is believed.
    expect(found).toBeLessThan(COUNT / 10);
    expect(record.offsetOf(entries[COUNT - 1]!.relativePath)).toBeUndefined();
    record.close();
  });

  it('is not opened when damaged, cut short, or of another key', () => {
    const damaged = path.join(folder, 'damaged.bin');
    writeRecord(damaged, entries.slice(0, 50));
    const bytes = readFileSync(damaged);
    expect(DocumentRecord.open(damaged, KEY)?.size).toBe(50);
    expect(DocumentRecord.open(damaged, `${KEY} other`)).toBeUndefined();
    const changed = Buffer.from(bytes);
    changed[changed.length - 100]! ^= 1;
    writeFileSync(damaged, changed);
    expect(DocumentRecord.open(damaged, KEY)).toBeUndefined();
    writeFileSync(damaged, bytes.subarray(0, bytes.length - 1));
    expect(DocumentRecord.open(damaged, KEY)).toBeUndefined();
    expect(DocumentRecord.open(path.join(folder, 'missing.bin'), KEY)).toBeUndefined();
  });
});
