// The search index writer's document ids by arrival (search-document-columns.ts), front- and
// back-coded as the tree writer codes its paths (prefix-coded-paths.ts). The ids are tree paths and
// arrive about in path order (`resources/man1/ls.1.md.json` after `resources/man1/ln.1.md.json`),
// so most share all but a few bytes with the one before: kept whole, with a start and an end each,
// they were the largest column the writer holds while documents stream in, and grew with their count.
import { PrefixCodedPaths } from './prefix-coded-paths.js';
import type { IdList } from './search-scratch-records.js';

export class DocumentIds implements IdList {
  private readonly paths = new PrefixCodedPaths();
  /** The id being added, as UTF-8 (grown for a longer one). */
  private scratch = Buffer.alloc(256);

  get length(): number {
    return this.paths.length;
  }

  /** Appends `id`; returns its UTF-8 bytes (a view: valid until the next push). */
  push(id: string): Uint8Array {
    const most = id.length * 3;
    if (this.scratch.length < most) this.scratch = Buffer.alloc(Math.max(most, this.scratch.length * 2));
    const length = this.scratch.write(id, 0, 'utf8');
    this.paths.push(this.scratch, length);
    return this.scratch.subarray(0, length);
  }

  at(arrival: number): string {
    return this.paths.stringAt(arrival);
  }

  /** The UTF-8 bytes of the id at `arrival` (a view: valid until the next bytesAt or push). */
  bytesAt(arrival: number): Uint8Array {
    return this.paths.bytesAt(arrival);
  }

  byteLengthAt(arrival: number): number {
    return this.paths.byteLengthAt(arrival);
  }

  /** Compares the ids at two arrivals by their UTF-8 bytes (code point order). */
  compareBytes(left: number, right: number): number {
    return this.paths.compare(left, right, false);
  }

  /**
   * The arrivals in id order: as they came when every id is past the one before (the usual case,
   * checked in one walk that decodes each id once), else sorted; `strictlyInOrder` says which
   * (then no two ids are the same either).
   */
  sortedArrivals(): { order: Uint32Array; strictlyInOrder: boolean } {
    const count = this.length;
    const order = new Uint32Array(count);
    for (let arrival = 0; arrival < count; arrival += 1) order[arrival] = arrival;
    let inOrder = true;
    for (let arrival = 1; arrival < count && inOrder; arrival += 1)
      inOrder = this.compareBytes(arrival - 1, arrival) < 0;
    return {
      order: inOrder ? order : order.sort((left, right) => this.compareBytes(left, right)),
      strictlyInOrder: inOrder,
    };
  }
}
