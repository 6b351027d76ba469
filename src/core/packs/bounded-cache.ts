// A least-recently-used map bounded by the bytes its values are said to take: the search reader's
// decoded postings and title blocks, and the whole packs a host sent where a record's range was
// asked, so a warm isolate answers from memory while its memory stays under a fixed ceiling at any
// corpus size. Portable.

export class BoundedCache<Value> {
  private readonly entries = new Map<string, { value: Value; bytes: number }>();
  private heldBytes = 0;

  /** `maxValueBytes`: a larger value is not kept (default: the whole budget). */
  constructor(
    private readonly maxBytes: number,
    private readonly maxValueBytes = maxBytes,
  ) {}

  /** Whether a value of `bytes` would be kept (with `pushesOut` false: without dropping another). */
  keeps(bytes: number, pushesOut = true): boolean {
    return (
      bytes <= this.maxValueBytes && (pushesOut ? bytes <= this.maxBytes : this.heldBytes + bytes <= this.maxBytes)
    );
  }

  get(key: string): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last: a Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * A value larger than maxValueBytes is not kept (it would push everything else out); with
   * `pushesOut` false, nor one that does not fit beside what is held.
   */
  set(key: string, value: Value, bytes: number, pushesOut = true): void {
    if (!this.keeps(bytes, pushesOut)) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.heldBytes -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.heldBytes += bytes;
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.heldBytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.heldBytes -= oldEntry.bytes;
    }
  }

  size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.heldBytes };
  }
}
