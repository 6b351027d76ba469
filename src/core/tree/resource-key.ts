// Where a resource's file lives in a tree: `resources/<uri without scheme://, each /-segment encoded>.json`.
import { encodeKeySegment, MAX_NAME_LENGTH } from './encode-filename.js';
import { URI_WITH_SCHEME } from './name-rules.js';
import { isSkillUri, SKILL_FILES_FOLDER, SKILL_URI_SCHEME } from './skills.js';
import { checkTreePath } from './tree-source.js';

export function resourceFilePath(uri: string): string {
  // Skill files have a folder of their own: `skill://a/b` and `resource://a/b` are two files.
  if (isSkillUri(uri)) return `${SKILL_FILES_FOLDER}/${encodedPath(uri.slice(SKILL_URI_SCHEME.length))}`;
  const schemeEnd = uri.indexOf('://');
  const afterScheme = schemeEnd >= 0 ? uri.slice(schemeEnd + 3) : uri.replace(URI_WITH_SCHEME, '');
  // `file:///a` and `res://a` both live at resources/a.json; the build reports such collisions.
  return `resources/${encodedPath(afterScheme)}`;
}

/** `a/b/c` → `a/b/c.json` with each segment encoded (leading slashes dropped). */
function encodedPath(afterScheme: string): string {
  // A walk by indexOf, not replace/split/map/join: a build calls this several times a document,
  // and the arrays and strings those make were a visible share of an edit build's scavenges.
  let start = 0;
  while (afterScheme.charCodeAt(start) === SLASH) start += 1;
  let encoded = '';
  for (;;) {
    const end = afterScheme.indexOf('/', start);
    // A trailing slash leaves an empty last segment; it still needs a visible name.
    if (end < 0) return `${encoded}${encodeKeySegment(afterScheme.slice(start))}.json`;
    encoded += `${encodeKeySegment(afterScheme.slice(start, end))}/`;
    start = end + 1;
  }
}

const SLASH = 0x2f;

/**
 * Whether `text[start, end)` is `/`-separated segments that encodeKeySegment keeps as they are
 * (1 to MAX_NAME_LENGTH characters of `a-z 0-9 - _`, no leading slash): encodedPath gives it back.
 */
function isEncodedAlready(text: string, start: number, end: number): boolean {
  let segmentStart = start;
  for (let index = start; index <= end; index++) {
    const code = index === end ? SLASH : text.charCodeAt(index);
    if (code === SLASH) {
      const length = index - segmentStart;
      if (length === 0 || length > MAX_NAME_LENGTH) return false;
      segmentStart = index + 1;
      continue;
    }
    if (!((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f))
      return false;
  }
  return true;
}

/**
 * Where the standard's file naming (§2: drop `scheme://`, `/` is a folder, keep simple URIs as is)
 * and the reference bridges (sse_bridge's `uri_to_path`) look for a resource:
 * `resource://changelog.md` → `resources/changelog.md.json`. Undefined when the URI has a segment
 * that is not plain, or when that path is the encoded one anyway.
 */
export function rawResourceFilePath(uri: string): string | undefined {
  const schemeEnd = uri.indexOf('://');
  // Skill files are ours alone (skills/files/): no copy under resources/.
  if (schemeEnd < 0 || isSkillUri(uri)) return undefined;
  let start = schemeEnd + 3;
  while (uri.charCodeAt(start) === SLASH) start += 1;
  // A walk, not replace/split/every/join and the encoded path to compare with: a build asks this
  // twice a document (raw-resource-copies.ts).
  let segmentStart = start;
  for (let index = start; index <= uri.length; index++) {
    const code = index === uri.length ? SLASH : uri.charCodeAt(index);
    if (code !== SLASH) {
      if (!isPlainCode(code)) return undefined;
      continue;
    }
    const length = index - segmentStart;
    if (length === 0) return undefined;
    if (uri.charCodeAt(segmentStart) === DOT && (length === 1 || (length === 2 && uri.charCodeAt(index - 1) === DOT)))
      return undefined;
    segmentStart = index + 1;
  }
  // The encoded path is this one exactly when encodeKeySegment keeps every (plain, non-empty) segment as it is.
  if (isEncodedAlready(uri, start, uri.length)) return undefined;
  return `resources/${uri.slice(start)}.json`;
}

const DOT = 0x2e;

/**
 * A character of a plain segment, one a static host serves as it is: URL-unreserved characters
 * only (`A-Z a-z 0-9 . _ ~ -`); the segment is never `.` or `..`.
 */
function isPlainCode(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === DOT ||
    code === 0x5f ||
    code === 0x7e ||
    code === 0x2d
  );
}

/** Where other generators put a resource: the part after `scheme://` as is (sse_bridge), then encoded. */
export function resourceFilePaths(uri: string, ours: boolean): string[] {
  const encoded = resourceFilePath(uri);
  if (ours) return [encoded];
  const schemeEnd = uri.indexOf('://');
  const raw = `resources/${schemeEnd >= 0 ? uri.slice(schemeEnd + 3) : uri}.json`;
  return checkTreePath(raw) || raw === encoded ? [encoded] : [raw, encoded];
}

/**
 * The encoded file a raw-name copy (rawResourceFilePath) copies: `resources/changelog.md.json` →
 * `resources/changelog_md.json`; undefined when `filePath` is already an encoded name (or not a
 * resource file). The scheme is not needed: both names drop it.
 */
export function encodedTwinOf(filePath: string): string | undefined {
  if (!filePath.startsWith('resources/') || !filePath.endsWith('.json')) return undefined;
  // An encoded name is its own twin: the pack step asks this of every resource file.
  if (isEncodedAlready(filePath, 'resources/'.length, filePath.length - '.json'.length)) return undefined;
  const twin = `resources/${encodedPath(filePath.slice('resources/'.length, -'.json'.length))}`;
  return twin === filePath ? undefined : twin;
}
