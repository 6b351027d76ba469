// Which resource owns each tree path the assembly writes (assemble-tree.ts), by the tree writer's
// slot of the path (file-digests.ts) rather than by the path: the writer finds a path once for
// both, and an owner takes 4 bytes, with no string or hash of the path held or made again.
import type { FileDigests } from '../tree-writer/file-digests.js';
import { grownTypedArray } from '../tree-writer/grown-typed-array.js';

export class SlotOwners {
  /** Per slot, its owner's number + 1 (0: none). */
  private owners = new Uint32Array(0);

  constructor(private readonly files: FileDigests) {}

  /** The owner of the file at `filePath`, if it is one of the files set here (and still in the tree). */
  get(filePath: string): number | undefined {
    const slot = this.files.slotOf(filePath);
    const stored = slot >= 0 && slot < this.owners.length ? this.owners[slot]! : 0;
    return stored === 0 ? undefined : stored - 1;
  }

  /** Makes `owner` the owner of the file in `slot` (slotOf's, -1: not in the tree, nothing set). */
  set(slot: number, owner: number): void {
    if (slot < 0) return;
    this.owners = grownTypedArray(this.owners, slot + 1);
    this.owners[slot] = owner + 1;
  }
}
