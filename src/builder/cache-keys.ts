// The one hash behind every cache key of the build: parts joined unambiguously, objects in
// canonical JSON so key order never matters.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/tree/canonical-json.js';

export function hashParts(...parts: unknown[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(typeof part === 'string' || Buffer.isBuffer(part) ? part : canonicalJson(part));
    hash.update('\0');
  }
  return hash.digest('hex');
}
