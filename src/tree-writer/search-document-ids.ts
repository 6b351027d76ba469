// The search index writer's document ids by arrival (search-document-columns.ts), front- and
// back-coded as the tree writer codes its paths (prefix-coded-paths.ts). The ids are tree paths and
// arrive about in path order (`resources/man1/ls.1.md.json` after `resources/man1/ln.1.md.json`),
// so most share all but a few bytes with the one before: kept whole, with a start and an end each,
// they were the largest column the writer holds while documents stream in, and grew with their count.
import { grownTypedArray } from './grown-typed-array.js';
import { PrefixCodedPaths } from './prefix-coded-paths.js';
import type { IdList } from './search-scratch-records.js';

/** A character outside printable ASCII, or one JSON escapes (`"`, `\`). */
const NOT_PLAIN_JSON = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

export class DocumentIds implements IdList {
  private readonly paths = new PrefixCodedPaths();
  /** The id being added, as UTF-8 (grown for a longer one). */
  private scratch = Buffer.alloc(256);
  /**
   * Each id's UTF-8 length by arrival: the title packs ask for every one in id order, where a
   * coded id's length is a walk from its block's start.
   */
  private byteLengths = new Uint32Array(1024);
  /** Ids with a character JSON escapes or outside printable ASCII (none: the title blocks count bytes alone). */
  private notPlainCount = 0;

  get length(): number {
    return this.paths.length;
  }

  /** Appends `id`; returns its UTF-8 bytes (a view: valid until the next push). */
  push(id: string): Uint8Array {
    const length = this.add(id);
    return this.scratch.subarray(0, length);
  }

  /** Appends `id`; returns its UTF-8 length (no view made: an unchanged document's id needs none). */
  add(id: string): number {
    const most = id.length * 3;
    if (this.scratch.length < most) this.scratch = Buffer.alloc(Math.max(most, this.scratch.length * 2));
    const length = this.scratch.write(id, 0, 'utf8');
    const arrival = this.paths.push(this.scratch, length);
    this.byteLengths = grownTypedArray(this.byteLengths, arrival + 1);
    this.byteLengths[arrival] = length;
    if (NOT_PLAIN_JSON.test(id)) this.notPlainCount += 1;
    return length;
  }

  /** Whether every id is printable ASCII that JSON writes as it is (a byte a character, nothing escaped). */
  holdsOnlyPlainJson(): boolean {
    return this.notPlainCount === 0;
  }

  at(arrival: number): string {
    return this.paths.stringAt(arrival);
  }

  /** The UTF-8 bytes of the id at `arrival` (a view: valid until the next bytesAt or push). */
  bytesAt(arrival: number): Uint8Array {
    return this.paths.bytesAt(arrival);
  }

  byteLengthAt(arrival: number): number {
    if (arrival >= this.length || arrival < 0) throw new RangeError(`no id arrived ${arrival}-th`);
    return this.byteLengths[arrival]!;
  }

  /** Compares the ids at two arrivals by their UTF-8 bytes (code point order). */
  compareBytes(left: number, right: number): number {
    return this.paths.compare(left, right, false);
  }

  /**
   * The arrivals in id order: as they came when every id is past the one before (the usual case,
   * checked in one walk that decodes each id once), else `hint` when it puts every id past the one
   * before (the previous build's order when the ids are the same: one walk, not a sort), else
   * sorted. `distinct` says the order was checked strictly increasing (then no two ids are the
   * same), `strictlyInOrder` that it is the arrivals' own.
   */
  sortedArrivals(hint?: Uint32Array): { order: Uint32Array; strictlyInOrder: boolean; distinct: boolean } {
    const count = this.length;
    const order = new Uint32Array(count);
    for (let arrival = 0; arrival < count; arrival += 1) order[arrival] = arrival;
    let inOrder = true;
    for (let arrival = 1; arrival < count && inOrder; arrival += 1)
      inOrder = this.compareBytes(arrival - 1, arrival) < 0;
    if (inOrder) return { order, strictlyInOrder: true, distinct: true };
    if (hint !== undefined && this.isStrictOrder(hint))
      return { order: hint.slice(), strictlyInOrder: false, distinct: true };
    return {
      order: order.sort((left, right) => this.compareBytes(left, right)),
      strictlyInOrder: false,
      distinct: false,
    };
  }

  /** Whether `order` names each arrival once with every id past the one before. */
  private isStrictOrder(order: Uint32Array): boolean {
    const count = this.length;
    if (order.length !== count) return false;
    for (let position = 0; position < count; position += 1) {
      if (order[position]! >= count) return false;
      if (position > 0 && this.compareBytes(order[position - 1]!, order[position]!) >= 0) return false;
    }
    return true;
  }
}
