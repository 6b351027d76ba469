// The copies of resource files at the standard's raw names (`resources/changelog.md.json`), where
// other StaticMCP bridges look, as extra-copies.ts keeps them for calls but held per resource by
// its number and its file's slot in the tree writer alone (issue #39, "Memory"): the raw path is
// made from its URI only when the copies are written. Two resources never claim one raw name: a
// raw name is the URI's path after `scheme://` as it is, and the encoded name (resource-key.ts) is
// made from that same path, so two URIs of one raw name have one encoded name too, which the
// assembly refuses for the second (assemble-tree.ts). A raw name the tree already uses for a file
// of its own (another resource's encoded name) is not written.
import { rawResourceFilePath, resourceFilePath } from '../core/tree/resource-key.js';
import type { TreeOutput } from './tree-output.js';

export class RawResourceCopies {
  /** The claims, in order (ascending numbers). */
  private readonly claimed: number[] = [];
  /** Per claim, the tree writer's slot of the resource's file (-1: not known, found by its path). */
  private readonly slots: number[] = [];

  constructor(
    /** The URI of the resource numbered `owner`. */
    private readonly uriOf: (owner: number) => string,
  ) {}

  /** Claims the raw name of resource `owner`'s file, if its URI has one; `slot` is the tree writer's slot of its file. */
  claim(owner: number, slot = -1): void {
    this.claimed.push(owner);
    this.slots.push(slot);
  }

  /** Writes every copy into the tree. */
  async writeInto(output: TreeOutput): Promise<void> {
    await output.writer.flush();
    const files = output.writer.written;
    for (let index = 0; index < this.claimed.length; index++) {
      const owner = this.claimed[index]!;
      const uri = this.uriOf(owner);
      const raw = rawResourceFilePath(uri);
      if (raw === undefined) continue;
      // By slot: neither the encoded path made again nor looked up (a slot never changes its path).
      const slot = this.slots[index]!;
      if (slot >= 0) {
        if (!output.has(raw) && files.isLive(slot)) await output.copySlot(slot, raw);
        continue;
      }
      const filePath = resourceFilePath(uri);
      if (output.has(raw) || !output.has(filePath)) continue;
      await output.copy(filePath, raw);
    }
  }
}
