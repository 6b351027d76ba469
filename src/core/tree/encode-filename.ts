// The StaticMCP filename encoder (standard §3): the one function that turns a value or a URI
// segment into a file or folder name inside a tree. Build and bridge both call it, so a key
// computed at serve time is byte-for-byte the key written at build time.
import { hashLikeRustDefaultHasher } from './siphash.js';

export const MAX_NAME_LENGTH = 200;
const KEPT_PREFIX_LENGTH = 183;
/**
 * Combining marks, built from a string when first needed: V8 parses a `\p{…}` literal, looking
 * its property up in Unicode's tables, when it parses the module and again when the literal is
 * made, which every edge isolate's start paid for ASCII keys that never run it.
 */
let combiningMarks: RegExp | undefined;
const COMBINING_MARK = '\\p{M}';

function combiningMarksPattern(): RegExp {
  combiningMarks ??= new RegExp(COMBINING_MARK, 'gu');
  return combiningMarks;
}
/** One code point outside the kept set (a surrogate pair is one match, as `for…of` reads it). */
const NOT_KEPT = /[^a-z0-9_-]/gu;
const NOT_KEPT_ASCII = /[^a-z0-9_-]/g;
/** Text NFD leaves as it is, with no combining mark: the steps for them are skipped. */
const ASCII_ONLY = /^[\0-\x7f]*$/;

/**
 * Encodes one value into a file-name segment: NFD, combining marks dropped, lowercase, every code
 * point outside `a-z 0-9 - _` replaced by `_`, and names over 200 characters shortened to 183
 * characters + `_` + the Rust DefaultHasher hash of the original value.
 */
export function encodeFilename(value: string): string {
  if (isKeptAsItIs(value)) return value;
  // The first normalize() and \p{M} match of a process load Unicode tables (milliseconds, paid by
  // a server's first call otherwise); most keys are ASCII, which neither step changes.
  const ascii = ASCII_ONLY.test(value);
  const stripped = (ascii ? value : value.normalize('NFD').replace(combiningMarksPattern(), '')).toLowerCase();
  // One replace, not a test per code point: a 4 MB value took 1.4 s that way (issue 21, item 5).
  // ASCII text has no surrogate pair, so the cheaper non-Unicode pattern replaces the same characters.
  const safe = stripped.replace(ascii ? NOT_KEPT_ASCII : NOT_KEPT, '_');
  if (safe.length <= MAX_NAME_LENGTH) return safe;
  return `${safe.slice(0, KEPT_PREFIX_LENGTH)}_${hashLikeRustDefaultHasher(value)}`;
}

/** Whether every character is one the encoding keeps (`a-z 0-9 - _`) within the length: no copy is made. */
function isKeptAsItIs(value: string): boolean {
  if (value.length > MAX_NAME_LENGTH) return false;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    // a-z, 0-9, '-', '_'
    if (!((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f))
      return false;
  }
  return true;
}

/**
 * Like `encodeFilename`, but never returns an empty name: an empty value becomes `_` + the hash
 * of the empty string (`_30406ea523c53def`), a visible segment that a non-empty value can only
 * collide with by spelling that exact string (a collision the recorded arguments then settle).
 */
export function encodeKeySegment(value: string): string {
  const encoded = encodeFilename(value);
  return encoded === '' ? `_${hashLikeRustDefaultHasher(value)}` : encoded;
}
