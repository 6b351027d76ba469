// What the build holds per document past discovery (issue #39, "Memory"), held compactly: the
// document cache's record, written as documents pass instead of held (document-cache.ts): the
// heap it keeps is measured in a plain node process on the compiled module (vitest's module
// runner keeps state of its own), and the file it writes is the record the next build reads.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const DOCUMENTS = 3_000;
// What recording 3,000 documents leaves on the heap, after full collections, in bytes a document:
// the record as objects (path, digest, identity strings, the parse) held ~900.
const BOUND_BYTES_PER_DOCUMENT = 150;

const MEASURE = `
const [modulePath, root, count] = process.argv.slice(1);
const { DocumentCache } = await import(modulePath);
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
const stats = (index) => ({ ino: BigInt(1000 + index), size: 100n + BigInt(index), mtimeNs: 1_600_000_000_000_000_000n + BigInt(index) });
const parse = (index) => ({ text: true, summary: { title: 'Page ' + index + ' — a title', description: 'What page ' + index + ' is about.' } });
const warm = await DocumentCache.open(root + '/warm', 'generator 1', false);
for (let index = 0; index < 50; index += 1) warm.recordParse('w/' + index + '.md', 'text/markdown', stats(index), String(index).padStart(64, '0'), parse(index));
await warm.save();
const cache = await DocumentCache.open(root, 'generator 1', false);
const start = heap();
for (let index = 0; index < Number(count); index += 1)
  cache.recordParse('resources/page-' + index + '.md', 'text/markdown', stats(index), 'f' + index.toString(16).padStart(63, '0'), parse(index));
const perDocument = (heap() - start) / Number(count);
await cache.save();
const again = await DocumentCache.open(root, 'generator 1', false);
const hex = (digest) => Buffer.from(digest).toString('hex');
const found = again.lookupUntouched('resources/page-7.md', 'text/markdown', stats(7));
const known = found && { sha256: hex(found.digest), parsed: found.parsed };
const lookup = (changed) => {
  const found = again.lookupUntouched('resources/page-12.md', 'text/markdown', { ...stats(12), ...changed });
  return found === undefined ? false : hex(found.digest);
};
const page12 = { same: lookup({}), inode: lookup({ ino: 1n }), size: lookup({ size: 1n }), mtime: lookup({ mtimeNs: 1n }) };
const entries = again.previousDocuments;
console.log(JSON.stringify({ perDocument, known, parsed: cache.parsedCount, page12, entries }));
`;

describe('the document cache record', () => {
  it('keeps next to nothing on the heap per document, and writes the record the next build reads', () => {
    const root = temporaryFolderSync('document-cache-memory-');
    const modulePath = pathToFileURL(path.join(path.dirname(CLI), '..', 'project', 'document-cache.js')).href;
    const flags = ['--expose-gc', '--no-opt', '--no-sparkplug', '--no-maglev', '--input-type=module'];
    const run = spawnSync(process.execPath, [...flags, '-e', MEASURE, modulePath, root, String(DOCUMENTS)], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(run.stderr).toBe('');
    const measured = JSON.parse(run.stdout);
    expect(measured.parsed).toBe(DOCUMENTS);
    expect(measured.perDocument).toBeLessThan(BOUND_BYTES_PER_DOCUMENT);
    expect(measured.known).toEqual({
      sha256: `f${(7).toString(16).padStart(63, '0')}`,
      parsed: { text: true, summary: { title: 'Page 7 — a title', description: 'What page 7 is about.' } },
    });
    // The record the next build reads holds each document's identity: the same stat finds its
    // entry, another inode, size or mtime does not.
    expect(measured.entries).toBe(DOCUMENTS);
    expect(measured.page12).toEqual({
      same: `f${(12).toString(16).padStart(63, '0')}`,
      inode: false,
      size: false,
      mtime: false,
    });
  }, 60_000);
});
