// Copies of tree files at the extra paths other StaticMCP bridges look in (left-out-default call
// keys, the standard's raw resource names). A path two different files claim is ambiguous and is
// not written; neither is one the tree already uses for a file of its own. Only paths are held
// while the build streams (flat memory); contents are copied from the written tree at the end.
import type { TreeOutput } from './tree-output.js';

export class ExtraCopies {
  /** Extra path → the tree path it copies; null once two files claim it. */
  private readonly owners = new Map<string, string | null>();

  /** `ownerPath` null: a claim already found ambiguous elsewhere (a shard's, see claimed()). */
  claim(extraPath: string, ownerPath: string | null): void {
    const owner = this.owners.get(extraPath);
    if (owner === undefined) this.owners.set(extraPath, ownerPath);
    else if (owner !== ownerPath) this.owners.set(extraPath, null);
  }

  /**
   * Every claim so far (null where ambiguous). A shard build records these instead of writing its
   * copies: two calls claiming one path may fall in different shards, so only the merge, which
   * claims them all again, knows which copies a whole build writes.
   */
  claimed(): [string, string | null][] {
    return [...this.owners];
  }

  /** Writes every unambiguous copy into the tree; returns them as [copy path, the path it copies]. */
  async writeInto(output: TreeOutput): Promise<[string, string][]> {
    await output.writer.flush();
    const written: [string, string][] = [];
    for (const [extraPath, ownerPath] of this.owners) {
      if (ownerPath === null || output.has(extraPath) || !output.has(ownerPath)) continue;
      await output.copy(ownerPath, extraPath);
      written.push([extraPath, ownerPath]);
    }
    this.owners.clear();
    return written;
  }
}
