// Copies shard parts' files into the merged tree (merge-parts.ts): each part's paths listed and
// checked as plain tree paths, a file two parts hold refused, every file read once in fixed chunks
// and hard-linked (or copied) with its digest checked against the count and hash its build
// recorded, and the left-out-defaults copies every shard claimed, added as the whole build adds them.
import path from 'node:path';
import { ExtraCopies } from '../builder/extra-copies.js';
import { addToTally } from '../builder/host-limits.js';
import { TreeOutput } from '../builder/tree-output.js';
import { forEachConcurrent } from '../builder/map-concurrent.js';
import { listTreeFiles } from '../check/list-tree-files.js';
import { promises as fs } from 'node:fs';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { createTreeHash, sortTreePaths } from '../tree-writer/content-hash.js';
import { HEADERS_FILE } from '../tree-writer/deploy-files.js';
import { INDEX_FILE } from '../builder/shard-part.js';
import { MANIFEST_FILE } from '../core/tree/manifest.js';
import { isPackableResourceFile } from '../core/packs/pack-table.js';
import { SHARD_RECORD_FILE } from '../tree-writer/shard-record.js';
import { isBuildOwnedPath, LANDING_PAGE_FILE } from '../tree-writer/tree-ownership.js';
import { findTreePathProblem, showTreePath } from '../core/tree/tree-path.js';
import { readPartFile } from './read-part-file.js';
import type { ShardPart } from './read-parts.js';

const READ_CONCURRENCY = 32;
export const REBUILD_PART =
  'Build that shard again and merge the fresh folder; parts must reach the merge as their build wrote them (in CI, upload the whole folder, hidden files included).';
/**
 * Part files the merge computes again instead of copying: read, checked, then replaced (`_headers`
 * gains the packs/ rule when the merged tree is packed; the landing page, at index.html or, when a
 * built site brings its own index.html, at LANDING_PAGE_FILE, lists the tools no shard precomputed).
 */
const RECOMPUTED = new Set([MANIFEST_FILE, INDEX_FILE, LANDING_PAGE_FILE, HEADERS_FILE]);

/** The paths of one part's files besides its record, in content-hash order. */
export async function listPartFiles(part: ShardPart): Promise<string[]> {
  const listed = await listTreeFiles(part.folder);
  const [problem] = listed.problems;
  if (problem) {
    throw new StaticMcpError('PART_CHANGED', `${part.given}/${problem.path} ${problem.message}`, REBUILD_PART);
  }
  const files = listed.files.filter((filePath) => filePath !== SHARD_RECORD_FILE);
  for (const filePath of files) {
    const problem = findTreePathProblem(filePath);
    if (problem !== undefined) {
      throw new StaticMcpError(
        'PART_PATH_REFUSED',
        `${part.given}/${showTreePath(filePath)} is not a file a tree can hold (${problem})`,
        REBUILD_PART,
      );
    }
  }
  return sortTreePaths(files);
}

/** Refuses a file that two parts hold; `listed` holds each part's paths, sorted. */
export function refuseOverlaps(parts: readonly ShardPart[], listed: readonly string[][]): void {
  // One sorted list of every path puts a path two parts hold side by side, without a map of them all.
  const every = sortTreePaths(listed.flat());
  for (let index = 1; index < every.length; index++) {
    const filePath = every[index]!;
    if (filePath !== every[index - 1]) continue;
    const [owner, part] = parts.filter((_, partIndex) => listed[partIndex]!.includes(filePath));
    // A document's file belongs to the shard its path picks (shard-of-call.ts shardOfDocumentFile).
    const what = isPackableResourceFile(filePath) ? `the document file ${filePath}` : filePath;
    throw new StaticMcpError(
      'PARTS_OVERLAP',
      `${what} is in both ${owner?.given} (shard ${owner?.record.index}) and ${part?.given} (shard ${part?.record.index}); every file belongs to exactly one shard`,
      'Merge the folders the shard builds wrote, unchanged; a part that received files from elsewhere must be built again.',
    );
  }
}

function partChanged(part: ShardPart, found: number, sameCount: boolean): StaticMcpError {
  const { record } = part;
  return new StaticMcpError(
    'PART_CHANGED',
    `${part.given} (shard ${record.index} of ${record.count}) holds ${found} files but its build wrote ${record.files}${sameCount ? ' with other contents' : ''}: files were added, removed or edited since`,
    REBUILD_PART,
  );
}

/**
 * Copies one part's files into the merged tree (hard links where the filesystem allows), reading
 * each once in fixed chunks, a bounded number at a time, and checks them against the count and
 * hash its build recorded. The files the merge computes again are handed back instead.
 */
export async function copyPart(
  part: ShardPart,
  paths: readonly string[],
  into: MergedTree,
  maxFileBytes: number,
): Promise<Map<string, Buffer>> {
  if (paths.length !== part.record.files) throw partChanged(part, paths.length, false);
  const recomputed = new Map<string, Buffer>();
  await forEachConcurrent(
    paths,
    async (filePath) => {
      const source = path.join(part.folder, filePath);
      const keep = RECOMPUTED.has(filePath);
      const file = await readPartFile('merge', source, part.given, filePath, maxFileBytes, keep);
      if (file.content !== undefined) recomputed.set(filePath, file.content);
      else await into.addFile(filePath, source, file.digest, file.size);
    },
    READ_CONCURRENCY,
  );
  const hash = createTreeHash();
  for (const filePath of paths) {
    const content = recomputed.get(filePath);
    if (content !== undefined) hash.add(filePath, content);
    else hash.addDigest(filePath, into.writer.digestOf(filePath)!);
  }
  if (hash.digest() !== part.record.filesHash) throw partChanged(part, paths.length, true);
  return recomputed;
}

/**
 * The merged tree being written: a TreeOutput (its tally, which the host limits and the pack step
 * read, and the pack step's writes and removals), plus files added from a part without a read.
 */
export class MergedTree extends TreeOutput {
  /** Adds the regular file `source` (already digested) without reading it again. */
  async addFile(filePath: string, source: string, digest: Buffer, size: number): Promise<void> {
    await this.writer.writeFromFile(filePath, source, digest);
    addToTally(this.tally, filePath, size);
  }

  /** Files under names the build owns (what the report counts). */
  ownedFiles(): number {
    let owned = 0;
    for (const filePath of this.writer.paths()) if (isBuildOwnedPath(filePath)) owned += 1;
    return owned;
  }
}

/**
 * The left-out-defaults copies a whole build writes: every shard's claims claimed again, so a path
 * two calls of different shards claim is left out, as the whole build leaves it out.
 */
export async function addCopies(tree: MergedTree, parts: readonly ShardPart[]): Promise<[string, string][]> {
  const copies = new ExtraCopies();
  for (const part of parts) for (const [extraPath, ownerPath] of part.record.copies) copies.claim(extraPath, ownerPath);
  await tree.writer.flush();
  const { writer } = tree;
  const written: [string, string][] = [];
  await forEachConcurrent(
    copies.claimed(),
    async ([extraPath, ownerPath]) => {
      if (ownerPath === null || !writer.has(ownerPath) || writer.has(extraPath)) return;
      // The owner is a call file this merge wrote (both paths are plain: read-parts.ts checked them).
      const owner = path.join(writer.tempDir, ownerPath);
      await tree.addFile(extraPath, owner, writer.digestOf(ownerPath)!, (await fs.lstat(owner)).size);
      written.push([extraPath, ownerPath]);
    },
    READ_CONCURRENCY,
  );
  return written;
}
