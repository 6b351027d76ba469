// The content hash's record (`.staticmcp/content-hash.bin`, src/tree-writer/content-hash-state.ts):
// a build that finds it patches and merges it instead of sorting every path, and must give the
// hashes the full walk gives, whatever the record holds: after an edit, a renamed or added or
// dropped file, a renumbering, and from a record that is damaged, cut short, of other filters,
// holds stale digests or is missing.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ALL_FILES, type FileFilter, hashSlotsBy } from '../../src/tree-writer/content-hash.js';
import { type HashedFiles, hashWithState } from '../../src/tree-writer/content-hash-state.js';
import { FileDigests } from '../../src/tree-writer/file-digests.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** The search step's filter's shape: the resources and the list parts, taken on their prefixes. */
const DOCUMENTS: FileFilter = Object.assign((filePath: string) => filePath.startsWith('resources/'), {
  acceptedPrefixes: ['resources/'],
  identity: 'documents',
});
const INCLUDES = [ALL_FILES, DOCUMENTS];

/** A tree's files as a build writes them: [path, content] in write order. */
function treeFiles(count: number, edited = -1): [string, string][] {
  const files: [string, string][] = [['tools/t/a.json', '{"a":1}']];
  for (let index = 0; index < count; index++) {
    const body = `{"page":${index}${index === edited ? ',"edited":true' : ''}}`;
    files.push([`resources/part-${index % 3}/doc-${index}_md.json`, body]);
  }
  // Raw-name copies after the documents, as the assembly writes them: their order interleaves.
  for (let index = 0; index < count; index++)
    files.push([`resources/part-${index % 3}/doc-${index}.md.json`, `${index}`]);
  files.push([`lists/resources/${edited >= 0 ? 'edited' : 'first'}.json`, `[${edited}]`]);
  files.push(['index.html', '<p>é</p>']);
  return files;
}

/** The writer's record of `files` (digests spilled to a file past the first few thousand), with `dropped` dropped. */
function digestsOf(folder: string, files: [string, string][], dropped: string[] = []): FileDigests {
  const digests = new FileDigests(path.join(folder, `digests-${Math.random().toString(36).slice(2)}`));
  for (const [filePath, content] of files) digests.set(filePath, createHash('sha256').update(content).digest());
  for (const filePath of dropped) digests.drop(filePath);
  return digests;
}

const walks = new Map<string, string[]>();

/** The hashes the full walk gives (no record read or written), once per tree. */
function walked(folder: string, files: [string, string][], dropped: string[] = []): string[] {
  const key = JSON.stringify([files.length, files[0], files.at(-2), dropped]);
  const known = walks.get(key);
  if (known) return known;
  const digests = digestsOf(folder, files, dropped);
  try {
    const hashes = hashSlotsBy(digests.inHashOrder(), digests, INCLUDES);
    walks.set(key, hashes);
    return hashes;
  } finally {
    digests.close();
  }
}

/** hashWithState's hashes, and whether it walked every path in the hash's order (sorting them) or used the record. */
function hashedWalking(
  folder: string,
  file: string,
  files: [string, string][],
  dropped: string[] = [],
  readPrevious = true,
): { hashes: string[]; walked: boolean } {
  const digests = digestsOf(folder, files, dropped);
  let walked = false;
  const watched: HashedFiles = {
    get slotCount() {
      return digests.slotCount;
    },
    isLive: (slot) => digests.isLive(slot),
    forEachInHashOrder: (visit) => {
      walked = true;
      digests.forEachInHashOrder(visit);
    },
    bytesAt: (slot) => digests.bytesAt(slot),
    at: (slot) => digests.at(slot),
    digests: digests.digests,
  };
  try {
    return { hashes: hashWithState(watched, INCLUDES, { file, readPrevious }), walked };
  } finally {
    digests.close();
  }
}

function hashed(folder: string, file: string, files: [string, string][], dropped: string[] = [], readPrevious = true) {
  return hashedWalking(folder, file, files, dropped, readPrevious).hashes;
}

