// Compresses a document record's body and its excerpt source for index format 6, or the two in one
// (core/search/document-body-codec.ts and excerpt-source.ts read them): the one place the writers
// call zlib, with fixed settings, so the spill writer and the in-memory reference writer write the
// same bytes.
import { constants, deflateRawSync } from 'node:zlib';
import { BODY_LENGTH_BYTES } from '../core/search/document-body-codec.js';
import {
  DOCUMENT_SOURCE_BIT,
  DOCUMENT_SOURCE_HEADER_BYTES,
  EXCERPT_CUT_BIT,
  EXCERPT_HEADER_BYTES,
  excerptSourceText,
  MAX_DOCUMENT_SOURCE_REST_BYTES,
} from '../core/search/excerpt-source.js';
import { encodeDocumentSourceRest, type IndexedDocument } from '../core/search/search-results.js';
import { encodeUtf8InScratch } from './utf8-scratch.js';

/**
 * One below zlib's default: on documentation text level 5's output is barely larger than 6's for
 * clearly less CPU (4 and below grow it more), and every document is deflated twice (its body and
 * its excerpt source), which made zlib one of a content build's largest costs.
 */
const DEFLATE_LEVEL = 5;

/**
 * zlib's output chunk (its default is 16 KiB): a chunk under half of Buffer's 8 KiB pool comes
 * from the pool, where a 16 KiB one is a malloc of its own per call, alive until a collection, and
 * a first build's three deflates a document grew glibc's heap with them. A longer output takes
 * several chunks, joined: the same bytes.
 */
const DEFLATE_CHUNK_BYTES = 2048;

/**
 * The smallest raw deflate window (2^bits bytes, 9 to 15) that still reaches every earlier byte of
 * an input of `inputBytes`: zlib limits a match's distance to the window less 262 bytes, and never
 * slides a window the input fits in, so for such an input the output is the same bytes as with
 * the largest window (and any reader's window of 2^15 inflates it). zlib's state for a deflate is
 * about four times the window: at 2^15 it is allocated and freed per call past glibc's mmap
 * threshold, which glibc then raises, and a first build's deflates of every document left its heap
 * fragmented by the size of a state each. Small documents now take a state of a few dozen KiB.
 */
export function windowBitsFor(inputBytes: number): number {
  let bits = 9;
  while (bits < 15 && 2 ** bits < inputBytes + 263) bits++;
  return bits;
}

/** The longest text encoded into the reused input buffer (a longer one gets a Buffer of its own). */
const MAX_SCRATCH_BYTES = 64 * 1024;
let scratch = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * `text` as UTF-8, in a buffer reused from call to call when it fits MAX_SCRATCH_BYTES (valid until
 * the next call): zlib reads its input before returning, and a new Buffer per document body (a
 * malloc of a few KiB each, past Buffer's pool, alive until a collection) grew glibc's heap with
 * the number of documents in a first build.
 */
function utf8Input(text: string, then = ''): Buffer {
  const bytes = Buffer.byteLength(text, 'utf8') + Buffer.byteLength(then, 'utf8');
  // Each encoded on its own, as the writes below do (a lone surrogate at the seam stays lone).
  if (bytes > MAX_SCRATCH_BYTES)
    // A long body through the shared long-string buffer: two copies of it a document were native
    // blocks whose frees raise glibc's mmap threshold (utf8-scratch.ts).
    return then === ''
      ? encodeUtf8InScratch(text)
      : Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(then, 'utf8')]);
  if (bytes > scratch.length)
    scratch = Buffer.allocUnsafeSlow(Math.min(MAX_SCRATCH_BYTES, Math.max(bytes, 2 * scratch.length)));
  const textBytes = scratch.write(text, 0, 'utf8');
  return scratch.subarray(0, textBytes + scratch.write(then, textBytes, 'utf8'));
}

/** The body of a document whose JSON (encodeDocumentBody) is `json`: its length, then raw deflate. */
export function compressDocumentBody(json: string): Buffer {
  const plain = utf8Input(json);
  const deflated = deflateRawSync(plain, {
    level: DEFLATE_LEVEL,
    chunkSize: DEFLATE_CHUNK_BYTES,
    windowBits: windowBitsFor(plain.length),
  });
  const body = Buffer.allocUnsafe(BODY_LENGTH_BYTES + deflated.length);
  body.writeUInt32BE(plain.length, 0);
  deflated.copy(body, BODY_LENGTH_BYTES);
  return body;
}

/**
 * The excerpt source record body of a document's text (excerpt-source.ts): the length of its first
 * EXCERPT_SOURCE_CHARS in UTF-8 (top bit: the text goes on), then raw deflate ending in a sync flush
 * and no final block, so a reader can inflate several laid end to end as one stream.
 */
export function compressExcerptSource(text: string): Buffer {
  const source = excerptSourceText(text);
  const plain = utf8Input(source.text);
  const deflated = deflateRawSync(plain, {
    level: DEFLATE_LEVEL,
    finishFlush: constants.Z_SYNC_FLUSH,
    chunkSize: DEFLATE_CHUNK_BYTES,
    windowBits: windowBitsFor(plain.length),
  });
  const body = Buffer.allocUnsafe(EXCERPT_HEADER_BYTES + deflated.length);
  body.writeUInt32BE((plain.length | (source.cut ? EXCERPT_CUT_BIT : 0)) >>> 0, 0);
  deflated.copy(body, EXCERPT_HEADER_BYTES);
  return body;
}

/**
 * The document source of a document whose whole text fits in its excerpt source (excerpt-source.ts):
 * the text's length with DOCUMENT_SOURCE_BIT, the rest's length (u16), then raw deflate of the text
 * and the rest (`[title, url, metadata?]`: its id is the record's name) ending in a sync flush. It is the document's fetch record
 * too, so its text is stored once. Undefined for a document that stores no text, whose text goes
 * on past a source, or whose rest is past MAX_DOCUMENT_SOURCE_REST_BYTES: it keeps a fetch record
 * of its own.
 */
export function compressDocumentSource(document: IndexedDocument): Buffer | undefined {
  if (document.textFrom === 'call' || document.text === '' || excerptSourceText(document.text).cut) return undefined;
  const rest = encodeDocumentSourceRest(document);
  const restBytes = Buffer.byteLength(rest, 'utf8');
  if (restBytes > MAX_DOCUMENT_SOURCE_REST_BYTES) return undefined;
  const textBytes = Buffer.byteLength(document.text, 'utf8');
  const plain = utf8Input(document.text, rest);
  const deflated = deflateRawSync(plain, {
    level: DEFLATE_LEVEL,
    chunkSize: DEFLATE_CHUNK_BYTES,
    finishFlush: constants.Z_SYNC_FLUSH,
    windowBits: windowBitsFor(plain.length),
  });
  const body = Buffer.allocUnsafe(DOCUMENT_SOURCE_HEADER_BYTES + deflated.length);
  body.writeUInt32BE((textBytes | DOCUMENT_SOURCE_BIT) >>> 0, 0);
  body.writeUInt16BE(restBytes, EXCERPT_HEADER_BYTES);
  deflated.copy(body, DOCUMENT_SOURCE_HEADER_BYTES);
  return body;
}
