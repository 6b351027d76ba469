// `staticmcp merge PART… --out DIR`: the parts of a sharded build → the tree a one-machine build
// writes, byte for byte. Shard 1 carries the shared files (its mcp.json among them); every part
// carries its own call files. What in a whole tree depends on every shard is computed here exactly
// as the build computes it: each tool's `precomputed` count (the sum of the parts'), index.html
// (which lists the tools no shard precomputed), the left-out-defaults copies (claimed by every
// shard's calls, written when no two calls claim one path: extra-copies.ts), the content hash
// (over the merged files, by the rule in tree-writer/content-hash.ts, from the digests taken as
// each file is copied) and the packs: past the call-file budget the shards recorded (or merge's
// own --max-call-files), the merged call files are packed by the build's own pack step
// (builder/pack-call-files.ts) at the same point of the same order, `_headers` gaining the packs/
// rule as the build's does; and the search index, made from the merged tree's files by the
// build's own step with the settings the shards recorded (parts write none), just before packing. It streams: no part's files are held, each is read once in fixed
// chunks (to check the part against its record) and hard-linked into the merged tree, or copied
// where the parts are on another filesystem (copy-parts.ts); packing then reads one packed tool's calls at a
// time, as the build does. A part is an artifact that may have been tampered with: every
// path it or its record names is a plain path inside the tree (core/tree/tree-path.ts, checked
// before anything is read or written), no link in it is ever followed, and no file over the cap is
// read (read-part-file.ts). Written atomically like a build, so a killed or refused merge leaves
// the previous tree.
import {
  inlineResourceFiles,
  planResourcePacking,
  resourcePackingWarning,
  withResourcePacking,
} from '../builder/pack-resource-files.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { BuildProblem, ToolReport } from '../builder/build-report.js';
import { callFileBudget, checkCallFileBudget, checkHostLimits, type PackingOutcome } from '../builder/host-limits.js';
import { planPacking, writePacks } from '../builder/pack-call-files.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { canonicalJson, treeJsonFile } from '../core/tree/canonical-json.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { SKILLS_LIST_FILE, type SkillEntry } from '../core/tree/skills.js';
import { writeTreeSearchIndex } from '../builder/search-index-step.js';
import { APP_MIME_TYPE } from '../core/tree/mcp-apps.js';
import { APP_HOST_FILE } from '../tree-writer/app-pages.js';
import { checkOutputFolder } from '../tree-writer/check-output-folder.js';
import { HEADERS_FILE, withPacksHeaderRule } from '../tree-writer/deploy-files.js';
import { pageFactsOf, renderIndexHtml } from '../tree-writer/landing-page.js';
import { INDEX_FILE } from '../builder/shard-part.js';
import { EXTENSION_KEY, type Manifest, MANIFEST_FILE, WORKER_FILE } from '../core/tree/manifest.js';
import {
  BUILD_OWNED_NESTED_PATHS,
  isBuildOwnedPath,
  isKeptOnRebuild,
  LANDING_PAGE_FILE,
} from '../tree-writer/tree-ownership.js';
import { recoverInterruptedWrite } from '../tree-writer/interrupted-write.js';
import { TreeWriter } from '../tree-writer/tree-writer.js';
import { DEFAULT_MAX_PART_FILE_BYTES } from './read-part-file.js';
import { readParts, type ShardPart } from './read-parts.js';
import { addCopies, copyPart, listPartFiles, MergedTree, REBUILD_PART, refuseOverlaps } from './copy-parts.js';

export interface MergeOptions {
  parts: readonly string[];
  outDir: string;
  /** The largest part file read (read-part-file.ts); DEFAULT_MAX_PART_FILE_BYTES when not given. */
  maxFileBytes?: number;
  /**
   * The call-file budget to pack at (`merge --max-call-files`, 0 never), instead of the one the
   * shards recorded: the parts are never packed, so any budget gives the tree a build with it gives.
   */
  maxCallFiles?: number;
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
  /** What was put back or removed of the folders an interrupted run left beside the output folder. */
  recovered: string[];
  durationMs: number;
}

interface PartReport {
  ok: boolean;
  tools: ToolReport[];
  failures: BuildProblem[];
  warnings: BuildProblem[];
}

/**
 * The budget the merged tree is packed at: merge's --max-call-files, else the one every shard
 * recorded. Shards that recorded different budgets are refused: which one the user meant cannot
 * be told, and the tree a one-machine build writes depends on it.
 */
function resolveBudget(parts: readonly ShardPart[], override: number | undefined): number {
  if (override !== undefined) return override;
  const first = parts[0]!;
  const other = parts.find((part) => part.record.maxCallFiles !== first.record.maxCallFiles);
  if (other) {
    throw new StaticMcpError(
      'PARTS_BUDGET_DIFFERS',
      `${first.given} was built with a call-file budget of ${first.record.maxCallFiles} but ${other.given} with ${other.record.maxCallFiles} (--max-call-files, or limits.maxCallFiles in staticmcp.json): the merged tree would be packed differently depending on which one counts`,
      'Pass the budget you want to merge (staticmcp merge … --max-call-files N, 0 for a tree without packs), or build every shard with the same --max-call-files.',
    );
  }
  return first.record.maxCallFiles;
}

