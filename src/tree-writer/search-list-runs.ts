// The build's side of the lister's list runs (issue #39, "Edits in a second"; KeptSources.takeListRun
// in core/search/resource-document-source.ts): a run of list entries every one of which made a kept
// document is noted in this build's search edit state under the digest of its run text (the
// lister's context and what each entry's document is made of), with its first arrival, its count
// and the digest of its documents' file digests. The next build that lists a run with the same
// key, count and files digest, every document of which the state still finds (its kept entry
// appended under its source), takes the run's documents by their previous arrivals: their source
// digests are the state's. Content-keyed (the entries and the files' digests, never a path or a
// previous tree), so a state left by a killed build stays true.
import { createHash } from 'node:crypto';
import type { KeptSources } from '../core/search/resource-document-source.js';
import type { SearchEditState } from './search-edit-state.js';
import type { SearchEditStateRecorder } from './search-edit-state-recorder.js';

const DIGEST_BYTES = 32;

/** The key a list run is kept under: the digest of its text, hashed as UTF-16 code units (a lone surrogate stays itself). */
function runKeyOf(runText: string): Buffer {
  return createHash('sha256').update(runText, 'utf16le').digest();
}

function filesDigestOf(fileDigests: Uint8Array, count: number): Buffer {
  return createHash('sha256')
    .update(fileDigests.subarray(0, DIGEST_BYTES * count))
    .digest();
}

/**
 * takeListRun and noteListRun over the previous build's edit state and this build's recorder (each
 * absent: that half does nothing).
 */
export function listRunSources(
  editState: { previous?: SearchEditState; recorder?: SearchEditStateRecorder } | undefined,
): Pick<KeptSources, 'takeListRun' | 'noteListRun'> {
  const previous = editState?.previous;
  const recorder = editState?.recorder;
  // The lister notes a run with the text and digests it asked for it with: hashed once for both.
  let last: { runText: string; fileDigests: Uint8Array; count: number; key: Buffer; files: Buffer } = {
    runText: '',
    fileDigests: new Uint8Array(0),
    count: -1,
    key: Buffer.alloc(0),
    files: Buffer.alloc(0),
  };
  const digestsOf = (runText: string, fileDigests: Uint8Array, count: number) => {
    if (last.runText !== runText || last.fileDigests !== fileDigests || last.count !== count)
      last = { runText, fileDigests, count, key: runKeyOf(runText), files: filesDigestOf(fileDigests, count) };
    return last;
  };
  return {
    takeListRun(runText, fileDigests, count) {
      if (previous === undefined) return undefined;
      const { key, files } = digestsOf(runText, fileDigests, count);
      const first = previous.listRunAt(key, files, count);
      if (first === undefined) return undefined;
      // Asked as each document is made, before the state is released (after the last document).
      return (position) => previous.sourceAt(first + position);
    },
    noteListRun(runText, fileDigests, first, count) {
      if (recorder === undefined) return;
      const { key, files } = digestsOf(runText, fileDigests, count);
      recorder.noteListRun(key, first, count, files);
    },
  };
}