/** A record whose bytes were changed and whose CRC-32 was made again to match them. */
async function resealed(file: string, change: (bytes: Buffer) => void): Promise<void> {
  const bytes = await fs.readFile(file);
  change(bytes);
  bytes.writeUInt32LE(crc32(bytes.subarray(0, bytes.length - 4)), bytes.length - 4);
  await fs.writeFile(file, bytes);
}

describe('the content hash record', () => {
  it('gives the full walk’s hashes after edits, renames, additions and drops, and keeps itself true', async () => {
    const folder = await temporaryFolder('staticmcp-hash-state-');
    const file = path.join(folder, '.staticmcp', 'content-hash.bin');
    // Past the digests a writer holds in memory (the rest are read from its digest file).
    const first = treeFiles(2_100);
    expect(hashedWalking(folder, file, first)).toEqual({ hashes: walked(folder, first), walked: true });
    const written = await fs.readFile(file);

    // One document edited and the list part naming it renamed (its slot holds another path).
    const edited = treeFiles(2_100, 1_234);
    expect(hashedWalking(folder, file, edited)).toEqual({ hashes: walked(folder, edited), walked: false });
    // The record it leaves is the one the full walk writes.
    const updated = await fs.readFile(file);
    expect(updated.equals(written)).toBe(false);
    expect(hashedWalking(folder, file, edited, [], false).walked).toBe(true);
    expect((await fs.readFile(file)).equals(updated)).toBe(true);
    // Back again, from the record the edit left.
    expect(hashedWalking(folder, file, first)).toEqual({ hashes: walked(folder, first), walked: false });

    // A file added at the end and one dropped from the middle.
    const grown: [string, string][] = [...edited, ['resources/zz/new_md.json', 'new']];
    const dropped = ['resources/part-1/doc-7_md.json'];
    expect(hashedWalking(folder, file, grown, dropped)).toEqual({
      hashes: walked(folder, grown, dropped),
      walked: false,
    });
    // Every slot renumbered (a file written first, then taken out again): the full walk, which
    // records again, and the next edit uses that record.
    const shifted: [string, string][] = [['aaa.json', 'first'], ...edited];
    expect(hashedWalking(folder, file, shifted)).toEqual({ hashes: walked(folder, shifted), walked: true });
    expect(hashedWalking(folder, file, edited)).toEqual({ hashes: walked(folder, edited), walked: true });
    expect(hashedWalking(folder, file, first)).toEqual({ hashes: walked(folder, first), walked: false });
  });

  it('never trusts the digests, paths or filters it holds, and walks past a damaged, cut or missing record', async () => {
    const folder = await temporaryFolder('staticmcp-hash-state-damaged-');
    const file = path.join(folder, 'content-hash.bin');
    const files = treeFiles(500);
    const expected = walked(folder, files);
    hashed(folder, file, files);
    // A stale digest and a stale path, their checksum made again: compared, so patched or replaced.
    await resealed(file, (bytes) => {
      const at = bytes.indexOf('resources/part-1/doc-4_md.json');
      bytes[at + 'resources/part-1/doc-4_md.json'.length + 5]! ^= 0x01;
      bytes[bytes.indexOf('doc-9.md.json') + 4]! ^= 0x01;
    });
    expect(hashed(folder, file, files)).toEqual(expected);
    // Damaged (checksum), cut short, missing, or of other filters.
    const bytes = await fs.readFile(file);
    bytes[Math.floor(bytes.length / 3)]! ^= 0xff;
    await fs.writeFile(file, bytes);
    expect(hashed(folder, file, files)).toEqual(expected);
    await fs.truncate(file, 100);
    expect(hashed(folder, file, files)).toEqual(expected);
    await fs.rm(file);
    expect(hashed(folder, file, files)).toEqual(expected);
    const digests = digestsOf(folder, files);
    const otherFilters = hashWithState(digests, [DOCUMENTS], { file, readPrevious: true });
    digests.close();
    expect(otherFilters).toEqual([expected[1]]);
    expect(hashed(folder, file, files)).toEqual(expected);
    // --force reads none and writes it anew.
    expect(hashed(folder, file, files, [], false)).toEqual(expected);
  });
});