/**
 * What the merged tree's search index holds: the settings every shard recorded. Shards that
 * recorded different ones (staticmcp.json's search edited between their builds) are refused: the
 * tree a one-machine build writes depends on which is meant.
 */
function resolveSearch(parts: readonly ShardPart[]): ShardPart['record']['search'] {
  const first = parts[0]!;
  const shown = (part: ShardPart): string => JSON.stringify(part.record.search);
  const other = parts.find((part) => canonicalJson(part.record.search) !== canonicalJson(first.record.search));
  if (other) {
    throw new StaticMcpError(
      'PARTS_SEARCH_DIFFERS',
      `${first.given} was built with the search settings ${shown(first)} but ${other.given} with ${shown(other)} (staticmcp.json's "search"): the merged tree's search index depends on which one counts`,
      'Build every shard from the same staticmcp.json (same commit), then merge all N --out folders.',
    );
  }
  return first.record.search;
}

function parseManifest(manifestBytes: Buffer, parts: readonly ShardPart[]): Manifest {
  let manifest: Manifest | undefined;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  } catch {
    // Refused below, without echoing the bytes.
  }
  const extension = manifest?.[EXTENSION_KEY];
  if (!manifest || typeof extension?.tools !== 'object' || extension.tools === null) {
    throw new StaticMcpError(
      'PART_CHANGED',
      `${parts[0]?.given}/${MANIFEST_FILE} is not a manifest staticmcp wrote`,
      REBUILD_PART,
    );
  }
  return manifest;
}

interface MergedManifest {
  contentHash: string;
  /** What the pack step did, when the merged tree passed the budget. */
  packing?: PackingOutcome;
  /** The search step's warnings (as the build reports them). */
  searchWarnings: BuildProblem[];
  /** The build's word on packed resources, when the merged tree's were packed. */
  resourceWarnings: BuildProblem[];
}

/**
 * The rest of the merged tree, in the build's order (assemble-tree.ts): index.html and `_headers`,
 * the content hash over the logical files, the packs, and the manifest (shard 1's, with the whole
 * tree's call counts, content hash and pack table).
 */
