// A list of paths the tree writer has recorded, held as their slot numbers in its file digests
// (tree-writer/file-digests.ts): about a byte a path where the slots come close together, as a
// tool's call files do (compact-ids.ts), 4 bytes otherwise. The pack step keeps its tools' call
// files this way from the plan to the packs, through the content hash; a copy of each path
// (string-arena.ts) cost the path's bytes and 8 more per call, beside the writer's own copy.
import { CompactIds } from '../tree-writer/compact-ids.js';
import type { FileDigests } from '../tree-writer/file-digests.js';
import { grownTypedArray } from '../tree-writer/grown-typed-array.js';
import { sortPositions } from '../tree-writer/sort-positions.js';

export class TreeSlotList {
  private slots = new CompactIds();

  constructor(private readonly files: FileDigests) {}

  get length(): number {
    return this.slots.length;
  }

  /** Appends the path recorded in `slot`. */
  push(slot: number): void {
    this.slots.push(slot);
  }

  /** The writer's slot of the path at `position`. */
  slotAt(position: number): number {
    return this.slots.at(position);
  }

  /** The path at `position`. */
  at(position: number): string {
    return this.files.at(this.slots.at(position));
  }

  /** Gives the slots' memory back at once and empties the list (the pack step holds them elsewhere). */
  release(): void {
    this.slots.release();
  }

  /**
   * The positions 0 … length - 1 in the paths' order (as a sort of the strings gives it), in an
   * array the caller may give back with releaseGrown.
   */
  sortedPositions(): Uint32Array {
    const order = grownTypedArray(new Uint32Array(0), this.length);
    for (let position = 0; position < order.length; position++) order[position] = position;
    return sortPositions(order, (left, right) => this.files.compare(this.slotAt(left), this.slotAt(right)));
  }

  /** The slots in their paths' order, in an array the caller may give back with releaseGrown. */
  sortedSlots(): Uint32Array {
    const sorted = grownTypedArray(new Uint32Array(0), this.length);
    for (let position = 0; position < sorted.length; position++) sorted[position] = this.slots.at(position);
    return sortPositions(sorted, (left, right) => this.files.compare(left, right));
  }
}
