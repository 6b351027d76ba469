// Build warnings for trees the hosts will refuse: Cloudflare Pages takes at most 20,000 files per
// deployment on the free plan (100,000 on paid plans), Pages and Workers static assets serve no
// file over 25 MiB, and GitHub Pages publishes sites of at most 1 GB. A deploy that fails on upload
// is a worse place to learn it. Computed from a running tally, never from the files themselves.
import { formatCount } from '../shared/format-count.js';
import type { BuildProblem } from './build-report.js';

export const CLOUDFLARE_FREE_FILE_LIMIT = 20_000;
export const CLOUDFLARE_PAID_FILE_LIMIT = 100_000;
export const CLOUDFLARE_MAX_FILE_BYTES = 25 * 1024 * 1024;
export const GITHUB_PAGES_MAX_SITE_BYTES = 1_000_000_000;
/** Above this many oversized files, one line says how many more (a warning per file would bury the rest). */
const LISTED_OVERSIZED_FILES = 5;

const FEWER_FILES =
  'lower limits.maxCallsPerTool or enumerate fewer values (staticmcp.json), or deploy to a host without a file limit (GitHub Pages, Netlify, S3)';

/** What the host limits need to know of a tree, counted as its files are written. */
export interface TreeTally {
  files: number;
  bytes: number;
  /** The first oversized files met (at most LISTED_OVERSIZED_FILES), and how many there are. */
  oversized: string[];
  oversizedCount: number;
}

export function createTreeTally(): TreeTally {
  return { files: 0, bytes: 0, oversized: [], oversizedCount: 0 };
}

export function addToTally(tally: TreeTally, filePath: string, bytes: number): void {
  tally.files += 1;
  tally.bytes += bytes;
  if (bytes <= CLOUDFLARE_MAX_FILE_BYTES) return;
  tally.oversizedCount += 1;
  if (tally.oversized.length < LISTED_OVERSIZED_FILES) tally.oversized.push(filePath);
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
