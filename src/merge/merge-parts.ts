// `staticmcp merge PART… --out DIR`: the parts of a sharded build → the tree a one-machine build
// writes, byte for byte. Shard 1 carries the shared files (its mcp.json among them); every part
// carries its own call files. What in a whole tree depends on every shard is computed here exactly
// as the build computes it: each tool's `precomputed` count (the sum of the parts'), index.html
// (which lists the tools no shard precomputed), the left-out-defaults copies (claimed by every
// shard's calls, written when no two calls claim one path: extra-copies.ts) and the content hash
// (over the merged files, by the rule in tree/content-hash.ts).
// Written atomically like a build, so a killed merge leaves the previous tree.
import path from 'node:path';
import type { BuildProblem, ToolReport } from '../builder/build-report.js';
import { ExtraCopies } from '../builder/extra-copies.js';
import { addToTally, checkHostLimits, createTreeTally } from '../builder/host-limits.js';
import { mapConcurrent } from '../builder/map-concurrent.js';
import { listTreeFiles } from '../check/list-tree-files.js';
import { readRegularFile } from '../read-regular-file.js';
import { StaticMcpError } from '../staticmcp-error.js';
import { treeJsonFile } from '../tree/canonical-json.js';
import { checkOutputFolder } from '../tree/check-output-folder.js';
import { createTreeHash, hashTreeFiles, sortTreePaths } from '../tree/content-hash.js';
import { renderIndexHtml } from '../tree/deploy-files.js';
import { INDEX_FILE } from '../builder/shard-part.js';
import { EXTENSION_KEY, type Manifest, MANIFEST_FILE, WORKER_FILE } from '../tree/manifest.js';
import { SHARD_RECORD_FILE } from '../tree/shard-record.js';
import { BUILD_OWNED_TOP_LEVEL, isBuildOwnedPath } from '../tree/tree-ownership.js';
import { recoverInterruptedWrite, writeTreeAtomically } from '../tree/write-tree.js';
import { readParts, type ShardPart } from './read-parts.js';

export interface MergeOptions {
  parts: readonly string[];
  outDir: string;
}

/** What the shards reported, put together (the per-tool counts are the merged tree's). */
export interface MergeReport {
  ok: boolean;
  outDir: string;
  shards: number;
  files: number;
  contentHash: string;
  tools: ToolReport[];
  failures: BuildProblem[];
  warnings: BuildProblem[];
  durationMs: number;
}

interface PartReport {
  ok: boolean;
  tools: ToolReport[];
  failures: BuildProblem[];
  warnings: BuildProblem[];
}

const READ_CONCURRENCY = 32;
const REBUILD_PART =
  'Build that shard again and merge the fresh folder; parts must reach the merge as their build wrote them (in CI, upload the whole folder, hidden files included).';

/** The paths of one part's files besides its record. */
async function listPartFiles(part: ShardPart): Promise<string[]> {
  const listed = await listTreeFiles(part.folder);
  const [problem] = listed.problems;
  if (problem) {
    throw new StaticMcpError('PART_CHANGED', `${part.given}/${problem.path} ${problem.message}`, REBUILD_PART);
  }
  return listed.files.filter((filePath) => filePath !== SHARD_RECORD_FILE);
}

/** Reads one part's files and checks them against the count and hash its build recorded. */
async function readPartFiles(part: ShardPart, paths: readonly string[]): Promise<Map<string, Buffer>> {
  const contents = await mapConcurrent(
    paths,
    (filePath) => readRegularFile(path.join(part.folder, filePath)),
    READ_CONCURRENCY,
  );
  // mapConcurrent keeps the order of its input: contents[index] is the file at paths[index].
  const files = new Map(paths.map((filePath, index) => [filePath, contents[index]!]));
  const { record } = part;
  if (files.size !== record.files || hashTreeFiles(files) !== record.filesHash) {
    throw new StaticMcpError(
      'PART_CHANGED',
      `${part.given} (shard ${record.index} of ${record.count}) holds ${files.size} files but its build wrote ${record.files}${files.size === record.files ? ' with other contents' : ''}: files were added, removed or edited since`,
      REBUILD_PART,
    );
  }
  return files;
}

/**
 * The left-out-defaults copies a whole build writes: every shard's claims claimed again, so a path
 * two calls of different shards claim is left out, as the whole build leaves it out.
 */
function addCopies(files: Map<string, Buffer | string>, parts: readonly ShardPart[]): void {
  const copies = new ExtraCopies();
  for (const part of parts) for (const [extraPath, ownerPath] of part.record.copies) copies.claim(extraPath, ownerPath);
  for (const [extraPath, ownerPath] of copies.claimed()) {
    const owner = ownerPath === null ? undefined : files.get(ownerPath);
    if (owner !== undefined && !files.has(extraPath)) files.set(extraPath, owner);
  }
}

