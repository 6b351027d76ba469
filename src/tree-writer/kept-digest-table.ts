// Where kept entries start, by a digest each holds (search-kept-documents.ts's directory): keyed by
// the digest's first 48 bits, each found start checked against the whole digest.

const DIGEST_BYTES = 32;

/**
 * Where entries start, by a digest that sits in each entry `offset` bytes from its start: keyed by
 * the digest's first 48 bits (a string per entry made the previous file's read cost more than its
 * checksum), each found start checked against the whole digest in `bytes`.
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
    const digest = this.digestAt(bytes, start);
    const key = digest.readUIntBE(0, 6);
    const existing = this.starts.get(key);
    if (existing === undefined) {
      this.starts.set(key, start);
      return;
    }
    if (existing >= 0) this.clashes.set(this.digestAt(bytes, existing).toString('latin1'), existing);
    this.starts.set(key, -1);
    this.clashes.set(digest.toString('latin1'), start);
  }

  get(bytes: Uint8Array, digest: Buffer): number | undefined {
    const start = this.starts.get(digest.readUIntBE(0, 6));
    if (start === undefined) return undefined;
    if (start < 0) return this.clashes.get(digest.toString('latin1'));
    return this.digestAt(bytes, start).equals(digest) ? start : undefined;
  }

  clear(): void {
    this.starts.clear();
    this.clashes.clear();
  }
}
