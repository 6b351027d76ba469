// A document's excerpt source (index format 6, issue #40): the first EXCERPT_SOURCE_CHARS of its
// text, compressed on its own, in a record of its own right after its title block in the block's
// pack (the sources of a block follow it in document order), named by the block's key and then the
// document's number. No index entry points at it: its title entry holds its record's length, so
// the block says where each source lies (sourceRecordsAfter). A search result's title entry and
// excerpt then come from one pack (a host that ignores byte ranges sends it whole, once), and the
// excerpt from a record of ~1 KB, not the document's whole record. Body: 4 bytes
// (big-endian) holding the text's UTF-8 length, with the top bit set when the text goes on past
// it, then raw deflate (RFC 1951) ending in a sync flush and no final block. So the sources of one
// query's results, laid end to end with one empty final block after them, are one deflate stream:
// one DecompressionStream (whose setup is most of what inflating 3 KB costs in workerd) for all of
// them. When that stream fails, each record is inflated alone and a damaged one costs only its own
// excerpt. A document whose whole text fits in its source stores its text once: its source is its
// fetch record too (a document source, DOCUMENT_SOURCE_BIT; the documents index points at it in the
// title pack, and the record names its id as well), and its stream goes on past the text with the
// rest of its document (`[title, url, metadata?]`, search-results.ts), whose length two more header
// bytes hold. Portable.
import { titleBlockKeyOf } from './search-index-format.js';

/** Characters of a document's text its excerpt source keeps: ~600 words, where an excerpt is looked for. */
export const EXCERPT_SOURCE_CHARS = 4096;
/** Bytes before the deflate stream: the length and the "text goes on" bit. */
export const EXCERPT_HEADER_BYTES = 4;
/** The header's bit saying the document's text goes on past its source. */
export const EXCERPT_CUT_BIT = 0x80000000;
/** The header's bit saying the source is its document's fetch record too: a rest length follows. */
export const DOCUMENT_SOURCE_BIT = 0x40000000;
/** Header bytes of a document source: the text's length and bits, then the rest's length (u16). */
export const DOCUMENT_SOURCE_HEADER_BYTES = 6;
/**
 * The most bytes of JSON besides the text a document source holds (its id, title, url and
 * metadata): a document with more stores its text in a document record of its own, so a source
 * record stays below the length a title entry may claim.
 */
export const MAX_DOCUMENT_SOURCE_REST_BYTES = 16 * 1024;
/** The largest UTF-8 length a source may claim: EXCERPT_SOURCE_CHARS at 3 bytes each. */
const MAX_SOURCE_BYTES = 3 * EXCERPT_SOURCE_CHARS;
/** An empty final block (fixed Huffman, end of block at once): ends a stream of sync-flushed sources. */
const FINAL_EMPTY_BLOCK = new Uint8Array([0x03, 0x00]);

/**
 * The record key of document `number`'s excerpt source, in the title blocks' key space: its block's
 * key, then the number as 8 hex digits (16 in all), so it sorts after its block and before the next.
 */
export function excerptSourceKeyOf(number: number, blockSize: number): string {
  return titleBlockKeyOf(Math.floor(number / blockSize)) + titleBlockKeyOf(number);
}

/** Where an excerpt source record lies in its pack, and the name it must carry. */
export interface SourceRecordPlace {
  name: string;
  recordOffset: number;
  recordLength: number;
}

/**
 * The source records that follow title block `block` (its record at `recordOffset`, `recordLength`
 * bytes long) by its entries' `sourceBytes`, per entry (undefined: the document has none).
 */
export function sourceRecordsAfter(
  block: { number: number; recordOffset: number; recordLength: number },
  entries: readonly { sourceBytes?: number }[],
  blockSize: number,
): (SourceRecordPlace | undefined)[] {
  let at = block.recordOffset + block.recordLength;
  return entries.map((entry, position) => {
    const length = entry.sourceBytes ?? 0;
    if (length === 0) return undefined;
    const place = {
      name: excerptSourceKeyOf(block.number * blockSize + position, blockSize),
      recordOffset: at,
      recordLength: length,
    };
    at += length;
    return place;
  });
}

/** The part of `text` an excerpt source keeps, never ending between the halves of a surrogate pair. */
export function excerptSourceText(text: string): { text: string; cut: boolean } {
  if (text.length <= EXCERPT_SOURCE_CHARS) return { text, cut: false };
  let end = EXCERPT_SOURCE_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), cut: true };
}

/** A source's text; a document source's `rest` is the rest of its document (its title, url, metadata). */
export type ExcerptSource = { text: string; cut: boolean; rest?: string } | { problem: string };

interface Header {
  length: number;
  cut: boolean;
  /** A document source's rest bytes after the text (0: a plain source). */
  restLength: number;
  /** Bytes before the deflate stream. */
  headerBytes: number;
}

