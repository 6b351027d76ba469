// A read-only lookup of fixed-size entries held in one buffer, each starting with a digest key
// (the kept build records: resource files, llms-full.txt entries): open addressing on a key's
// first four bytes, which a digest already spreads evenly, so an entry is found without a Map, a
// sort or a string each.

export class DigestKeyTable {
  /** Entry position + 1 by slot, 0 where none; at most half full. */
  private readonly slots: Uint32Array;

  constructor(
    /** The entries, one every `entryBytes`, each starting with its key. */
    private readonly entries: Uint8Array,
    private readonly entryBytes: number,
    private readonly keyBytes: number,
  ) {
    const count = Math.floor(entries.length / entryBytes);
    let size = 16;
    while (size < count * 2) size *= 2;
    this.slots = new Uint32Array(size);
    for (let position = 0; position < count; position++) {
      let slot = firstWord(entries, position * entryBytes) & (size - 1);
      while (this.slots[slot] !== 0) slot = (slot + 1) & (size - 1);
      this.slots[slot] = position + 1;
    }
  }

  /** The position of the entry whose key is `key`'s first keyBytes, or -1. */
  find(key: Uint8Array): number {
    const { entries, entryBytes, keyBytes, slots } = this;
    const mask = slots.length - 1;
    for (let slot = firstWord(key, 0) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const position = slots[slot]! - 1;
      const start = position * entryBytes;
      let same = true;
      for (let index = 0; index < keyBytes && same; index++) same = entries[start + index] === key[index];
      if (same) return position;
    }
    return -1;
  }
}

/** The little-endian 32-bit word at `at`. */
function firstWord(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}
