// The identities (inode, size, mtime) the up-to-date walk took of the project's files
// (builder/up-to-date.ts), handed on to discovery so that a document is stat-ed once a build, not
// twice (issue #39: the second 10,000 stats were most of discovery's time at 10,000 documents). An
// identity taken by the walk is older than one discovery would take: a file edited since is
// still caught where its tree file is written (resource-file-content.ts compares it again).
// Compact on purpose: per folder, its file names in one string and their identities in one typed
// array, no object or string per file (discovery holds these for every document of the project).
import type { DocumentStats } from './document-record.js';

const SLASH = 0x2f;
/** Which 32-bit word of a 64-bit typed array slot holds its low half on this machine. */
const LOW_WORD = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

/**
 * A walked file's identity, read from its folder's typed array when asked: a BigInt is made only
 * for a field read as one, and the document cache and the resource store read the 32-bit words
 * (several BigInts a document were a good part of discovery at 10,000 documents).
 */
export class WalkedIdentity implements DocumentStats {
  constructor(
    /** The folder's identities as 32-bit words, two a field. */
    private readonly words: Uint32Array,
    /** The file's first field (ino) in the folder's fields. */
    private readonly at: number,
    private readonly values: BigInt64Array,
  ) {}

  get ino(): bigint {
    return BigInt.asUintN(64, this.values[this.at]!);
  }

  get size(): bigint {
    return BigInt.asUintN(64, this.values[this.at + 1]!);
  }

  get mtimeNs(): bigint {
    return this.values[this.at + 2]!;
  }

  /** The low 32 bits of field `field` (0 ino, 1 size, 2 mtime). */
  lowWord(field: number): number {
    return this.words[2 * (this.at + field) + LOW_WORD]!;
  }

  /** The high 32 bits of field `field`, as an unsigned number. */
  highWord(field: number): number {
    return this.words[2 * (this.at + field) + 1 - LOW_WORD]!;
  }

  /** Whether `bytes` at `offset` hold ino, size and mtime as three little-endian 64-bit numbers equal to these. */
  equalsLittleEndian(bytes: Buffer, offset: number): boolean {
    for (let field = 0; field < 3; field += 1)
      if (
        bytes.readUInt32LE(offset + 8 * field) !== this.lowWord(field) ||
        bytes.readUInt32LE(offset + 8 * field + 4) !== this.highWord(field)
      )
        return false;
    return true;
  }
}

/** A walked folder's regular files, in the walk's order (code-unit order of their names). */
interface FolderIdentities {
  /** Each name followed by `/` (no name holds one). */
  names: string;
  /** ino, size, mtimeNs of each file, in the order of `names`. */
  values: BigInt64Array;
  /** `values` as 32-bit words. */
  words: Uint32Array;
  /** The next file a lookup in order starts from: its index and its name's offset in `names`. */
  cursor: number;
  offset: number;
}

/** One folder's files as the walk passes them, made compact when the folder is done. */
export class FolderRecorder {
  private readonly names: string[] = [];
  /** ino, size, mtimeNs per file: stored as signed 64 bits (an mtime may be before 1970). */
  private readonly values: BigInt64Array;

  constructor(
    private readonly identities: WalkedIdentities,
    private readonly relativeFolder: string,
    /** At most this many files (the folder's entries). */
    capacity: number,
  ) {
    this.values = new BigInt64Array(3 * capacity);
  }

  /** A regular file of the folder (after every name before it in code-unit order). */
  add(name: string, stats: DocumentStats): void {
    const at = 3 * this.names.length;
    this.names.push(name);
    // A typed array slot takes a BigInt modulo 2^64: an inode past 2^63 comes back by asUintN.
    this.values[at] = stats.ino;
    this.values[at + 1] = stats.size;
    this.values[at + 2] = stats.mtimeNs;
  }

  finish(): void {
    if (this.names.length === 0) return;
    const used = 3 * this.names.length;
    const values = used === this.values.length ? this.values : this.values.slice(0, used);
    this.identities.setFolder(this.relativeFolder, {
      names: `${this.names.join('/')}/`,
      values,
      words: new Uint32Array(values.buffer, values.byteOffset, 2 * used),
      cursor: 0,
      offset: 0,
    });
  }
}

export class WalkedIdentities {
  private readonly folders = new Map<string, FolderIdentities>();

  /** `relativeFolder`: from the walked root, `/`-separated, '' for the root itself. */
  startFolder(relativeFolder: string, capacity: number): FolderRecorder {
    return new FolderRecorder(this, relativeFolder, capacity);
  }

  /** @internal FolderRecorder's. */
  setFolder(relativeFolder: string, folder: FolderIdentities): void {
    this.folders.set(relativeFolder, folder);
  }

  /**
   * Whether the walk saw, in `relativeFolder` from its next file in order on, exactly the files
   * `names` (each followed by `/`) one after another, with `identities` (inode, size, mtime ns,
   * 24 little-endian bytes a file): one compare of the names and one of the bytes, not a lookup
   * a file. When they match, lookups go on after them; else nothing moves.
   */
  matchRun(relativeFolder: string, names: string, identities: Uint8Array): boolean {
    const folder = this.folders.get(relativeFolder);
    // The typed array's bytes are the little-endian layout only on a little-endian machine.
    if (folder === undefined || LOW_WORD !== 0) return false;
    const firstEnd = names.indexOf('/');
    if (firstEnd <= 0) return false;
    const firstName = names.slice(0, firstEnd);
    const count = folder.values.length / 3;
    let { cursor, offset } = folder;
    while (
      cursor < count &&
      !(folder.names.startsWith(firstName, offset) && folder.names.charCodeAt(offset + firstEnd) === SLASH)
    ) {
      const end = folder.names.indexOf('/', offset);
      if (folder.names.slice(offset, end) > firstName) return false;
      cursor += 1;
      offset = end + 1;
    }
    const runCount = identities.length / 24;
    if (cursor + runCount > count || !folder.names.startsWith(names, offset)) return false;
    const walkedBytes = new Uint8Array(folder.values.buffer, folder.values.byteOffset + 24 * cursor, identities.length);
    if (Buffer.compare(walkedBytes, identities) !== 0) return false;
    folder.cursor = cursor + runCount;
    folder.offset = offset + names.length;
    return true;
  }

  /**
   * The walk's identity of a regular file (its path from the walked root, `/`-separated), or
   * undefined when the walk did not see it as one: then the caller stats it. Lookups in code-unit
   * order within a folder cost one pass over its names; one out of order is not answered.
   */
  lookup(relativePath: string): WalkedIdentity | undefined {
    const slash = relativePath.lastIndexOf('/');
    const folder = this.folders.get(slash < 0 ? '' : relativePath.slice(0, slash));
    if (folder === undefined) return undefined;
    const name = relativePath.slice(slash + 1);
    const count = folder.values.length / 3;
    while (folder.cursor < count) {
      // The usual case, the next name: compared in place, no copy of it made.
      const found =
        folder.names.startsWith(name, folder.offset) && folder.names.charCodeAt(folder.offset + name.length) === SLASH;
      const end = found ? folder.offset + name.length : folder.names.indexOf('/', folder.offset);
      if (!found && folder.names.slice(folder.offset, end) > name) return undefined;
      const at = folder.cursor;
      folder.cursor += 1;
      folder.offset = end + 1;
      if (found) return new WalkedIdentity(folder.words, 3 * at, folder.values);
    }
    return undefined;
  }
}
