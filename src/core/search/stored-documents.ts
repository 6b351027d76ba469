// A search document's stored record and, for a document that stores no text, its call's text
// (issue #25, #40): what fetch answers and what an excerpt is cut from. A format 6 body is
// decompressed (document-body-codec.ts); a record that does not read is a problem for its one
// document. Portable.
import { callKeyOf, KEY_KIND } from '../packs/pack-format.js';
import { type PackReader, textOfBody, type WholePackKeeping } from '../packs/pack-reader.js';
import type { PackTableRow } from '../packs/pack-table.js';
import type { ToolResult } from '../results/tool-result.js';
import type { ReadOutcome } from '../tree/tree-source.js';
import { callDocumentText } from './call-text.js';
import { decompressDocumentBody } from './document-body-codec.js';
import { EXCERPT_SCAN_CHARS } from './excerpt.js';
import { STEMMED_FORMAT } from './search-index-format.js';
import { parseDocumentBody, type StoredDocument, searchErrorResult } from './search-results.js';

/** A document's pack is never kept whole: fetch reads one record of it. */
const KEEP_NO_PACK: WholePackKeeping = { upToBytes: 0, pushesOut: false };

export type StoredDocumentOutcome =
  | { status: 'ok'; document: StoredDocument }
  | { status: 'missing' }
  | { status: 'damaged'; reason: string };

/**
 * A document's stored record, parsed (and, from format 6, decompressed): `missing` when the index
 * holds no such id, `damaged` with the reason when its record cannot be read as its document.
 */
export async function readStoredDocument(
  packs: PackReader,
  rows: readonly PackTableRow[],
  format: number,
  id: string,
): Promise<StoredDocumentOutcome> {
  if (rows.length === 0) return { status: 'missing' };
  const found = await packs.lookup(rows, KEY_KIND.call, callKeyOf(id), id, KEEP_NO_PACK);
  if (found.status !== 'ok') {
    // A record that does not name the id is a hash collision with a forged id, not damage.
    if (found.status === 'missing' || found.reason.includes('does not name it')) return { status: 'missing' };
    return { status: 'damaged', reason: found.reason };
  }
  let body = found.body;
  if (format >= STEMMED_FORMAT) {
    const inflated = await decompressDocumentBody(body);
    if (!(inflated instanceof Uint8Array))
      return { status: 'damaged', reason: `the document record of ${id} in ${found.pack}: ${inflated.problem}` };
    body = inflated;
  }
  const document = parseDocumentBody(textOfBody(body), id);
  if (document === undefined)
    return { status: 'damaged', reason: `the document record of ${id} in ${found.pack} is not a document` };
  return { status: 'ok', document };
}

/**
 * UTF-8 bytes of a format 6 body inflated for an excerpt: its id and title, then at least the
 * EXCERPT_SCAN_CHARS of text an excerpt looks at (3 bytes a character at most, less escapes).
 */
export const EXCERPT_BODY_BYTES = 4 * EXCERPT_SCAN_CHARS;

/**
 * What an excerpt is cut from: the start of a document's stored text (at least EXCERPT_SCAN_CHARS
 * of it, or all), `none` for a document that stores no text or that the index lacks, `damaged`
 * when the part of its record inflated does not read as a document (a damaged tail past it is
 * found by fetch).
 */