/** Whether a format 6 record body is a document source (a plain document body's length never sets the bit). */
export function isDocumentSource(body: Uint8Array): boolean {
  return body.length >= EXCERPT_HEADER_BYTES && (body[0]! & (DOCUMENT_SOURCE_BIT >>> 24)) !== 0;
}

function headerOf(body: Uint8Array): Header | { problem: string } {
  if (body.length < EXCERPT_HEADER_BYTES) return { problem: 'its body is shorter than its length field' };
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const word = view.getUint32(0);
  const length = word & ~(EXCERPT_CUT_BIT | DOCUMENT_SOURCE_BIT);
  if (length > MAX_SOURCE_BYTES)
    return { problem: `it claims ${length} bytes of text, more than an excerpt source's ${MAX_SOURCE_BYTES}` };
  const cut = (word & EXCERPT_CUT_BIT) !== 0;
  if ((word & DOCUMENT_SOURCE_BIT) === 0) return { length, cut, restLength: 0, headerBytes: EXCERPT_HEADER_BYTES };
  if (body.length < DOCUMENT_SOURCE_HEADER_BYTES) return { problem: 'its body is shorter than its length fields' };
  if (cut) return { problem: 'it claims to be its whole document and a cut text at once' };
  const restLength = view.getUint16(EXCERPT_HEADER_BYTES);
  if (restLength > MAX_DOCUMENT_SOURCE_REST_BYTES)
    return {
      problem: `it claims ${restLength} bytes of document besides its text, more than a source's ${MAX_DOCUMENT_SOURCE_REST_BYTES}`,
    };
  return { length, cut, restLength, headerBytes: DOCUMENT_SOURCE_HEADER_BYTES };
}

/** The bytes `parts` inflate to as one raw deflate stream, refused past `maxBytes`. */
async function inflateRaw(parts: readonly Uint8Array[], maxBytes: number): Promise<Uint8Array | undefined> {
  const out = new Uint8Array(maxBytes);
  let filled = 0;
  try {
    const inflater = new DecompressionStream('deflate-raw');
    const writer = inflater.writable.getWriter();
    // Failures surface on the reader too.
    for (const part of parts) writer.write(part as Uint8Array<ArrayBuffer>).catch(() => {});
    writer.close().catch(() => {});
    const reader = inflater.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (filled + value.length > maxBytes) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      out.set(value, filled);
      filled += value.length;
    }
  } catch {
    return undefined;
  }
  return out.subarray(0, filled);
}

const utf8 = new TextDecoder();

/**
 * The texts of excerpt source record bodies, in their order: all inflated as one stream, or, when
 * that fails, each alone, so a body that does not inflate, or to another length, is a problem for
 * its one document.
 */
export async function inflateExcerptSources(bodies: readonly Uint8Array[]): Promise<ExcerptSource[]> {
  const headers = bodies.map(headerOf);
  const sound: number[] = [];
  headers.forEach((header, position) => {
    if (!('problem' in header)) sound.push(position);
  });
  const results: ExcerptSource[] = headers.map((header) =>
    'problem' in header ? header : { problem: 'not inflated' },
  );
  const bytesOf = (header: Header) => header.length + header.restLength;
  const textOf = (bytes: Uint8Array, header: Header): ExcerptSource => {
    const text = utf8.decode(bytes.subarray(0, header.length));
    if (header.restLength === 0) return { text, cut: header.cut };
    return { text, cut: false, rest: utf8.decode(bytes.subarray(header.length)) };
  };
  if (sound.length > 0) {
    const total = sound.reduce((sum, position) => sum + bytesOf(headers[position] as Header), 0);
    const all = await inflateRaw(
      [
        ...sound.map((position) => bodies[position]!.subarray((headers[position] as Header).headerBytes)),
        FINAL_EMPTY_BLOCK,
      ],
      total,
    );
    if (all !== undefined && all.length === total) {
      let at = 0;
      for (const position of sound) {
        const header = headers[position] as Header;
        results[position] = textOf(all.subarray(at, at + bytesOf(header)), header);
        at += bytesOf(header);
      }
      return results;
    }
  }
  // Rare (a damaged record): find which.
  await Promise.all(
    sound.map(async (position) => {
      const header = headers[position] as Header;
      const own = await inflateRaw(
        [bodies[position]!.subarray(header.headerBytes), FINAL_EMPTY_BLOCK],
        bytesOf(header),
      );
      results[position] =
        own === undefined
          ? { problem: 'its body does not inflate (not a deflate stream, cut short, or longer than it claims)' }
          : own.length !== bytesOf(header)
            ? { problem: `its body inflates to ${own.length} bytes, not the ${bytesOf(header)} it claims` }
            : textOf(own, header);
    }),
  );
  return results;
}
