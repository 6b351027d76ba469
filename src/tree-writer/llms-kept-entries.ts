// llms-full.txt's entries kept from the previous build (issue #39, "Edits in a second"): an entry is
// a function of its document's source key (search-results.ts: id, title, url, URI, MIME type and
// the file's digest) and the links' base, so `.staticmcp/llms-full-entries.bin` keeps each entry of
// the last llms-full.txt under a digest of those, and the next build takes an unchanged document's
// entry from there instead of reading its text (a kept document's file is otherwise read for it
// alone: ~8 MiB of documents a build). Layout: MAGIC, then per entry KEY_BYTES of key, its length
// (u32) and its UTF-8 bytes, then the sha256 of all before it; the file is checked whole once, then
// only its keys and places are held (shared/digest-key-table.ts) and an entry is read when
// taken. A damaged file (checksum, a length past its end) is not used.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { DigestKeyTable } from '../shared/digest-key-table.js';
import { SpillWriter, WindowReader } from './spill-files.js';

const MAGIC = Buffer.from('SMCPLF01', 'latin1');
/** This build's entries are written to `<file><NEW_ENTRIES_MARK><pid>`, then renamed into place. */
export const NEW_ENTRIES_MARK = '.new-';
const KEY_BYTES = 16;
/** A held entry: its key, where its bytes start in the file and how many. */
const HELD_BYTES = KEY_BYTES + 8;

export class KeptLlmsEntries {
  /** The previous entries' keys and places (HELD_BYTES each), not their bytes. */
  private readonly held: Buffer;
  /** The previous entries by key. */
  private readonly table: DigestKeyTable;
  /** The previous file, open from its check to the last lookup (its entries are read from there). */
  private fd: number | undefined;
  /** The previous file's entries, looked up in about the order they were written: read by window. */
  private reader: WindowReader | undefined;
  private next: SpillWriter | undefined;
  private readonly nextHash = createHash('sha256');

  /** `file`: the kept entries; `salt`: the writer's identity (a new one keeps nothing of the old). */
  constructor(
    private readonly file: string,
    private readonly salt: string,
    readPrevious: boolean,
  ) {
    const previous = readPrevious ? readEntries(file) : undefined;
    this.fd = previous?.fd;
    const bytes = previous?.bytes ?? Buffer.alloc(0);
    const offsets: number[] = [];
    for (let at = MAGIC.length; at < bytes.length; ) {
      offsets.push(at);
      at += KEY_BYTES + 4 + bytes.readUInt32LE(at + KEY_BYTES);
    }
    this.held = Buffer.alloc(offsets.length * HELD_BYTES);
    offsets.forEach((at, position) => {
      const place = position * HELD_BYTES;
      bytes.copy(this.held, place, at, at + KEY_BYTES);
      this.held.writeUInt32LE(at + KEY_BYTES + 4, place + KEY_BYTES);
      this.held.writeUInt32LE(bytes.readUInt32LE(at + KEY_BYTES), place + KEY_BYTES + 4);
    });
    this.table = new DigestKeyTable(this.held, HELD_BYTES, KEY_BYTES);
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

  /** The kept entry's UTF-8 bytes, or undefined. */
  lookup(key: Buffer): Uint8Array | undefined {
    const { held, fd } = this;
    if (fd === undefined) return undefined;
    const position = this.table.find(key);
    if (position < 0) return undefined;
    const place = position * HELD_BYTES;
    this.reader ??= new WindowReader(fd);
    return this.reader.read(held.readUInt32LE(place + KEY_BYTES), held.readUInt32LE(place + KEY_BYTES + 4));
  }

  /** Closes the previous file (commit and discard do). */
  private closePrevious(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.reader = undefined;
  }

  /** Keeps an entry of this build's llms-full.txt for the next one. */
  add(key: Uint8Array, entry: Uint8Array): void {
    if (this.next === undefined) return;
    const head = Buffer.alloc(KEY_BYTES + 4);
    head.set(key.subarray(0, KEY_BYTES));
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
    this.closePrevious();
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
    this.closePrevious();
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

/**
 * The kept file's bytes, checked, and the file left open (its entries are read from there, not
 * held), or undefined when it is missing, foreign or damaged.
 */
function readEntries(file: string): { bytes: Buffer; fd: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const whole = readFileSync(fd);
    if (whole.length < MAGIC.length + 32 || !whole.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('foreign');
    const bytes = whole.subarray(0, whole.length - 32);
    if (!createHash('sha256').update(bytes).digest().equals(whole.subarray(bytes.length))) throw new Error('damaged');
    let at = MAGIC.length;
    while (at < bytes.length) {
      if (at + KEY_BYTES + 4 > bytes.length) throw new Error('damaged');
      at += KEY_BYTES + 4 + bytes.readUInt32LE(at + KEY_BYTES);
    }
    if (at !== bytes.length) throw new Error('damaged');
    return { bytes, fd };
  } catch {
    if (fd !== undefined) closeSync(fd);
    return undefined;
  }
}
