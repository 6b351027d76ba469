// Where kept entries start, by a digest each holds (search-kept-documents.ts's directory): open
// addressing in one typed array on the digest's first four bytes, which a digest already spreads
// evenly, each found entry checked against the whole digest in place.

const DIGEST_BYTES = 32;

/** The little-endian 32-bit word at `at`. */
function wordAt(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/**
 * Where records start, by a digest that sits in each record `offset` bytes from its start: a
 * slot per record and as many again, each holding its record's number + 1 (0: empty). A Map keyed
 * by the digest's first 48 bits cost an edit build's index step more than reading the directory it
 * indexed (two inserts a document, a heap number each); a string or a Buffer view per lookup, more
 * again. Read and compared in place.
 */
export class DigestTable {
  private slots = new Uint32Array(0);
  private recordBytes = 1;

  constructor(private readonly offset: number) {}

  /**
   * Indexes the `count` records of `recordBytes` each at the start of `bytes`, those `include`
   * says (all when absent): of records with one digest, the last is found.
   */
  index(bytes: Uint8Array, recordBytes: number, count: number, include?: (start: number) => boolean): void {
    let size = 16;
    while (size < count * 2) size *= 2;
    const slots = new Uint32Array(size);
    const mask = size - 1;
    for (let record = 0; record < count; record += 1) {
      const start = record * recordBytes;
      if (include !== undefined && !include(start)) continue;
      const at = start + this.offset;
      let slot = wordAt(bytes, at) & mask;
      for (; slots[slot] !== 0; slot = (slot + 1) & mask)
        if (sameDigest(bytes, (slots[slot]! - 1) * recordBytes + this.offset, bytes, at)) break;
      slots[slot] = record + 1;
    }
    this.slots = slots;
    this.recordBytes = recordBytes;
  }

  /** Where the record whose digest is `digest` starts in `bytes` (the bytes indexed), or undefined. */
  get(bytes: Uint8Array, digest: Uint8Array): number | undefined {
    const { slots, recordBytes, offset } = this;
    if (digest.length !== DIGEST_BYTES || slots.length === 0) return undefined;
    const mask = slots.length - 1;
    for (let slot = wordAt(digest, 0) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const start = (slots[slot]! - 1) * recordBytes;
      if (sameDigest(bytes, start + offset, digest, 0)) return start;
    }
    return undefined;
  }

  clear(): void {
    this.slots = new Uint32Array(0);
  }
}

function sameDigest(left: Uint8Array, leftAt: number, right: Uint8Array, rightAt: number): boolean {
  for (let index = 0; index < DIGEST_BYTES; index += 1)
    if (left[leftAt + index] !== right[rightAt + index]) return false;
  return true;
}
