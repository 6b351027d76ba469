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
import { inflateExcerptSources, isDocumentSource } from './excerpt-source.js';
import { STEMMED_FORMAT } from './search-index-format.js';
import {
  parseDocumentBody,
  parseDocumentSourceRest,
  type StoredDocument,
  searchErrorResult,
} from './search-results.js';

/** A document's pack is never kept whole: fetch reads one record of it. */
export const KEEP_NO_PACK: WholePackKeeping = { upToBytes: 0, pushesOut: false };

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
  if (format >= STEMMED_FORMAT && isDocumentSource(body)) return await documentOfSource(body, id, found.pack);
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
 * A document source's document (excerpt-source.ts): its text, and the rest (its title, url and
 * metadata, search-results.ts encodeDocumentSourceRest); the record's name is its id.
 */
export async function documentOfSource(body: Uint8Array, id: string, pack: string): Promise<StoredDocumentOutcome> {
  const source = (await inflateExcerptSources([body]))[0]!;
  if ('problem' in source)
    return { status: 'damaged', reason: `the document source of ${id} in ${pack}: ${source.problem}` };
  const document = source.rest === undefined ? undefined : parseDocumentSourceRest(source.rest, id, source.text);
  if (document === undefined)
    return { status: 'damaged', reason: `the document source of ${id} in ${pack} is not a document` };
  return { status: 'ok', document };
}

/**
 * What an excerpt is cut from in an index before format 6 (which keeps excerpt sources,
 * excerpt-source.ts): the document's stored text, `none` for a document that stores no text or
 * that the index lacks, `damaged` when its record does not read as a document.
 */
export async function readExcerptText(
  packs: PackReader,
  rows: readonly PackTableRow[],
  format: number,
  id: string,
): Promise<{ status: 'ok'; text: string } | { status: 'none' } | { status: 'damaged'; reason: string }> {
  const stored = await readStoredDocument(packs, rows, format, id);
  if (stored.status === 'ok')
    return 'text' in stored.document ? { status: 'ok', text: stored.document.text } : { status: 'none' };
  return stored.status === 'missing' ? { status: 'none' } : stored;
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
