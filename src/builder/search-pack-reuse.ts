// Pack-level reuse of the search index (issue #39, "Edits in a second"): when an edit changes the
// index's inputs, the index is written again, but each pack of a part whose records come deferred
// (search-record-packer.ts: the title blocks) is keyed by the sha256 of what its records are made
// from (a title block's: its number, and each document's id, lengths and entry digest, which
// covers its title, url and excerpt source: search-scratch-records.ts), and a pack the previous
// build made from the same inputs is hard-linked from the previous tree instead of being read,
// encoded, hashed and written again. The keys and the packs they name are in the previous build's
// record (search-index-reuse.ts, covered by its check); a key is used only for a pack path that
// record lists among the index's files, each of which it found untouched (same inode, size, mtime)
// when it was read. The bytes of a pack follow from those inputs alone (the writer is the record's
// generator), so a linked pack is the one a from-scratch build writes.
import path from 'node:path';
import type { PackReuse } from '../tree-writer/search-record-packer.js';
import type { ReusableSearchIndex } from './search-index-reuse.js';
import type { TreeOutput } from './tree-output.js';

/** This build's pack keys (part folder and digest → pack path) and the reuse each part's packer asks. */
export class SearchPackReuse {
  /** What this build's packs were made from, for its record. */
  readonly made: Record<string, string> = {};

  constructor(
    private readonly output: TreeOutput,
    private readonly previous: ReusableSearchIndex | undefined,
    /** Called with each pack linked, as the writer's callback is with each file written. */
    private readonly onLinked: (treePath: string) => void,
  ) {}

  /** The reuse the packer of the part below `folder` asks. */
  forPart(folder: string): PackReuse {
    const previous = this.previous;
    const filesByPath = new Map(previous?.files.map((file) => [file.path, file]));
    return {
      find: (key) => {
        const packPath = previous?.packKeys?.[`${folder}${key}`];
        const file = packPath === undefined ? undefined : filesByPath.get(packPath);
        // Only a pack of this part: a key naming any other file of the record is not used.
        const isPackOfPart = packPath?.startsWith(folder) && packPath.endsWith('.pack');
        return file === undefined || !isPackOfPart ? undefined : { path: file.path, length: file.size };
      },
      link: async (packPath) => {
        const file = filesByPath.get(packPath)!;
        await this.output.writeFromFile(
          packPath,
          path.join(previous!.outDir, packPath),
          Buffer.from(file.sha256, 'hex'),
          file.size,
        );
        this.onLinked(packPath);
      },
      made: (key, packPath) => {
        this.made[`${folder}${key}`] = packPath;
      },
      previousFile: (filePath) => {
        const file = filePath.startsWith(folder) ? filesByPath.get(filePath) : undefined;
        return file === undefined ? undefined : { length: file.size };
      },
    };
  }
}
