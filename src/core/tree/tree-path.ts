// The one rule for a path that names a file inside a tree: what the tree writer writes, what a
// shard part holds, what a part's record names. A plain relative path: `/`-separated segments,
// none empty (so no leading `/`, no `//`, no trailing `/`), none `.` or `..`, none `.git` in any
// case (a tree is never a repository's metadata, and `--out` may be a gh-pages worktree whose
// `.git` a tree must not replace: its hooks run on the next commit), and no `\` or NUL anywhere (a
// `\` is a separator to Windows and to zip tools, NUL ends a path for the system). Checked before
// anything is read or written, so a path from a tampered part or record can only ever name a file
// below the folder it is joined to. Pure (no Node APIs): the rule can be shared with any reader.
import { StaticMcpError } from '../staticmcp-error.js';

/** Why `candidate` is not a plain tree path, or undefined when it is one. */
export function findTreePathProblem(candidate: unknown): string | undefined {
  if (typeof candidate !== 'string') return 'it is not a string';
  if (candidate === '') return 'it is empty';
  if (candidate.includes('\0')) return 'it holds a NUL character';
  if (candidate.includes('\\')) return 'it holds a backslash';
  if (candidate.startsWith('/')) return 'it is absolute';
  // Segment by segment without splitting: every file a build writes, packs and lists passes here
  // several times, and split's array and strings were garbage each time.
  for (let start = 0; ; ) {
    const slash = candidate.indexOf('/', start);
    const end = slash < 0 ? candidate.length : slash;
    const problem = segmentProblem(candidate, start, end);
    if (problem !== undefined) return problem;
    if (slash < 0) return undefined;
    start = slash + 1;
  }
}

const DOT = 0x2e;

/** What is wrong with the segment `path.slice(start, end)`, if anything. */
function segmentProblem(path: string, start: number, end: number): string | undefined {
  const length = end - start;
  if (length === 0) return 'it has an empty segment';
  if (path.charCodeAt(start) !== DOT || length > 4) return undefined;
  if (length === 1) return 'it has a "." segment';
  if (length === 2 && path.charCodeAt(start + 1) === DOT) return 'it has a ".." segment';
  // Only ASCII letters lowercase to g, i and t: the same test as toLowerCase() === '.git'.
  if (length === 4 && path.slice(start + 1, end).toLowerCase() === 'git') return 'it has a ".git" segment';
  return undefined;
}

/** Longest stretch of a refused path a message shows (a path can be as long as the record allows). */
const SHOWN_PATH_CHARACTERS = 200;

/**
 * A path as messages show it: as it is when it is printable, otherwise as a JSON string (escape
 * sequences and control characters never reach a terminal raw); cut short when very long.
 */
export function showTreePath(candidate: unknown): string {
  const text = typeof candidate === 'string' ? candidate : String(candidate);
  const cut = text.length > SHOWN_PATH_CHARACTERS ? `${text.slice(0, SHOWN_PATH_CHARACTERS)}…` : text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  return typeof candidate === 'string' && !/[\u0000-\u001f\u007f-\u009f]/.test(cut) ? cut : JSON.stringify(cut);
}

/** Throws TREE_PATH_REFUSED unless `candidate` is a plain tree path; `what` says whose path it is. */
export function assertPlainTreePath(candidate: unknown, what: string): asserts candidate is string {
  const problem = findTreePathProblem(candidate);
  if (problem === undefined) return;
  throw new StaticMcpError(
    'TREE_PATH_REFUSED',
    `${what} ${showTreePath(candidate)} is not a plain path inside the tree (${problem}); nothing was written outside the output folder`,
    'A tree holds only plain relative paths (no "..", no absolute path, no empty or "." segment, no ".git", no backslash or NUL). If this came from a shard part, build that shard again.',
  );
}
