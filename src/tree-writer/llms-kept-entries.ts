// llms-full.txt's entries kept from the previous build (issue #39, "Edits in a second"): an entry is
// a function of its document's source key (search-results.ts: id, title, url, URI, MIME type and
// the file's digest) and the links' base, so `.staticmcp/llms-full-entries.bin` keeps each entry of
// the last llms-full.txt under a digest of those, and the next build takes an unchanged document's
// entry from there instead of reading its text (a kept document's file is otherwise read for it
// alone: ~8 MiB of documents a build). Layout: MAGIC, then per entry KEY_BYTES of key, its length
// (u32) and its UTF-8 bytes, then the sha256 of all before it; the file is read whole (at most
// about the llms-full.txt cap) and found by a table on the keys' first bytes. A damaged file
// (checksum, a length past its end) is not used.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { SpillWriter } from './spill-files.js';

const MAGIC = Buffer.from('SMCPLF01', 'latin1');
/** This build's entries are written to `<file><NEW_ENTRIES_MARK><pid>`, then renamed into place. */
export const NEW_ENTRIES_MARK = '.new-';
const KEY_BYTES = 16;

export class KeptLlmsEntries {
  private readonly previous: Buffer;
  /** Open addressing: the offset + 1 of an entry's key in `previous`, 0 where none. */
  private readonly table: Uint32Array;
  private next: SpillWriter | undefined;
  private readonly nextHash = createHash('sha256');

  /** `file`: the kept entries; `salt`: the writer's identity (a new one keeps nothing of the old). */
  constructor(
    private readonly file: string,
    private readonly salt: string,
    readPrevious: boolean,
  ) {
    this.previous = readPrevious ? readEntries(file) : Buffer.alloc(0);
    const offsets: number[] = [];
    for (let at = MAGIC.length; at < this.previous.length; ) {
      offsets.push(at);
      at += KEY_BYTES + 4 + this.previous.readUInt32LE(at + KEY_BYTES);
    }
    let size = 16;
    while (size < offsets.length * 2) size *= 2;
    this.table = new Uint32Array(size);
    for (const at of offsets) {
      let slot = this.previous.readUInt32LE(at) & (size - 1);
      while (this.table[slot] !== 0) slot = (slot + 1) & (size - 1);
      this.table[slot] = at + 1;
    }
    try {
      this.next = new SpillWriter(`${file}${NEW_ENTRIES_MARK}${process.pid}`);
      this.append(MAGIC);
    } catch {
      this.next = undefined;
    }
  }

  keyOf(sourceKey: string, linkBase: string | undefined): Buffer {
    return createHash('sha256')
      .update(JSON.stringify([this.salt, linkBase ?? null, sourceKey]))
      .digest()
      .subarray(0, KEY_BYTES);
  }

  /** The kept entry's UTF-8 bytes (a view), or undefined. */
  lookup(key: Buffer): Buffer | undefined {
    const { previous, table } = this;
    const mask = table.length - 1;
    for (let slot = key.readUInt32LE(0) & mask; table[slot] !== 0; slot = (slot + 1) & mask) {
      const at = table[slot]! - 1;
      let same = true;
      for (let index = 0; index < KEY_BYTES && same; index++) same = previous[at + index] === key[index];
      if (same) {
        const start = at + KEY_BYTES + 4;
        return previous.subarray(start, start + previous.readUInt32LE(at + KEY_BYTES));
      }
    }
    return undefined;
  }

  /** Keeps an entry of this build's llms-full.txt for the next one. */
  add(key: Buffer, entry: Uint8Array): void {
    if (this.next === undefined) return;
    const head = Buffer.alloc(KEY_BYTES + 4);
    key.copy(head, 0, 0, KEY_BYTES);
    head.writeUInt32LE(entry.length, KEY_BYTES);
    this.append(head);
    this.append(entry);
  }

  private append(bytes: Uint8Array): void {
    this.next!.append(bytes);
    this.nextHash.update(bytes);
  }

  /** Puts this build's entries in place of the previous ones (the build wrote its llms-full.txt). */
  commit(): void {
    const { next } = this;
    if (next === undefined) return;
    this.next = undefined;
    try {
      next.append(this.nextHash.digest());
      next.close();
      renameSync(next.file, this.file);
    } catch {
      rmSync(next.file, { force: true });
    }
  }

  /** Drops this build's entries when they were not committed. */
  discard(): void {
    const { next } = this;
    if (next === undefined) return;
    this.next = undefined;
    try {
      next.close();
    } catch {
      // A write failed: the file goes all the same.
    }
    rmSync(next.file, { force: true });
  }
}

/** The kept file's bytes, or none when it is missing, foreign or damaged. */
function readEntries(file: string): Buffer {
  try {
    const whole = readFileSync(file);
    if (whole.length < MAGIC.length + 32 || !whole.subarray(0, MAGIC.length).equals(MAGIC)) return Buffer.alloc(0);
    const bytes = whole.subarray(0, whole.length - 32);
    if (!createHash('sha256').update(bytes).digest().equals(whole.subarray(bytes.length))) return Buffer.alloc(0);
    let at = MAGIC.length;
    while (at < bytes.length) {
      if (at + KEY_BYTES + 4 > bytes.length) return Buffer.alloc(0);
      at += KEY_BYTES + 4 + bytes.readUInt32LE(at + KEY_BYTES);
    }
    return at === bytes.length ? bytes : Buffer.alloc(0);
  } catch {
    return Buffer.alloc(0);
  }
}
