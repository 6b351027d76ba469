// A document's share of the search index (search-index-spill-writer.ts): its keys and counts,
// token count, compressed fetch body and excerpt source, taken from what the previous build kept
// (search-kept-documents.ts) or made, and the digest its entry is known by.
import { encodeDocumentBody } from '../core/search/search-results.js';
import type { Stemming } from '../core/search/stem.js';
import { compressDocumentBody, compressDocumentSource, compressExcerptSource } from './search-document-compression.js';
import type { KeptDocument, KeptSearchDocuments } from './search-kept-documents.js';
import { keptDigestOf, keptSourceDigestOf } from './search-kept-keys.js';
import type { SearchDocument } from './search-index-output.js';
import type { IndexKeyCounter } from './search-key-counter.js';

/** Whether the index stores an excerpt source of the document (not of a call result, nor of no text). */
export function hasExcerptSource(document: SearchDocument): boolean {
  return document.textFrom !== 'call' && document.text !== '';
}

/**
 * A document's body and excerpt source: a document source alone (its body empty) when its whole
 * text fits in one (its text stored once), else its compressed body and its plain source (or none).
 */
function storedOf(document: SearchDocument, body: string): { body: Uint8Array; excerpt: Uint8Array } {
  const documentSource = compressDocumentSource(document);
  if (documentSource !== undefined) return { body: new Uint8Array(0), excerpt: documentSource };
  return {
    body: compressDocumentBody(body),
    excerpt: hasExcerptSource(document) ? compressExcerptSource(document.text) : new Uint8Array(0),
  };
}

/**
 * A document's keys, counts, length, compressed body and excerpt source: the kept entry of an
 * unchanged document, else made (title and text are one column, as in writeSearchIndex) and kept;
 * with its entry digest when `kept` or `wantsDigest`: the digest of its source when it has one (a
 * resource's: tree-documents.ts), else of its body, which either way is everything its entry, its
 * title and its url are made from (search-kept-keys.ts).
 */
export function shareOf(
  document: SearchDocument,
  stemming: Stemming,
  kept: KeptSearchDocuments | undefined,
  counter: IndexKeyCounter,
  wantsDigest: boolean,
): { share: KeptDocument; digest: Buffer | undefined } {
  const keyed = kept !== undefined || wantsDigest;
  const source =
    keyed && document.sourceKey !== undefined ? keptSourceDigestOf(stemming, document.sourceKey) : undefined;
  // Listed from a source kept before (tree-documents.ts): its entry, its text never read.
  const bySource = kept && source ? kept.take(source, source, true) : undefined;
  if (bySource) return { share: bySource, digest: source };
  const body = encodeDocumentBody(document);
  // A call result's body holds no text (encodeDocumentBody): only then is the text hashed apart.
  const digest = keyed
    ? keptDigestOf(stemming, body, document.textFrom === 'call' ? document.text : undefined)
    : undefined;
  const entryDigest = source ?? digest;
  const found = kept && digest ? kept.take(digest, source) : undefined;
  // An entry kept without an excerpt source (made for a call result) gets one made now.
  if (found && (found.excerpt.length > 0 || !hasExcerptSource(document))) return { share: found, digest: entryDigest };
  if (found) return { share: { ...found, ...storedOf(document, body) }, digest: entryDigest };
  const counted = counter.count(document.title, document.text);
  const { tokenCount } = counted;
  const share = {
    terms: () => counted,
    tokenCount,
    // Depend on the stored body (which the digest covers), so a kept one is the one made now.
    ...storedOf(document, body),
  };
  if (kept && digest) kept.keep(digest, share, source);
  return { share, digest: entryDigest };
}
