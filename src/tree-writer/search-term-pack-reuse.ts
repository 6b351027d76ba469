// The term part's pack reuse (search-index-spill-writer.ts): a term pack whose records are the
// previous build's records `first` to `last` unchanged (patchTermRecords copied them) is that
// build's pack of those, found by a key made of the previous kept term records' sha256 and those
// positions; this build's packs get their keys once its own records are kept (`keyMade`), since the
// key names the file the positions are in.
import { createHash } from 'node:crypto';
import type { PackReuse } from './search-record-packer.js';

/** A term pack's key: the kept term records (their sha256, hex) and the positions of its first and last record there. */
function termRangeKeyOf(recordsSha: string, first: number, last: number): string {
  return createHash('sha256').update(`terms\0${recordsSha}\0${first}\0${last}`).digest('hex');
}

/** The reuse handed to the term packer, over the part's `reuse`; `previousSha`: the records patched from. */
export function termPackReuse(reuse: PackReuse | undefined, previousSha: string | undefined) {
  const made: { first: number; last: number; path: string }[] = [];
  return {
    reuse: reuse && {
      find: () => undefined,
      link: (packPath: string) => reuse.link(packPath),
      made: () => {},
      findRange: (first: number, last: number) =>
        previousSha === undefined ? undefined : reuse.find(termRangeKeyOf(previousSha, first, last)),
      madeRange: (first: number, last: number, packPath: string) => {
        made.push({ first, last, path: packPath });
      },
    },
    keyMade: (recordsSha: string) => {
      for (const pack of made) reuse?.made(termRangeKeyOf(recordsSha, pack.first, pack.last), pack.path);
    },
  };
}
