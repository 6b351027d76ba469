// A list of paths the tree writer has recorded, held as their slot numbers in its file digests
// (tree-writer/file-digests.ts): 4 bytes a path in one typed array. The pack step keeps its tools'
// call files this way; a copy of each path (string-arena.ts) cost the path's bytes and 8 more
// per call, beside the writer's own copy.
import type { FileDigests } from '../tree-writer/file-digests.js';
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';
import { sortPositions } from '../tree-writer/sort-positions.js';

const INITIAL_ITEMS = 256;

export class TreeSlotList {
  private slots = new Uint32Array(INITIAL_ITEMS);
  private count = 0;

  constructor(private readonly files: FileDigests) {}

  get length(): number {
    return this.count;
  }

  /** Appends the path recorded in `slot`. */
  push(slot: number): void {
    this.slots = grownTypedArray(this.slots, this.count + 1);
    this.slots[this.count] = slot;
    this.count += 1;
  }

  /** The writer's slot of the path at `position`. */
  slotAt(position: number): number {
    return this.slots[position]!;
  }

  /** The path at `position`. */
  at(position: number): string {
    return this.files.at(this.slots[position]!);
  }

  /** Gives the slots' memory back at once and empties the list (the pack step holds them elsewhere). */
  release(): void {
    this.slots = releaseGrown(this.slots);
    this.count = 0;
  }

  /**
   * The positions 0 … length - 1 in the paths' order (as a sort of the strings gives it), in an
   * array the caller may give back with releaseGrown.
   */
  sortedPositions(): Uint32Array {
    const order = grownTypedArray(new Uint32Array(0), this.count);
    for (let position = 0; position < this.count; position++) order[position] = position;
    return sortPositions(order, (left, right) => this.files.compare(this.slots[left]!, this.slots[right]!));
  }
}
