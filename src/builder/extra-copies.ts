// Copies of tree files at the extra paths other StaticMCP bridges look in (left-out-default call
// keys, the standard's raw resource names). A path two different files claim is ambiguous and is
// not written; neither is one the tree already uses for a file of its own. Only paths are held
// while the build streams (flat memory); contents are copied from the written tree at the end.
import type { TreeOutput } from './tree-output.js';

export class ExtraCopies {
  /** Extra path → the tree path it copies; null once two files claim it. */
  private readonly owners = new Map<string, string | null>();

  claim(extraPath: string, ownerPath: string): void {
    const owner = this.owners.get(extraPath);
    if (owner === undefined) this.owners.set(extraPath, ownerPath);
    else if (owner !== ownerPath) this.owners.set(extraPath, null);
  }

  /** Writes every unambiguous copy into the tree; returns how many. */
  async writeInto(output: TreeOutput): Promise<number> {
    await output.writer.flush();
    let written = 0;
    for (const [extraPath, ownerPath] of this.owners) {
      if (ownerPath === null || output.writer.has(extraPath) || !output.writer.has(ownerPath)) continue;
      await output.write(extraPath, output.writer.read(ownerPath));
      written += 1;
    }
    this.owners.clear();
    return written;
  }
}
