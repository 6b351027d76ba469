// The one hash behind every cache key of the build: parts joined unambiguously, objects in
// canonical JSON so key order never matters.
import { createHash, hash as hashOnce } from 'node:crypto';
import { canonicalJson } from '../core/tree/canonical-json.js';

export function hashParts(...parts: unknown[]): string {
  // Parts without bytes are hashed as one string at once: a Hash object per call (two per cached
  // call of a build) holds native memory until a collection frees it, and costs twice the CPU.
  let text = '';
  for (const part of parts) {
    if (Buffer.isBuffer(part)) return hashPartsStreamed(parts);
    text += `${typeof part === 'string' ? part : canonicalJson(part)}\0`;
  }
  return hashOnce('sha256', text, 'hex');
}

function hashPartsStreamed(parts: unknown[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(typeof part === 'string' || Buffer.isBuffer(part) ? part : canonicalJson(part));
    hash.update('\0');
  }
  return hash.digest('hex');
}
