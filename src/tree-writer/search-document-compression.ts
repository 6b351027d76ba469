// Compresses a document record's body and its excerpt source for index format 6
// (core/search/document-body-codec.ts and excerpt-source.ts read them): the one place the writers
// call zlib, with fixed settings, so the spill writer and the in-memory reference writer write the
// same bytes.
import { constants, deflateRawSync } from 'node:zlib';
import { BODY_LENGTH_BYTES } from '../core/search/document-body-codec.js';
import { EXCERPT_CUT_BIT, EXCERPT_HEADER_BYTES, excerptSourceText } from '../core/search/excerpt-source.js';

/**
 * One below zlib's default: on documentation text level 5's output is barely larger than 6's for
 * clearly less CPU (4 and below grow it more), and every document is deflated twice (its body and
 * its excerpt source), which made zlib one of a content build's largest costs.
 */
const DEFLATE_LEVEL = 5;

/** The body of a document whose JSON (encodeDocumentBody) is `json`: its length, then raw deflate. */
export function compressDocumentBody(json: string): Buffer {
  const plain = Buffer.from(json, 'utf8');
  const deflated = deflateRawSync(plain, { level: DEFLATE_LEVEL });
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
  const plain = Buffer.from(source.text, 'utf8');
  const deflated = deflateRawSync(plain, { level: DEFLATE_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
  const body = Buffer.allocUnsafe(EXCERPT_HEADER_BYTES + deflated.length);
  body.writeUInt32BE((plain.length | (source.cut ? EXCERPT_CUT_BIT : 0)) >>> 0, 0);
  deflated.copy(body, EXCERPT_HEADER_BYTES);
  return body;
}