export async function readExcerptText(
  packs: PackReader,
  rows: readonly PackTableRow[],
  format: number,
  id: string,
): Promise<{ status: 'ok'; text: string } | { status: 'none' } | { status: 'damaged'; reason: string }> {
  if (format < STEMMED_FORMAT) {
    const stored = await readStoredDocument(packs, rows, format, id);
    if (stored.status === 'ok')
      return 'text' in stored.document ? { status: 'ok', text: stored.document.text } : { status: 'none' };
    return stored.status === 'missing' ? { status: 'none' } : stored;
  }
  const found = await packs.lookup(rows, KEY_KIND.call, callKeyOf(id), id, KEEP_NO_PACK);
  if (found.status !== 'ok')
    return found.status === 'missing' || found.reason.includes('does not name it')
      ? { status: 'none' }
      : { status: 'damaged', reason: found.reason };
  const inflated = await decompressDocumentBody(found.body, EXCERPT_BODY_BYTES);
  const damaged = (why: string) => ({
    status: 'damaged' as const,
    reason: `the document record of ${id} in ${found.pack}: ${why}`,
  });
  if (!(inflated instanceof Uint8Array)) return damaged(inflated.problem);
  const whole = inflated.length === new DataView(found.body.buffer, found.body.byteOffset).getUint32(0);
  const json = textOfBody(inflated);
  if (whole) {
    const document = parseDocumentBody(json, id);
    if (document === undefined) return damaged('it is not a document');
    return 'text' in document ? { status: 'ok', text: document.text } : { status: 'none' };
  }
  const text = textPrefixOfBody(json, id);
  return text === undefined ? damaged('its start is not a document') : { status: 'ok', text };
}

/** The end of the JSON string whose content starts at `start`: its closing quote, or the end of `json`. */
function stringEndOf(json: string, start: number): number {
  for (let from = start; ; ) {
    const quote = json.indexOf('"', from);
    if (quote < 0) return json.length;
    let backslashes = 0;
    while (json.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The JSON string value at `at` (its opening quote), parsed, and where it ends; undefined if none. */
function stringAt(json: string, at: number): { value: string; end: number } | undefined {
  if (json[at] !== '"') return undefined;
  const end = stringEndOf(json, at + 1);
  if (end === json.length) return undefined;
  try {
    return { value: JSON.parse(json.slice(at, end + 1)) as string, end: end + 1 };
  } catch {
    return undefined;
  }
}

/**
 * The start of the text of a body cut short (`{"id":…,"title":…,"text":"…`, the order
 * encodeDocumentBody writes), undefined when it does not start as `id`'s document with a text. A
 * cut escape or character at the end is left out.
 */
function textPrefixOfBody(json: string, id: string): string | undefined {
  if (!json.startsWith('{"id":')) return undefined;
  const idValue = stringAt(json, 6);
  if (idValue?.value !== id || !json.startsWith(',"title":', idValue.end)) return undefined;
  const title = stringAt(json, idValue.end + 9);
  if (title === undefined || !json.startsWith(',"text":"', title.end)) return undefined;
  const start = title.end + 9;
  let content = json.slice(start, stringEndOf(json, start)).replace(/\\u?[0-9a-fA-F]{0,3}$|\uFFFD$/, '');
  for (let tries = 0; tries < 2; tries += 1) {
    try {
      return JSON.parse(`"${content}"`) as string;
    } catch {
      content = content.slice(0, -1);
    }
  }
  return undefined;
}

/**
 * The text of the call a document points at (its id: parseDocumentBody checked it is a call
 * file below tools/), derived as the lister derived it; an isError result when the host lacks
 * the call, or it no longer reads as a document (replaced, truncated, an error result now).
 */
export async function textOfCall(
  id: string,
  options: { readCall?: (treePath: string) => Promise<ReadOutcome>; onProblem?: (reason: string) => void },
): Promise<string | ToolResult> {
  const broken = (why: string): ToolResult => {
    options.onProblem?.(`the search document ${id} points at its call, which ${why}`);
    return searchErrorResult(
      `The document ${id} is in the search index but its call ${id} ${why}; this server's owner should build the tree again and deploy all of it.`,
    );
  };
  if (options.readCall === undefined) return broken('this host cannot read');
  let read: ReadOutcome;
  try {
    read = await options.readCall(id);
  } catch (error) {
    return broken(`cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (read.status !== 'ok') return broken('is missing on the host');
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch {
    return broken('is not JSON on the host (truncated or replaced?)');
  }
  const document = callDocumentText(value);
  if ('problem' in document) return broken(`is ${document.problem} on the host, not the text that was indexed`);
  return document.text;
}
