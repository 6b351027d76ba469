// A map from a string key to a number, holding no key (issue #39, "Memory"): a build of 100,000
// documents keeps, per resource, which resource owns each tree path and each raw-name copy; as a
// Map of strings that is two strings and an entry each (~250 bytes of heap a document). Here an
// entry is a small-integer hash of the key and the value, and the key is made again from the
// value (`keyOf`) when a lookup needs to tell two keys of one hash apart; a key whose hash
// another key already holds goes to a plain Map (rare: a few per million keys).

/** FNV-1a over UTF-16 units, cut to a small integer (V8 keeps it unboxed in a Map). */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >> 2;
}

export class HashedKeyMap {
  private readonly byHash = new Map<number, number>();
  private readonly collided = new Map<string, number>();

  constructor(
    /** The key a stored value was set under. */
    private readonly keyOf: (value: number) => string,
  ) {}

  get(key: string): number | undefined {
    const value = this.byHash.get(hashOf(key));
    if (value !== undefined && this.keyOf(value) === key) return value;
    return this.collided.size === 0 ? undefined : this.collided.get(key);
  }

  /** Sets `key` to `value`, which `keyOf` must map back to `key`. */
  set(key: string, value: number): void {
    const hash = hashOf(key);
    const held = this.byHash.get(hash);
    if (held === undefined || this.keyOf(held) === key) this.byHash.set(hash, value);
    else this.collided.set(key, value);
  }
}