async function writeManifest(
  tree: MergedTree,
  recomputed: ReadonlyMap<string, Buffer>,
  parts: readonly ShardPart[],
  copies: readonly [string, string][],
  maxCallFiles: number,
  search: ShardPart['record']['search'],
): Promise<MergedManifest> {
  const manifest = parseManifest(recomputed.get(MANIFEST_FILE)!, parts);
  const extension = manifest[EXTENSION_KEY]!;
  for (const tool of Object.values(extension.tools)) tool.precomputed = 0;
  for (const part of parts) {
    for (const [name, count] of Object.entries(part.record.precomputed)) {
      // Own keys only: a record naming `__proto__` or `constructor` must not reach Object.prototype.
      const tool = Object.hasOwn(extension.tools, name) ? extension.tools[name] : undefined;
      if (tool) tool.precomputed += count;
    }
  }
  // index.html lists the tools no shard precomputed: rendered again from the whole counts.
  const liveOnlyTools = Object.keys(extension.tools).filter((name) => extension.tools[name]?.precomputed === 0);
  const publicUrl = parts[0]?.record.publicUrl;
  // Shard 1's part carries the app pages and the bridge (deploy files); the page may frame them.
  // An app's resource may be listed past mcp.json's inline entries: the bridge file tells too.
  const hasApps =
    tree.writer.has(APP_HOST_FILE) ||
    manifest.capabilities.resources.some((resource) => resource.mimeType === APP_MIME_TYPE);
  // A built site's own index.html is copied as it is; the landing page then lives at LANDING_PAGE_FILE (site-step.ts).
  const sitesIndex = recomputed.get(LANDING_PAGE_FILE) !== undefined ? recomputed.get(INDEX_FILE) : undefined;
  if (sitesIndex !== undefined) await tree.write(INDEX_FILE, sitesIndex);
  // The page's facts as the build gives them: its decision to index, and the skills it lists.
  await tree.write(
    sitesIndex !== undefined ? LANDING_PAGE_FILE : INDEX_FILE,
    renderIndexHtml(manifest, publicUrl, liveOnlyTools, hasApps, {
      ...pageFactsOf(manifest),
      hasSearch: search !== undefined && search !== null,
      skills: await readSkillEntries(parts),
    }),
  );
  // Room for the index as the build leaves it: `search` is the build's decision to index.
  const budget = callFileBudget(maxCallFiles, search);
  const callPlan = await planPacking(tree, Object.keys(extension.tools), copies, budget);
  // The resources as the build packs them: past what the budget leaves, all but the inline list's.
  const inlineUris = manifest.capabilities.resources.map((resource) => resource.uri);
  const resourcePlan = await planResourcePacking(
    tree,
    inlineResourceFiles(inlineUris),
    budget,
    callPlan?.callFilesAfter ?? tree.tally.callFiles,
  );
  const plan = withResourcePacking(callPlan, resourcePlan, tree.tally.callFiles);
  const headers = recomputed.get(HEADERS_FILE);
  if (headers !== undefined)
    await tree.write(HEADERS_FILE, plan || search ? withPacksHeaderRule(headers.toString('utf8')) : headers);
  // The build hashes every file it owns but mcp.json and the worker (the generator's code).
  extension.contentHash = await tree.writer.hashWritten(
    (filePath) => filePath !== MANIFEST_FILE && filePath !== WORKER_FILE && isBuildOwnedPath(filePath),
  );
  // Indexed as the build indexes: after the hash, before the pack step takes the call files out.
  const indexed = search
    ? await writeTreeSearchIndex(
        tree,
        manifest as unknown as JsonObject,
        { ...search, ...(publicUrl ? { publicUrl } : {}) },
        parts[0]?.record.maxLlmsFullBytes,
      )
    : undefined;
  const packing = plan ? await writePacks(tree, plan) : undefined;
  // Last in the extension, as the build writes them; shard 1's manifest has neither (parts are not packed nor indexed).
  delete extension.packs;
  delete extension.search;
  if (packing) extension.packs = packing.table;
  if (indexed) extension.search = indexed.extension;
  await tree.write(MANIFEST_FILE, treeJsonFile(manifest));
  return {
    contentHash: extension.contentHash,
    ...(packing ? { packing } : {}),
    searchWarnings: indexed?.warnings ?? [],
    resourceWarnings: resourcePackingWarning(resourcePlan, packing, inlineUris.length),
  };
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
      merged.scriptMs += tool.scriptMs;
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
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_PART_FILE_BYTES;
  const parts = await readParts(options.parts);
  const maxCallFiles = resolveBudget(parts, options.maxCallFiles);
  const search = resolveSearch(parts);
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
  const recovered = await recoverInterruptedWrite(outDir);
  // Also catches the same overlaps through symlinked paths, and refuses folders that are not trees.
  await checkOutputFolder(
    outDir,
    parts.map((part) => ({ folder: part.folder, what: `shard part ${part.given}`, input: true })),
  );

  // Overlaps first: a file copied from one part into another is named as such, not as an edit.
  const listed = await Promise.all(parts.map(listPartFiles));
  refuseOverlaps(parts, listed);
  const writer = await TreeWriter.open(outDir);
  const tree = new MergedTree(writer);
  let merged: MergedManifest;
  let callFilesBeforePacking: number;
  try {
    // Shard 1 carries the shared files; another part holding one of them is refused as an overlap.
    const recomputed = new Map<string, Buffer>();
    for (const [index, part] of parts.entries()) {
      for (const [filePath, content] of await copyPart(part, listed[index] ?? [], tree, maxFileBytes))
        recomputed.set(filePath, content);
    }
    if (!recomputed.has(MANIFEST_FILE)) {
      throw new StaticMcpError('PART_CHANGED', `${parts[0]?.given} (shard 1) has no ${MANIFEST_FILE}`, REBUILD_PART);
    }
    const copies = await addCopies(tree, parts);
    callFilesBeforePacking = tree.tally.callFiles;
    merged = await writeManifest(tree, recomputed, parts, copies, maxCallFiles, search);
    await writer.flush();
  } catch (error) {
    await writer.discard();
    throw error;
  }
  await writer.commit({ keep: isKeptOnRebuild, dropInsideKept: BUILD_OWNED_NESTED_PATHS });

  const reports = parts.map((part) => part.record.report as PartReport);
  return {
    ok: reports.every((report) => report.ok),
    outDir,
    shards: parts.length,
    files: tree.ownedFiles(),
    contentHash: merged.contentHash,
    tools: mergeToolReports(reports),
    failures: uniqueProblems(reports.flatMap((report) => report.failures)),
    warnings: uniqueProblems([
      ...reports.flatMap((report) => report.warnings),
      ...merged.searchWarnings,
      // As the build warns: the packing decision, then the host limits of the tree as written.
      ...checkCallFileBudget(callFilesBeforePacking, maxCallFiles, merged.packing, search),
      ...merged.resourceWarnings,
      ...checkHostLimits(tree.tally),
    ]),
    recovered,
    durationMs: performance.now() - startedAt,
  };
}

/** The skills listed by the part that holds the skills list (skills/list.json), for the page. */
async function readSkillEntries(parts: readonly ShardPart[]): Promise<SkillEntry[]> {
  for (const part of parts) {
    try {
      const data: unknown = JSON.parse(await fs.readFile(path.join(part.folder, SKILLS_LIST_FILE), 'utf8'));
      if (isObject(data) && Array.isArray(data.skills)) return data.skills as SkillEntry[];
    } catch {
      // Not in this part (or not readable: check reports the file); the next part may hold it.
    }
  }
  return [];
}
