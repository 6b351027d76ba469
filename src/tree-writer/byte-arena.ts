// Copies of short byte strings that must outlive a reader's buffer (the term records a pack holds
// until it closes), made side by side in shared chunks: a copy of its own per record was an
// ArrayBuffer each, and the term walk of an edit made two per term record of the corpus.

/** Bytes per chunk: small, so a chunk no record still holds is soon garbage. */
const CHUNK_BYTES = 64 * 1024;
/** Longer copies get a buffer of their own (a chunk would hold mostly one record). */
const OWN_BUFFER_BYTES = CHUNK_BYTES / 8;

export class ByteArena {
  private chunk = new Uint8Array(CHUNK_BYTES);
  private used = 0;

  /** A copy of `bytes`, valid as long as it is held. */
  copy(bytes: Uint8Array): Uint8Array {
    const length = bytes.length;
    if (length > OWN_BUFFER_BYTES) return bytes.slice();
    if (this.used + length > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK_BYTES);
      this.used = 0;
    }
    const copied = this.chunk.subarray(this.used, this.used + length);
    copied.set(bytes);
    this.used += length;
    return copied;
  }
}