/** The merged manifest: shard 1's, with the whole tree's call counts and content hash. */
function mergeManifest(files: Map<string, Buffer>, parts: readonly ShardPart[]): string {
  const manifest = JSON.parse(files.get(MANIFEST_FILE)!.toString('utf8')) as Manifest;
  const extension = manifest[EXTENSION_KEY]!;
  for (const tool of Object.values(extension.tools)) tool.precomputed = 0;
  for (const part of parts) {
    for (const [name, count] of Object.entries(part.record.precomputed)) {
      const tool = extension.tools[name];
      if (tool) tool.precomputed += count;
    }
  }
  // index.html lists the tools no shard precomputed: rendered again from the whole counts.
  const liveOnlyTools = Object.keys(extension.tools).filter((name) => extension.tools[name]?.precomputed === 0);
  const publicUrl = parts[0]?.record.publicUrl;
  files.set(INDEX_FILE, Buffer.from(renderIndexHtml(manifest, publicUrl, liveOnlyTools)));
  // The build hashes every file it owns but mcp.json and the worker (the generator's code).
  const hash = createTreeHash();
  for (const filePath of sortTreePaths(files.keys())) {
    if (filePath === MANIFEST_FILE || filePath === WORKER_FILE || !isBuildOwnedPath(filePath)) continue;
    hash.add(filePath, files.get(filePath)!);
  }
  extension.contentHash = hash.digest();
  return treeJsonFile(manifest);
}

/** One tool report from every shard's: counts added up, failures kept, repeated warnings once. */
function mergeToolReports(reports: readonly PartReport[]): ToolReport[] {
  const byName = new Map<string, ToolReport>();
  for (const report of reports) {
    for (const tool of report.tools) {
      const merged = byName.get(tool.name);
      if (!merged) {
        byName.set(tool.name, {
          ...tool,
          failures: [...tool.failures],
          warnings: [...tool.warnings],
          logLines: [...tool.logLines],
        });
        continue;
      }
      merged.precomputed += tool.precomputed;
      merged.errorResults += tool.errorResults;
      merged.failedRuns += tool.failedRuns;
      merged.cached += tool.cached;
      merged.failures.push(...tool.failures);
      merged.logLines.push(...tool.logLines);
      for (const warning of tool.warnings) if (!merged.warnings.includes(warning)) merged.warnings.push(warning);
    }
  }
  return [...byName.values()];
}

function uniqueProblems(problems: readonly BuildProblem[]): BuildProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.path}\0${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function mergeParts(options: MergeOptions): Promise<MergeReport> {
  const startedAt = performance.now();
  const parts = await readParts(options.parts);
  const outDir = path.resolve(options.outDir);
  for (const part of parts) {
    const fromPart = path.relative(part.folder, outDir);
    const inside = fromPart === '' || (!fromPart.startsWith('..') && !path.isAbsolute(fromPart));
    const fromOut = path.relative(outDir, part.folder);
    if (inside || (!fromOut.startsWith('..') && !path.isAbsolute(fromOut))) {
      throw new StaticMcpError(
        'OUT_OVERLAPS_PART',
        `--out ${options.outDir} ${fromPart === '' ? 'is' : inside ? 'is inside' : 'contains'} the part ${part.given}; the merged tree would replace what it is made from`,
        'Merge into a folder of its own, such as dist.',
      );
    }
  }
  await recoverInterruptedWrite(outDir);
  // Also catches the same overlaps through symlinked paths, and refuses folders that are not trees.
  await checkOutputFolder(
    outDir,
    parts.map((part) => ({ folder: part.folder, what: `shard part ${part.given}`, input: true })),
  );

  // Overlaps first: a file copied from one part into another is named as such, not as an edit.
  const listed = await Promise.all(parts.map(listPartFiles));
  const owners = new Map<string, ShardPart>();
  parts.forEach((part, index) => {
    for (const filePath of listed[index] ?? []) {
      const owner = owners.get(filePath);
      if (owner) {
        throw new StaticMcpError(
          'PARTS_OVERLAP',
          `${filePath} is in both ${owner.given} (shard ${owner.record.index}) and ${part.given} (shard ${part.record.index}); every file belongs to exactly one shard`,
          'Merge the folders the shard builds wrote, unchanged; a part that received files from elsewhere must be built again.',
        );
      }
      owners.set(filePath, part);
    }
  });
  const files = new Map<string, Buffer | string>();
  for (const [index, part] of parts.entries()) {
    for (const [filePath, content] of await readPartFiles(part, listed[index] ?? [])) files.set(filePath, content);
  }
  if (!files.has(MANIFEST_FILE)) {
    throw new StaticMcpError('PART_CHANGED', `${parts[0]?.given} (shard 1) has no ${MANIFEST_FILE}`, REBUILD_PART);
  }
  addCopies(files, parts);
  const manifestText = mergeManifest(files as Map<string, Buffer>, parts);
  files.set(MANIFEST_FILE, manifestText);
  // Every file the merge writes counts against the hosts' limits, as every file a build writes does.
  const tally = createTreeTally();
  let owned = 0;
  for (const [filePath, content] of files) {
    addToTally(tally, filePath, typeof content === 'string' ? Buffer.byteLength(content) : content.length);
    if (isBuildOwnedPath(filePath)) owned += 1;
  }
  await writeTreeAtomically(outDir, files, { keep: (name) => !BUILD_OWNED_TOP_LEVEL.has(name) });

  const reports = parts.map((part) => part.record.report as PartReport);
  const manifest = JSON.parse(manifestText) as Manifest;
  return {
    ok: reports.every((report) => report.ok),
    outDir,
    shards: parts.length,
    files: owned,
    contentHash: manifest[EXTENSION_KEY]!.contentHash,
    tools: mergeToolReports(reports),
    failures: uniqueProblems(reports.flatMap((report) => report.failures)),
    warnings: uniqueProblems([...reports.flatMap((report) => report.warnings), ...checkHostLimits(tally)]),
    durationMs: performance.now() - startedAt,
  };
}
