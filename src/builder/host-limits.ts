// Build warnings for trees the edge hosts will refuse: Cloudflare Pages takes at most 20,000 files
// per deployment on the free plan (100,000 on paid plans), and Pages and Workers static assets
// serve no file over 25 MiB. A deploy that fails on upload is a worse place to learn it.
import type { BuildProblem } from './build-report.js';

export const CLOUDFLARE_FREE_FILE_LIMIT = 20_000;
export const CLOUDFLARE_PAID_FILE_LIMIT = 100_000;
export const CLOUDFLARE_MAX_FILE_BYTES = 25 * 1024 * 1024;
/** Above this many oversized files, one line says how many more (a warning per file would bury the rest). */
const LISTED_OVERSIZED_FILES = 5;

const FEWER_FILES =
  'lower limits.maxCallsPerTool or enumerate fewer values (staticmcp.json), or deploy to a host without a file limit (GitHub Pages, Netlify, S3)';

export function checkHostLimits(files: ReadonlyMap<string, string>): BuildProblem[] {
  const warnings: BuildProblem[] = [];
  const count = files.size;
  if (count > CLOUDFLARE_PAID_FILE_LIMIT) {
    warnings.push({
      path: '.',
      message: `${count} files: over the ${CLOUDFLARE_PAID_FILE_LIMIT.toLocaleString('en')} files Cloudflare Pages accepts in one deployment on any plan; ${FEWER_FILES}`,
    });
  } else if (count > CLOUDFLARE_FREE_FILE_LIMIT) {
    warnings.push({
      path: '.',
      message: `${count} files: over the ${CLOUDFLARE_FREE_FILE_LIMIT.toLocaleString('en')} files Cloudflare Pages accepts on the free plan (${CLOUDFLARE_PAID_FILE_LIMIT.toLocaleString('en')} on paid plans); ${FEWER_FILES}`,
    });
  }
  const oversized: string[] = [];
  for (const [filePath, content] of files) {
    // A UTF-16 length under the limit / 3 cannot be over it in UTF-8: skip the byte count for almost every file.
    if (content.length * 3 <= CLOUDFLARE_MAX_FILE_BYTES) continue;
    if (new TextEncoder().encode(content).byteLength > CLOUDFLARE_MAX_FILE_BYTES) oversized.push(filePath);
  }
  for (const filePath of oversized.sort().slice(0, LISTED_OVERSIZED_FILES)) {
    warnings.push({
      path: filePath,
      message:
        'is over 25 MiB, the largest file Cloudflare Pages and Workers serve: lower limits.maxOutputBytes, or split the resource into smaller files',
    });
  }
  if (oversized.length > LISTED_OVERSIZED_FILES) {
    warnings.push({ path: '.', message: `${oversized.length - LISTED_OVERSIZED_FILES} more files are over 25 MiB` });
  }
  return warnings;
}
