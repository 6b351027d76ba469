// The keys and bound of the search index writer's kept documents (search-kept-documents.ts): the
// digest an entry is kept under, the digest it is also found under by its source, and the kept
// state's size bound from the environment.
import { createHash, hash } from 'node:crypto';

/** The kept file's size at most (reading it is one read): past it, nothing is kept or read. */
export const DEFAULT_MAX_KEPT_SEARCH_BYTES = 512 * 1024 * 1024;
/** Changes the bound above (bytes; 0 turns the kept file off). */
export const MAX_KEPT_SEARCH_BYTES_VARIABLE = 'STATICMCP_MAX_KEPT_SEARCH_BYTES';

/** The bound in force: the environment's, else the default. */
export function maxKeptSearchBytes(environment: Record<string, string | undefined>): number {
  const given = environment[MAX_KEPT_SEARCH_BYTES_VARIABLE];
  if (given === undefined || given === '') return DEFAULT_MAX_KEPT_SEARCH_BYTES;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(
      `${MAX_KEPT_SEARCH_BYTES_VARIABLE} is ${JSON.stringify(given)}: give a number of bytes (0 keeps nothing)`,
    );
  return value;
}

/**
 * The digest an entry is kept under: the stemming, the document's stored body and its indexed
 * text. A body that holds the text (every document's but a call result's) covers it, so the text
 * is hashed once: `undefined` says the body holds it. Unambiguous: a body is JSON, which never
 * holds a raw NUL.
 */
export function keptDigestOf(stemming: string, body: string, indexedText: string | undefined): Buffer {
  const hash = createHash('sha256');
  hash.update(indexedText === undefined ? `${stemming}\0` : `${stemming}\0${indexedText}\0`);
  return hash.update(body).digest();
}

/** The digest an entry is also found under: the stemming and the document's source key (tree-documents.ts). */
export function keptSourceDigestOf(stemming: string, sourceKey: string): Buffer {
  // The lister asks for a resource's digest, then the index writer for the same one right after.
  if (lastSourceDigest?.stemming === stemming && lastSourceDigest.sourceKey === sourceKey)
    return lastSourceDigest.digest;
  // One-shot (no Hash object a document): the same bytes as createHash's.
  const digest = hash('sha256', `${stemming}\0source\0${sourceKey}`, 'buffer');
  lastSourceDigest = { stemming, sourceKey, digest };
  return digest;
}

/** The last digest keptSourceDigestOf made (never changed by its callers: a lookup key). */
let lastSourceDigest: { stemming: string; sourceKey: string; digest: Buffer } | undefined;
