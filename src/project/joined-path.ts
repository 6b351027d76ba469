// path.join for the paths a walk already holds in normal form (a folder it resolved, a name or a
// `/`-separated path below it): their concatenation when that is what path.join would give, else
// path.join. path.join normalizes its result a character at a time into new strings; discovery and
// assembly join every document's path several times a build, and those strings were a few percent
// of an edit build's garbage at 10,000 documents.
import path from 'node:path';

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * Whether `text[start, end)` is POSIX path segments path.normalize leaves as they are: none empty
 * (no `//`, no trailing `/`), none `.` or `..`.
 */
function hasPlainSegments(text: string, start: number, end: number): boolean {
  let segmentStart = start;
  for (let index = start; index <= end; index++) {
    if (index < end && text.charCodeAt(index) !== SLASH) continue;
    const length = index - segmentStart;
    if (length === 0) return false;
    if (text.charCodeAt(segmentStart) === DOT && (length === 1 || (length === 2 && text.charCodeAt(index - 1) === DOT)))
      return false;
    segmentStart = index + 1;
  }
  return true;
}

/** path.join(folder, below), for an absolute `folder` and a relative `below` (`/`-separated). */
export function joinedPath(folder: string, below: string): string {
  if (
    path.sep === '/' &&
    folder.length > 1 &&
    folder.charCodeAt(0) === SLASH &&
    below.length > 0 &&
    hasPlainSegments(folder, 1, folder.length) &&
    hasPlainSegments(below, 0, below.length)
  )
    return `${folder}/${below}`;
  return path.join(folder, below);
}
