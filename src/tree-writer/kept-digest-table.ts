// Where kept entries start, by a digest each holds (search-kept-documents.ts's directory): keyed by
// the digest's first 48 bits, each found start checked against the whole digest.

const DIGEST_BYTES = 32;

/** The first 48 bits of the digest at `at`, big-endian (a whole number below 2^48: no allocation). */
function keyAt(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!) * 0x1000000 +
    ((bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!)
  );
}

/**
 * Where entries start, by a digest that sits in each entry `offset` bytes from its start: keyed by
 * the digest's first 48 bits (a string per entry made the previous file's read cost more than its
 * checksum), each found start checked against the whole digest in `bytes`. Read and compared in
 * place: a Buffer view per lookup, two lookups a document, was most of what an edit build's index
 * step promoted to the old generation at 100,000 documents (views outlive a scavenge far more often
 * than other short-lived objects).
 */
export class DigestTable {
  private readonly starts = new Map<number, number>();
  /** Entries whose first 48 bits another entry shares, by the whole digest. */
  private readonly clashes = new Map<string, number>();

  constructor(private readonly offset: number) {}

  private digestAt(bytes: Uint8Array, start: number): Buffer {
    return Buffer.from(bytes.buffer, bytes.byteOffset + start + this.offset, DIGEST_BYTES);
  }

  set(bytes: Uint8Array, start: number): void {
    const key = keyAt(bytes, start + this.offset);
    const existing = this.starts.get(key);
    if (existing === undefined) {
      this.starts.set(key, start);
      return;
    }
    if (existing >= 0) this.clashes.set(this.digestAt(bytes, existing).toString('latin1'), existing);
    this.starts.set(key, -1);
    this.clashes.set(this.digestAt(bytes, start).toString('latin1'), start);
  }

  get(bytes: Uint8Array, digest: Buffer): number | undefined {
    if (digest.length !== DIGEST_BYTES) return undefined;
    const start = this.starts.get(keyAt(digest, 0));
    if (start === undefined) return undefined;
    if (start < 0) return this.clashes.get(digest.toString('latin1'));
    const at = start + this.offset;
    for (let index = 0; index < DIGEST_BYTES; index += 1) if (bytes[at + index] !== digest[index]) return undefined;
    return start;
  }

  clear(): void {
    this.starts.clear();
    this.clashes.clear();
  }
}
