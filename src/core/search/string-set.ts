// A set of strings held as their UTF-8 bytes outside the JavaScript heap, for the document lister
// (listed-uris.ts), which remembers the resource URIs of a list out of order to skip a repeated
// one: a Set of 100,000 URI strings held ~10 MB of heap to the end of the index step, and the heap
// grows to a multiple of what it holds. Here a string costs its bytes and 16 more. The bytes go in fixed
// chunks (never copied as the set grows); an open-addressing table of entry numbers finds one.
// Portable (no Buffer): the lister runs in `staticmcp index` and the build alike.

const CHUNK_BYTES = 64 * 1024;
const EMPTY = 0;
/** A surrogate without its pair, which UTF-8 cannot hold (TextEncoder makes each one U+FFFD). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** FNV-1a over `bytes[0, length)`. */
function hashBytes(bytes: Uint8Array, length: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < length; index++) hash = Math.imul(hash ^ bytes[index]!, 0x01000193);
  return hash >>> 0;
}

/** `array` copied into one twice as long (or `length`, if more). */
function grown(array: Uint32Array, length: number): Uint32Array {
  if (array.length >= length) return array;
  const larger = new Uint32Array(Math.max(length, array.length * 2));
  larger.set(array);
  return larger;
}

export class StringSet {
  private readonly encoder = new TextEncoder();
  private readonly chunks: Uint8Array[] = [];
  /** Bytes used of the last chunk. */
  private chunkUsed = CHUNK_BYTES;
  /** Per entry: its chunk, where its bytes start in it, how many, and its hash. */
  private chunkOf: Uint32Array = new Uint32Array(256);
  private startOf: Uint32Array = new Uint32Array(256);
  private lengthOf: Uint32Array = new Uint32Array(256);
  private hashOf: Uint32Array = new Uint32Array(256);
  private count = 0;
  /** Entry number + 1 (EMPTY: none), at most half full. */
  private table = new Uint32Array(512);
  private probe = new Uint8Array(256);
  /** Strings UTF-8 cannot hold apart (lone surrogates), as strings: rare. */
  private readonly malformed = new Set<string>();

  get size(): number {
    return this.count + this.malformed.size;
  }

  /** Adds `text`; false when the set held it already. */
  add(text: string): boolean {
    if (LONE_SURROGATE.test(text)) {
      if (this.malformed.has(text)) return false;
      this.malformed.add(text);
      return true;
    }
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit.
    if (this.probe.length < text.length * 3) this.probe = new Uint8Array(text.length * 3);
    const length = this.encoder.encodeInto(text, this.probe).written;
    const hash = hashBytes(this.probe, length);
    const mask = this.table.length - 1;
    let position = hash & mask;
    for (; this.table[position] !== EMPTY; position = (position + 1) & mask)
      if (this.holds(this.table[position]! - 1, hash, length)) return false;
    const entry = this.count;
    this.count += 1;
    this.store(entry, hash, length);
    this.table[position] = entry + 1;
    if (this.count * 2 > this.table.length) this.growTable();
    return true;
  }

  private holds(entry: number, hash: number, length: number): boolean {
    if (this.hashOf[entry] !== hash || this.lengthOf[entry] !== length) return false;
    const chunk = this.chunks[this.chunkOf[entry]!]!;
    const start = this.startOf[entry]!;
    for (let index = 0; index < length; index++) if (chunk[start + index] !== this.probe[index]) return false;
    return true;
  }

  /** Copies the probe's `length` bytes into the chunks (a new chunk when the last cannot take them). */
  private store(entry: number, hash: number, length: number): void {
    if (this.chunkUsed + length > CHUNK_BYTES || this.chunks.length === 0) {
      this.chunks.push(new Uint8Array(Math.max(CHUNK_BYTES, length)));
      this.chunkUsed = 0;
    }
    const slots = entry + 1;
    this.chunkOf = grown(this.chunkOf, slots);
    this.startOf = grown(this.startOf, slots);
    this.lengthOf = grown(this.lengthOf, slots);
    this.hashOf = grown(this.hashOf, slots);
    this.chunks.at(-1)!.set(this.probe.subarray(0, length), this.chunkUsed);
    this.chunkOf[entry] = this.chunks.length - 1;
    this.startOf[entry] = this.chunkUsed;
    this.lengthOf[entry] = length;
    this.hashOf[entry] = hash;
    this.chunkUsed += length;
  }

  private growTable(): void {
    const table = new Uint32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let entry = 0; entry < this.count; entry++) {
      let position = this.hashOf[entry]! & mask;
      while (table[position] !== EMPTY) position = (position + 1) & mask;
      table[position] = entry + 1;
    }
    this.table = table;
  }
}
