// The build's side of the lister's list runs (issue #39, "Edits in a second"; KeptSources.takeListRun
// in core/search/resource-document-source.ts): a resource list part every entry of which made a kept
// document is noted in this build's search edit state under the digest of the part's bytes and the
// lister's context, with its first arrival, its count and the digest of its documents' file
// digests. The next build that lists a part with the same key, count and files digest, every
// document of which the state still finds (its kept entry appended under its source), takes the
// part's documents by their previous arrivals: their source digests are the state's. Content-keyed
// (the part's bytes and the files' digests, never a path or a previous tree), so a state left by a
// killed build stays true.
import { createHash } from 'node:crypto';
import type { KeptSources } from '../core/search/resource-document-source.js';
import type { SearchEditState } from './search-edit-state.js';
import type { SearchEditStateRecorder } from './search-edit-state-recorder.js';

const DIGEST_BYTES = 32;

/** The key a list run is kept under: its context and its part's digest; undefined when the writer lacks the part. */
function runKeyOf(digestOf: (treePath: string) => Uint8Array | undefined, partPath: string, context: string) {
  const partDigest = digestOf(partPath);
  if (partDigest === undefined) return undefined;
  // The digest is a view of the writer's, valid until its next read: hashed at once.
  return createHash('sha256').update(context).update('\0').update(partDigest).digest();
}

function filesDigestOf(fileDigests: Uint8Array, count: number): Buffer {
  return createHash('sha256')
    .update(fileDigests.subarray(0, DIGEST_BYTES * count))
    .digest();
}

/**
 * takeListRun and noteListRun over the writer's digests, the previous build's edit state and this
 * build's recorder (each absent: that half does nothing).
 */
export function listRunSources(
  digestOf: (treePath: string) => Uint8Array | undefined,
  editState: { previous?: SearchEditState; recorder?: SearchEditStateRecorder } | undefined,
): Pick<KeptSources, 'takeListRun' | 'noteListRun'> {
  const previous = editState?.previous;
  const recorder = editState?.recorder;
  return {
    takeListRun(partPath, context, fileDigests, count) {
      if (previous === undefined) return undefined;
      const key = runKeyOf(digestOf, partPath, context);
      if (key === undefined) return undefined;
      const first = previous.listRunAt(key, filesDigestOf(fileDigests, count), count);
      if (first === undefined) return undefined;
      // Asked as each document is made, before the state is released (after the last document).
      return (position) => previous.sourceAt(first + position);
    },
    noteListRun(partPath, context, fileDigests, first, count) {
      if (recorder === undefined) return;
      const key = runKeyOf(digestOf, partPath, context);
      if (key !== undefined) recorder.noteListRun(key, first, count, filesDigestOf(fileDigests, count));
    },
  };
}
