// The tree writer's spool (tree-writer.ts): one file beside the output folder that spooled files
// are appended to instead of being created one by one, and read back from by offset.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { readExactly } from './read-exactly.js';
import { spoolFileOf } from './swap-folders.js';

export class TreeSpool {
  private bytes = 0;

  private constructor(
    private readonly file: string,
    private readonly fd: number,
  ) {}

  /** Opens (truncating) the spool file of `outDir` for this process. */
  static open(outDir: string): TreeSpool {
    const file = spoolFileOf(outDir, process.pid);
    return new TreeSpool(file, openSync(file, 'w+', 0o600));
  }

  /** Appends `bytes` (synchronously: one sequential write, no create); returns where they start. */
  append(bytes: Uint8Array): number {
    const offset = this.bytes;
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, offset + done);
    this.bytes += bytes.length;
    return offset;
  }

  /** Reads `into.length` bytes from `offset` into `into`. */
  readInto<Into extends Uint8Array>(into: Into, offset: number): Into {
    return readExactly(this.fd, into, offset, 'the spool file');
  }

  /** Closes and removes the spool file. */
  close(): void {
    closeSync(this.fd);
    rmSync(this.file, { force: true });
  }
}
