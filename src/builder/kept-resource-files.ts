// The resource files of the previous builds, by what they are made from (issue #39, "Edits in a
// second"): a resource's tree file is a function of its tree path, URI, MIME type, `_meta`, whether
// it is text, and its source file's bytes (whose sha256 the document cache gives without a read),
// so `.staticmcp/resource-files.bin` keeps, under a digest of those and the generator, the file's
// sha256 and size. The next build records an unchanged document's tree file by them alone
// (tree-output.ts writeDeferred): no read, no encoding, no spool, and a pack of unchanged
// documents is linked as it was (pack-reuse.ts). An entry found again is kept as it is, by its
// place in the previous record: the new record is runs of the previous one's entries and of this
// build's, each written as one slice (a one-document edit makes three), no entry copied. The record is keyed by content, never by the
// previous tree, so a build killed mid-way leaves it true; a damaged file (checksum) is not used.
// Layout: MAGIC, the entry count (u32), the sha256 of the entries, then the entries in the order
// the build wrote them, each KEY_BYTES of key, the file's sha256 and its size (u32); a table by
// the key's first four bytes (shared/digest-key-table.ts) finds one.
import { createHash, hash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { DigestKeyTable } from '../shared/digest-key-table.js';
import { grownTypedArray, releaseGrown } from '../tree-writer/grown-typed-array.js';
import { readFileMapped } from '../tree-writer/read-exactly.js';
import { removeDeadWritersFiles } from '../tree-writer/interrupted-write.js';

const RECORD_FILE = path.join('.staticmcp', 'resource-files.bin');
/** Beside the record, `<mark><pid>`: the record being written. */
const NEW_FILE_MARK = '.new-';
const MAGIC = Buffer.from('SMCPRF01', 'latin1');
const KEY_BYTES = 16;
const DIGEST_BYTES = 32;
const ENTRY_BYTES = KEY_BYTES + DIGEST_BYTES + 4;
const HEADER_BYTES = MAGIC.length + 4 + 32;

/** What a resource's tree file is made from (its source's bytes by their sha256). */
export interface ResourceFileInputs {
  treePath: string;
  uri: string;
  mimeType: string;
  text: boolean;
  meta: Record<string, unknown> | undefined;
  sourceSha256: Uint8Array;
}

function entriesDigest(entries: Uint8Array): Buffer {
  return createHash('sha256').update(entries).digest();
}

/** The entries of a record file, or an empty buffer when it is missing, foreign or damaged. */
function readEntries(file: string): { whole: Buffer; entries: Buffer } {
  const none = { whole: Buffer.alloc(0), entries: Buffer.alloc(0) };
  let bytes: Buffer;
  try {
    bytes = readFileMapped(file);
  } catch {
    return none;
  }
  const count = bytes.length < HEADER_BYTES ? -1 : bytes.readUInt32LE(MAGIC.length);
  const entries = bytes.subarray(HEADER_BYTES);
  if (
    count < 0 ||
    !bytes.subarray(0, MAGIC.length).equals(MAGIC) ||
    entries.length !== count * ENTRY_BYTES ||
    !entriesDigest(entries).equals(bytes.subarray(MAGIC.length + 4, HEADER_BYTES))
  ) {
    releaseGrown(bytes);
    return none;
  }
  return { whole: bytes, entries };
}

/** Writes all of `bytes` at the file's position (a write may take fewer). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}

export class KeptResourceFiles {
  /** This build's new entries, appended as resources are written. */
  private added = Buffer.alloc(0);
  private addedCount = 0;
  /**
   * This build's record as runs of entries, in order: [from, to) of the previous record's entries
   * (kept), or of `added`'s: [from, to, 1 when added] each.
   */
  private runs: number[] = [];
  /** The previous entries by key. */
  private table: DigestKeyTable;

  /** The previous record's entries, in `previousWhole` (the record file as read: given back at save). */
  private previous: Buffer;
  private previousWhole: Buffer;

  private constructor(
    private readonly file: string,
    private readonly generator: string,
    read: { whole: Buffer; entries: Buffer },
  ) {
    this.previous = read.entries;
    this.previousWhole = read.whole;
    this.table = new DigestKeyTable(this.previous, ENTRY_BYTES, KEY_BYTES);
  }

  /** The project's record; `readPrevious` false (build --force): nothing is looked up, all is recorded anew. */
  static async open(projectRoot: string, generator: string, readPrevious: boolean): Promise<KeptResourceFiles> {
    const file = path.join(projectRoot, RECORD_FILE);
    // What builds killed while writing it left (never a running build's).
    await removeDeadWritersFiles(file, NEW_FILE_MARK);
    return new KeptResourceFiles(
      file,
      generator,
      readPrevious ? readEntries(file) : { whole: Buffer.alloc(0), entries: Buffer.alloc(0) },
    );
  }

  keyOf(inputs: ResourceFileInputs): Buffer {
    const json = JSON.stringify([
      this.generator,
      inputs.treePath,
      inputs.uri,
      inputs.mimeType,
      inputs.text,
      inputs.meta ?? null,
    ]);
    // One buffer and a one-shot digest (the same bytes as two updates): a Hash object a document
    // was a good part of an edit build's per-document cost.
    const bytes = Buffer.allocUnsafe(Buffer.byteLength(json) + inputs.sourceSha256.length);
    const length = bytes.write(json);
    bytes.set(inputs.sourceSha256, length);
    return hash('sha256', bytes, 'buffer').subarray(0, KEY_BYTES);
  }

  /**
   * The tree file recorded under `key`: its sha256 and size. The digest is a view into the record,
   * valid until `save` (the writer and `add` copy it): a copy a document was a visible share of an
   * edit build's assembly.
   */
  lookup(key: Buffer): { digest: Buffer; sizeBytes: number; position: number } | undefined {
    const position = this.table.find(key);
    if (position < 0) return undefined;
    const at = position * ENTRY_BYTES;
    return {
      digest: this.previous.subarray(at + KEY_BYTES, at + KEY_BYTES + DIGEST_BYTES),
      sizeBytes: this.previous.readUInt32LE(at + KEY_BYTES + DIGEST_BYTES),
      position,
    };
  }

  /** Records the tree file of the previous entry at `position` (lookup's) for this build, as it is. */
  keep(position: number): void {
    this.extendRun(position, false);
  }

  /** Adds entry `index` (of the previous record, or of `added`) to the last run, or starts one. */
  private extendRun(index: number, added: boolean): void {
    const { runs } = this;
    const last = runs.length - 3;
    if (last >= 0 && runs[last + 2] === (added ? 1 : 0) && runs[last + 1] === index) runs[last + 1] = index + 1;
    else runs.push(index, index + 1, added ? 1 : 0);
  }

  /** Records this build's tree file made under `key`. */
  add(key: Uint8Array, digest: Uint8Array, sizeBytes: number): void {
    // Past 4 GiB a size does not fit: such a file is simply not kept.
    if (sizeBytes > 0xffff_ffff) return;
    const at = this.addedCount * ENTRY_BYTES;
    // Grown in place: doubling by copies held two of them at once (~10 MB at 100,000 documents).
    this.added = grownTypedArray(this.added, at + ENTRY_BYTES);
    const { added } = this;
    // A key and a digest of their own length are set as they are (a Buffer's subarray a document showed).
    added.set(key.length === KEY_BYTES ? key : key.subarray(0, KEY_BYTES), at);
    added.set(digest.length === DIGEST_BYTES ? digest : digest.subarray(0, DIGEST_BYTES), at + KEY_BYTES);
    // Little-endian by hand: writeUInt32LE's range checks cost more than the write, once a document.
    const sizeAt = at + KEY_BYTES + DIGEST_BYTES;
    added[sizeAt] = sizeBytes & 0xff;
    added[sizeAt + 1] = (sizeBytes >>> 8) & 0xff;
    added[sizeAt + 2] = (sizeBytes >>> 16) & 0xff;
    added[sizeAt + 3] = (sizeBytes >>> 24) & 0xff;
    this.extendRun(this.addedCount, true);
    this.addedCount += 1;
  }

  /** Removes the record (one was found not to match the file it names): the next build reads every document. */
  forget(): void {
    rmSync(this.file, { force: true });
  }

  /**
   * Writes this build's entries (atomically; unless they are the previous record's), once, after
   * the last `add`: then nothing is found or added any more. A failure to write only costs the
   * next build the reads.
   */
  save(): void {
    const { added, previous, runs } = this;
    // This build's entries as slices of the two sets, run by run.
    const slices = runs.flatMap((_, run) =>
      run % 3 === 0
        ? [(runs[run + 2] === 1 ? added : previous).subarray(runs[run]! * ENTRY_BYTES, runs[run + 1]! * ENTRY_BYTES)]
        : [],
    );
    const same = runs.length === 3 && runs[2] === 0 && runs[0] === 0 && runs[1]! * ENTRY_BYTES === previous.length;
    // Both sets of entries (52 bytes a document each) are let go once written: the build holds
    // this record to its end (forget), through the search step's peak, and nothing is looked up
    // or added after.
    this.added = Buffer.alloc(0);
    this.addedCount = 0;
    this.runs = [];
    this.previous = Buffer.alloc(0);
    this.table = new DigestKeyTable(this.previous, ENTRY_BYTES, KEY_BYTES);
    try {
      if (!same && !(runs.length === 0 && previous.length === 0)) this.write(slices);
    } finally {
      // Grown in place: given back now, not at a collection during the search step's peak.
      this.previousWhole = releaseGrown(this.previousWhole);
      releaseGrown(added);
    }
  }

  private write(slices: readonly Buffer[]): void {
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header);
    const digest = createHash('sha256');
    let bytes = 0;
    for (const slice of slices) {
      digest.update(slice);
      bytes += slice.length;
    }
    header.writeUInt32LE(bytes / ENTRY_BYTES, MAGIC.length);
    digest.digest().copy(header, MAGIC.length + 4);
    const temp = `${this.file}${NEW_FILE_MARK}${process.pid}`;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      // Header and entries written apart: no third copy of the entries.
      const fd = openSync(temp, 'w');
      try {
        writeAll(fd, header);
        for (const slice of slices) writeAll(fd, slice);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.file);
    } catch {
      rmSync(temp, { force: true });
    }
  }
}
