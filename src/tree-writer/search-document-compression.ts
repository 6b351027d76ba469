// Compresses a document record's body for index format 6 (core/search/document-body-codec.ts
// reads it): the one place the writers call zlib, with fixed settings, so the spill writer and the
// in-memory reference writer write the same bytes.
import { deflateRawSync } from 'node:zlib';
import { BODY_LENGTH_BYTES } from '../core/search/document-body-codec.js';

/** zlib's default level: a few percent from the best ratio at a fraction of level 9's CPU. */
const DEFLATE_LEVEL = 6;

/** The body of a document whose JSON (encodeDocumentBody) is `json`: its length, then raw deflate. */
export function compressDocumentBody(json: string): Buffer {
  const plain = Buffer.from(json, 'utf8');
  const deflated = deflateRawSync(plain, { level: DEFLATE_LEVEL });
  const body = Buffer.allocUnsafe(BODY_LENGTH_BYTES + deflated.length);
  body.writeUInt32BE(plain.length, 0);
  deflated.copy(body, BODY_LENGTH_BYTES);
  return body;
}
