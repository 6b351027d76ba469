// The copies of resource files at the standard's raw names (`resources/changelog.md.json`), where
// other StaticMCP bridges look, as extra-copies.ts keeps them for calls but held per resource by
// its number alone (issue #39, "Memory"): the raw and the encoded path are made again from its URI
// when the copies are written. A raw name two resources claim is ambiguous and is not written;
// neither is one the tree already uses for a file of its own.
import { rawResourceFilePath, resourceFilePath } from '../core/tree/resource-key.js';
import { HashedKeyMap } from './hashed-key-map.js';
import type { TreeOutput } from './tree-output.js';

export class RawResourceCopies {
  /** Raw name → the first resource that claimed it. */
  private readonly owners: HashedKeyMap;
  /** Resources whose raw name another resource claimed too. */
  private readonly ambiguous = new Set<number>();
  /** The claims, in order (ascending numbers). */
  private readonly claimed: number[] = [];
  /** Per claim, the tree writer's slot of the resource's file (-1: not known, found by its path). */
  private readonly slots: number[] = [];

  constructor(
    /** The URI of the resource numbered `owner`. */
    private readonly uriOf: (owner: number) => string,
  ) {
    this.owners = new HashedKeyMap((owner) => rawResourceFilePath(uriOf(owner)) ?? '');
  }

  /**
   * Claims the raw name of resource `owner`'s file (none when its URI has no raw name of its own);
   * `uri` is its URI when the caller has it at hand, `slot` the tree writer's slot of its file.
   */
  claim(owner: number, uri: string = this.uriOf(owner), slot = -1): void {
    const raw = rawResourceFilePath(uri);
    if (raw === undefined) return;
    const held = this.owners.get(raw);
    if (held === undefined) {
      this.owners.set(raw, owner);
      this.claimed.push(owner);
      this.slots.push(slot);
    } else if (held !== owner) this.ambiguous.add(held);
  }

  /** Writes every unambiguous copy into the tree. */
  async writeInto(output: TreeOutput): Promise<void> {
    await output.writer.flush();
    const files = output.writer.written;
    for (let index = 0; index < this.claimed.length; index++) {
      const owner = this.claimed[index]!;
      if (this.ambiguous.has(owner)) continue;
      const uri = this.uriOf(owner);
      const raw = rawResourceFilePath(uri)!;
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
