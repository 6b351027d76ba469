// Build warnings for trees the hosts will refuse: Cloudflare Pages takes at most 20,000 files per
// deployment on the free plan (100,000 on paid plans), Pages and Workers static assets serve no
// file over 25 MiB, and GitHub Pages publishes sites of at most 1 GB. A deploy that fails on upload
// is a worse place to learn it. Computed from a running tally, never from the files themselves.
// The same tally decides whether a tree needs packs (call files grouped into a few large files,
// issue #24): more call files than `limits.maxCallFiles` / `--max-call-files`.
import { formatCount } from '../shared/format-count.js';
import { readTestHook } from '../shared/test-hook.js';
import type { BuildProblem } from './build-report.js';
import { type PackTableRow, RESOURCE_PACK_GROUP } from '../core/packs/pack-table.js';
import type { PackedToolOutcome } from './pack-reuse.js';
import { SEARCH_MAX_FILES, SEARCH_MAX_TEXT_FILES } from '../tree-writer/search-index-targets.js';

export const CLOUDFLARE_FREE_FILE_LIMIT = 20_000;
export const CLOUDFLARE_PAID_FILE_LIMIT = 100_000;
export const CLOUDFLARE_MAX_FILE_BYTES = 25 * 1024 * 1024;
export const GITHUB_PAGES_MAX_SITE_BYTES = 1_000_000_000;
/**
 * Files a tree holds besides its call files, kept free under the free plan's limit by the default
 * call-file budget: the build's own (mcp.json, _worker.js, _routes.json, index.html, 404.html,
 * _headers, .nojekyll, .assetsignore, completions.json, server.json, mcp/server-card and two
 * .well-known files: 13 at most) and ~990 for resources, prompts and public/ files (the example
 * project has 11). A tree with more of those still gets the 20,000-file warning below.
 */
export const NON_CALL_FILE_MARGIN = 1_000;
/** `limits.maxCallFiles`' default (staticmcp.schema.json declares it; a test keeps the two equal). */
export const DEFAULT_MAX_CALL_FILES = CLOUDFLARE_FREE_FILE_LIMIT - NON_CALL_FILE_MARGIN;
/** Of NON_CALL_FILE_MARGIN, the resource files a tree keeps plain whatever the calls take. */
export const RESOURCE_FILES_IN_MARGIN = 500;
/** Sets RESOURCE_FILES_IN_MARGIN for a test, which then packs resources with a few dozen documents. */
export const RESOURCE_FILES_IN_MARGIN_VARIABLE = 'STATICMCP_TEST_RESOURCE_FILES_IN_MARGIN';

/** RESOURCE_FILES_IN_MARGIN, or what its test hook sets (read once a build). */
export function readResourceFilesInMargin(): number {
  return readTestHook(RESOURCE_FILES_IN_MARGIN_VARIABLE, RESOURCE_FILES_IN_MARGIN);
}
/** Of NON_CALL_FILE_MARGIN, the files a search index may take without taking room from the calls. */
const SEARCH_FILES_IN_MARGIN = 900;

/** What the build decided to index, as far as the index's room goes: absent, no index. */
export interface IndexedSearch {
  /** Whether text resources are documents: their excerpt sources take the larger title part. */
  resources: boolean;
}

/**
 * What a tree with a search index keeps free of call files beyond the margin: the index's
 * SEARCH_MAX_FILES, or SEARCH_MAX_TEXT_FILES when it may store text (its writer takes the larger
 * title part only then: search-index-targets.ts titleFileLimits).
 */
export function searchRoomBeyondMargin(search: IndexedSearch): number {
  return (search.resources ? SEARCH_MAX_TEXT_FILES : SEARCH_MAX_FILES) - SEARCH_FILES_IN_MARGIN;
}

/**
 * The call files the pack step works to: the default budget, less the room a search index may need
 * past the margin when the tree gets one, so that a tree of 650,000 Wikipedia-shaped calls and its
 * index still deploy under 20,000 files. A budget the user set (`limits.maxCallFiles`,
 * `--max-call-files`; `0`: never pack) is theirs: they did the arithmetic for their host.
 */
export function callFileBudget(maxCallFiles: number, search: IndexedSearch | null | undefined): number {
  return search && maxCallFiles === DEFAULT_MAX_CALL_FILES
    ? DEFAULT_MAX_CALL_FILES - searchRoomBeyondMargin(search)
    : maxCallFiles;
}
/** Where call files live in a tree (`tools/<tool>.json`, `tools/<tool>/…/<key>.json`): nothing else is written there. */
const CALL_FILES_PREFIX = 'tools/';
/** Above this many oversized files, one line says how many more (a warning per file would bury the rest). */
const LISTED_OVERSIZED_FILES = 5;

const FEWER_FILES =
  'lower limits.maxCallsPerTool or enumerate fewer values (staticmcp.json), or deploy to a host without a file limit (GitHub Pages, Netlify, S3)';

/** What the host limits need to know of a tree, counted as its files are written. */
export interface TreeTally {
  files: number;
  /** Of `files`, those under tools/: the precomputed calls and their left-out-default copies. */
  callFiles: number;
  bytes: number;
  /** The first oversized files met (at most LISTED_OVERSIZED_FILES), and how many there are. */
  oversized: string[];
  oversizedCount: number;
}

export function createTreeTally(): TreeTally {
  return { files: 0, callFiles: 0, bytes: 0, oversized: [], oversizedCount: 0 };
}

