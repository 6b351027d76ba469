// A map from a string key to a number, holding no key (issue #39, "Memory"): a build of 100,000
// documents keeps, per resource, which resource owns each tree path and each raw-name copy; as a
// Map of strings that is two strings and an entry each (~250 bytes of heap a document). Here an
// entry is the key's 32-bit hash and the value in two typed arrays outside the heap (open
// addressing, at most three quarters full: ~11 bytes an entry), and the key is made again from
// the value (`keyOf`) when a probe meets its hash, so keys of one hash are told apart. A Map of
// numbers, as before, held ~30 bytes of heap an entry, and rehashed into a copy as it grew.
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';

const INITIAL_SLOTS = 1024;

/** FNV-1a over UTF-16 units. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

export class HashedKeyMap {
  /** Each slot's value + 1 (0: empty). */
  private values = new Uint32Array(INITIAL_SLOTS);
  /** Each slot's key hash. */
  private hashes = new Uint32Array(INITIAL_SLOTS);
  private count = 0;

  constructor(
    /** The key a stored value was set under. */
    private readonly keyOf: (value: number) => string,
  ) {}

  /** The slot of `key`, or the empty slot where it would go. */
  private slotOf(key: string, hash: number): number {
    const mask = this.values.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const stored = this.values[slot]!;
      if (stored === 0) return slot;
      if (this.hashes[slot] === hash && this.keyOf(stored - 1) === key) return slot;
    }
  }

  get(key: string): number | undefined {
    const stored = this.values[this.slotOf(key, hashOf(key))]!;
    return stored === 0 ? undefined : stored - 1;
  }

  /** Sets `key` to `value`, which `keyOf` must map back to `key`. */
  set(key: string, value: number): void {
    const hash = hashOf(key);
    const slot = this.slotOf(key, hash);
    if (this.values[slot] === 0) this.count += 1;
    this.values[slot] = value + 1;
    this.hashes[slot] = hash;
    if (this.count * 4 > this.values.length * 3) this.grow();
  }

  /** Twice the slots, every entry placed again by its hash (no key is made). */
  private grow(): void {
    const oldValues = this.values;
    const oldHashes = this.hashes;
    this.values = new Uint32Array(0);
    this.hashes = new Uint32Array(0);
    this.values = grownTypedArray(this.values, oldValues.length * 2);
    this.hashes = grownTypedArray(this.hashes, oldValues.length * 2);
    const mask = this.values.length - 1;
    for (let old = 0; old < oldValues.length; old++) {
      const stored = oldValues[old]!;
      if (stored === 0) continue;
      let slot = oldHashes[old]! & mask;
      while (this.values[slot] !== 0) slot = (slot + 1) & mask;
      this.values[slot] = stored;
      this.hashes[slot] = oldHashes[old]!;
    }
    releaseGrown(oldValues);
    releaseGrown(oldHashes);
  }
}
