// The packs a pack index names (pack-format.ts), by number: an array when the index is parsed
// whole, or, parsed lazily, a list that decodes a pack's name when an entry first names it.
// Portable.
import { decodeUtf8 } from '../tree/utf8.js';

/** A pack an index names: its tree path and length; `notUtf8` when its name did not decode. */
export interface IndexPack {
  path: string;
  length: number;
  notUtf8?: true;
}

/** An index's packs by number: an array, or (parsed lazily) a list that decodes a name when first used. */
export interface IndexPacks extends Iterable<IndexPack> {
  readonly length: number;
  at(pack: number): IndexPack | undefined;
}

/**
 * The packs of an index parsed lazily: each name is decoded when an entry first names its pack.
 * A search's title index names every title pack (375 at 6,000 documents, thousands at 650,000),
 * and a query uses ~10 of them: decoding every name was first-run work for nothing. A name that
 * is not UTF-8 refuses the entries that name it (entryProblem), when one is used.
 */
export class LazyIndexPacks implements IndexPacks {
  private readonly decoded: (IndexPack | undefined)[];

  constructor(
    private readonly bytes: Uint8Array,
    private readonly view: DataView,
    /** Where each pack's (length, name length, name) starts in `bytes`. */
    private readonly offsets: readonly number[],
  ) {
    this.decoded = new Array(offsets.length);
  }

  get length(): number {
    return this.offsets.length;
  }

  at(pack: number): IndexPack | undefined {
    if (!Number.isInteger(pack) || pack < 0 || pack >= this.offsets.length) return undefined;
    const known = this.decoded[pack];
    if (known !== undefined) return known;
    const offset = this.offsets[pack]!;
    const nameLength = this.view.getUint16(offset + 4);
    const name = decodeUtf8(this.bytes.subarray(offset + 6, offset + 6 + nameLength));
    const found: IndexPack = { path: name.text, length: this.view.getUint32(offset) };
    if (name.replaced) found.notUtf8 = true;
    this.decoded[pack] = found;
    return found;
  }

  *[Symbol.iterator](): Iterator<IndexPack> {
    for (let pack = 0; pack < this.offsets.length; pack += 1) yield this.at(pack)!;
  }
}