export function addToTally(tally: TreeTally, filePath: string, bytes: number): void {
  tally.files += 1;
  if (isCallFilePath(filePath)) tally.callFiles += 1;
  tally.bytes += bytes;
  if (bytes <= CLOUDFLARE_MAX_FILE_BYTES) return;
  tally.oversizedCount += 1;
  if (tally.oversized.length < LISTED_OVERSIZED_FILES) tally.oversized.push(filePath);
}

/** Takes a file written earlier out of the tally (its path, or its path's UTF-8 bytes). */
export function removeFromTally(tally: TreeTally, filePath: string | Uint8Array, bytes: number): void {
  tally.files -= 1;
  if (typeof filePath === 'string' ? isCallFilePath(filePath) : startsWithBytes(filePath, CALL_FILES_PREFIX_BYTES))
    tally.callFiles -= 1;
  tally.bytes -= bytes;
}

const CALL_FILES_PREFIX_BYTES = Buffer.from(CALL_FILES_PREFIX);

function startsWithBytes(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}

function isCallFilePath(filePath: string): boolean {
  return filePath.startsWith(CALL_FILES_PREFIX);
}

/** What the pack step (pack-call-files.ts) did, for the build's warning. */
export interface PackingOutcome {
  /** Call files in the tree before packing. */
  callFilesBefore: number;
  /** Call files left after packing (tools not worth packing). */
  callFilesAfter: number;
  /** Packed tool → its rows of the manifest's pack table. */
  table: Record<string, PackTableRow[]>;
  /** Pack and index files written. */
  packFiles: number;
  targetPackBytes: number;
  /** Packed tool → its records digest and files (pack-reuse.ts records them for the next build). */
  packedTools: Record<string, PackedToolOutcome>;
}

/**
 * The packing decision and what came of it (pack-call-files.ts): a warning when the tree held more
 * call files than the budget (`0`: never pack), saying what was packed (only staticmcp's readers
 * understand packs) and, when packing could not bring the tree within the budget, that too.
 */
export function checkCallFileBudget(
  callFiles: number,
  maxCallFiles: number,
  packing: PackingOutcome | undefined,
  search?: IndexedSearch | null,
): BuildProblem[] {
  const budget = callFileBudget(maxCallFiles, search);
  if (budget === 0 || callFiles <= budget) return [];
  const over =
    `${formatCount(callFiles)} call files over a budget of ${formatCount(budget)} (limits.maxCallFiles in staticmcp.json, or --max-call-files` +
    (budget < maxCallFiles ? `, less ${formatCount(maxCallFiles - budget)} files kept for the search index)` : ')');
  if (!packing || Object.keys(packing.table).every((name) => name === RESOURCE_PACK_GROUP)) {
    return [
      {
        path: '.',
        message: `this tree needs packs: ${over}, but packing would not lower the count (a tool's packs take at least two files, and tools/<tool>.json files stay plain), so the call files were written one per call; ${FEWER_FILES}`,
      },
    ];
  }
  // The resource group is told of on its own (pack-resource-files.ts resourcePackingWarning).
  const tools = Object.keys(packing.table).filter((name) => name !== RESOURCE_PACK_GROUP);
  const left = packing.callFilesAfter + packing.packFiles;
  return [
    {
      path: '.',
      message:
        `this tree was packed: ${over}; the calls of ${tools.length === 1 ? 'tool' : 'tools'} ${tools.join(', ')} went into ${formatCount(packing.packFiles)} pack and index files under packs/ (${formatCount(packing.targetPackBytes / 1024)} KiB packs), ` +
        `which only staticmcp's readers understand; set the budget to 0 for a tree of plain call files that other StaticMCP bridges read` +
        (left > budget
          ? `; the tree still holds ${formatCount(left)} call and pack files, over the budget: ${FEWER_FILES}`
          : ''),
    },
  ];
}

export function checkHostLimits(tally: TreeTally): BuildProblem[] {
  const warnings: BuildProblem[] = [];
  const count = tally.files;
  if (count > CLOUDFLARE_PAID_FILE_LIMIT) {
    warnings.push({
      path: '.',
      message: `${count} files: over the ${formatCount(CLOUDFLARE_PAID_FILE_LIMIT)} files Cloudflare Pages accepts in one deployment on any plan; ${FEWER_FILES}`,
    });
  } else if (count > CLOUDFLARE_FREE_FILE_LIMIT) {
    warnings.push({
      path: '.',
      message: `${count} files: over the ${formatCount(CLOUDFLARE_FREE_FILE_LIMIT)} files Cloudflare Pages accepts on the free plan (${formatCount(CLOUDFLARE_PAID_FILE_LIMIT)} on paid plans); ${FEWER_FILES}`,
    });
  }
  if (tally.bytes > GITHUB_PAGES_MAX_SITE_BYTES) {
    warnings.push({
      path: '.',
      message: `${formatCount(tally.bytes)} bytes: over the 1 GB GitHub Pages publishes for one site; lower limits.maxCallsPerTool or limits.maxOutputBytes, enumerate fewer values (staticmcp.json), or deploy to Cloudflare Pages, Netlify or S3`,
    });
  }
  for (const filePath of [...tally.oversized].sort()) {
    warnings.push({
      path: filePath,
      message:
        'is over 25 MiB, the largest file Cloudflare Pages and Workers serve: lower limits.maxOutputBytes, or split the resource into smaller files',
    });
  }
  if (tally.oversizedCount > tally.oversized.length) {
    warnings.push({
      path: '.',
      message: `${tally.oversizedCount - tally.oversized.length} more files are over 25 MiB`,
    });
  }
  return warnings;
}
