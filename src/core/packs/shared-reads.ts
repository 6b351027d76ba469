// One read per distinct file for the lookups of one request (issue #40): a search looks up its
// terms, title blocks and document records at once, and a host that ignores byte ranges (the
// Workers asset binding) answers each lookup with the whole file, so two lookups in one pack read
// it twice. A SharedReads lives for one request only: workerd refuses a promise of one request
// settled in another, and a later request must see a redeployed file. Portable.
import type { ByteRange, BytesOutcome, PackFileSource } from './pack-reader.js';

export class SharedReads implements PackFileSource {
  private readonly reads = new Map<string, Promise<BytesOutcome>>();
  private readCount = 0;
  private byteCount = 0;

  readonly sendsWholeFiles: boolean | undefined;

  constructor(private readonly files: PackFileSource) {
    this.sendsWholeFiles = files.sendsWholeFiles;
  }

  /** Reads asked of the host and the bytes they brought (for benches and tests). */
  counts(): { reads: number; bytes: number } {
    return { reads: this.readCount, bytes: this.byteCount };
  }

  /**
   * The file's bytes: those of an earlier read of the same path when it brought the whole file
   * (or found it missing), else a read of its own; the first read of a path is the one shared.
   */
  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    const earlier = this.reads.get(relativePath);
    if (earlier !== undefined) {
      const outcome = await earlier;
      if (outcome.status === 'missing' || outcome.whole) return outcome;
      return this.readOwn(relativePath, range);
    }
    const read = this.readOwn(relativePath, range);
    this.reads.set(relativePath, read);
    return read;
  }

  private async readOwn(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    this.readCount += 1;
    const outcome = await this.files.readBytes(relativePath, range);
    if (outcome.status === 'ok') this.byteCount += outcome.bytes.length;
    return outcome;
  }
}
