// Copies of tree files at the extra paths other StaticMCP bridges look in (left-out-default call
// keys, the standard's raw resource names). A path two different files claim is ambiguous and is
// not written; neither is one the tree already uses for a file of its own.
export class ExtraCopies {
  /** Extra path → the file it copies; null once two files claim it. */
  private readonly owners = new Map<string, string | null>();
  private readonly contents = new Map<string, string>();

  claim(extraPath: string, ownerPath: string, content: string): void {
    const owner = this.owners.get(extraPath);
    if (owner === undefined) {
      this.owners.set(extraPath, ownerPath);
      this.contents.set(extraPath, content);
    } else if (owner !== ownerPath) {
      this.owners.set(extraPath, null);
      this.contents.delete(extraPath);
    }
  }

  /** Adds every unambiguous copy to the tree's files; returns how many. */
  writeInto(files: Map<string, string>): number {
    let written = 0;
    for (const [extraPath, content] of this.contents) {
      if (files.has(extraPath)) continue;
      files.set(extraPath, content);
      written += 1;
    }
    return written;
  }
}
