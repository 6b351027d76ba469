// What the assembly made of each document the previous build listed (issue #39, "Edits in a
// second"), in `.staticmcp/tree-state.bin`: a document file with no sidecar and no page claim
// has a tree file and a listing entry made from nothing but its tree path, MIME type, whether it
// is text, its source's sha256, the generator and staticmcp.json, so the record keeps, under the
// first four (the last two stamp the whole record), the key of its kept resource file
// (kept-resource-files.ts keyOf) and its listing entry's bytes as a list part holds them. An
// untouched document's key and entry are then one table lookup and a copy: no JSON made, no
// hash of its inputs. The record is keyed by content, never by the previous tree, so a build
// killed mid-way leaves it true; a missing, damaged (checksum) or foreign one is not used.
// Layout: MAGIC, the CRC-32 of the rest, the stamp (u32 length, UTF-8), the entry count, the
// identities' and entries' byte counts (u32 each), then per entry FIXED_BYTES (its identity's and
// entry's lengths, flags, source sha256, key: nothing that depends on where it is, so a run of
// kept entries is written as one slice), then the identities (tree path, a NUL, MIME type), then
// the entries. This build's new entries wait in a scratch file until the record is written
// (tree-state-scratch.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { removeDeadWritersFiles } from '../tree-writer/interrupted-write.js';
import { fnv1aOf } from '../shared/fnv1a-hash.js';
import { AddedEntries, type AddedSectionReader, RecordFileWriter, type SectionName } from './tree-state-scratch.js';

export const TREE_STATE_FILE = path.join('.staticmcp', 'tree-state.bin');
/** Beside the record, `<mark><pid>`: the record being written. */
const NEW_FILE_MARK = '.new-';
/** Beside the record, `<mark><pid>`: this build's new entries until the record is written. */
const ADDED_FILE_MARK = '.added-';
const MAGIC = Buffer.from('SMCPTS02', 'latin1');
/** The CRC-32 of the rest: damage is what it is for (a record is a cache, rebuilt when in doubt). */
const SUM_BYTES = 4;
const SHA_BYTES = 32;
const KEY_BYTES = 16;
/** identity length, entry length, flags (u32 each), sha256, key. */
const FIXED_BYTES = 3 * 4 + SHA_BYTES + KEY_BYTES;
const SHA_AT = 12;
const KEY_AT = SHA_AT + SHA_BYTES;
const TEXT_FLAG = 1;
const EMPTY = 0;

/** A record's three sections, with where each entry's identity and entry start (count + 1 each). */
interface Sections {
  count: number;
  fixed: Buffer;
  ids: Buffer;
  entries: Buffer;
  idStarts: Uint32Array;
  entryStarts: Uint32Array;
}

function noSections(): Sections {
  const none = Buffer.alloc(0);
  return {
    count: 0,
    fixed: none,
    ids: none,
    entries: none,
    idStarts: new Uint32Array(1),
    entryStarts: new Uint32Array(1),
  };
}

/** A record's sections, or none when it is missing, foreign (another stamp) or damaged. */
function readSections(bytes: Buffer, stamp: string): Sections {
  if (bytes.length < MAGIC.length + SUM_BYTES + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC))
    return noSections();
  const body = bytes.subarray(MAGIC.length + SUM_BYTES);
  if (crc32(body) !== bytes.readUInt32LE(MAGIC.length)) return noSections();
  const stampLength = body.readUInt32LE(0);
  const header = 4 + stampLength + 12;
  if (body.length < header || body.toString('utf8', 4, 4 + stampLength) !== stamp) return noSections();
  const count = body.readUInt32LE(4 + stampLength);
  const idBytes = body.readUInt32LE(8 + stampLength);
  const entryBytes = body.readUInt32LE(12 + stampLength);
  const fixedEnd = header + count * FIXED_BYTES;
  if (body.length !== fixedEnd + idBytes + entryBytes) return noSections();
  const fixed = body.subarray(header, fixedEnd);
  const idStarts = new Uint32Array(count + 1);
  const entryStarts = new Uint32Array(count + 1);
  for (let index = 0; index < count; index++) {
    idStarts[index + 1] = idStarts[index]! + fixed.readUInt32LE(index * FIXED_BYTES);
    entryStarts[index + 1] = entryStarts[index]! + fixed.readUInt32LE(index * FIXED_BYTES + 4);
  }
  if (idStarts[count] !== idBytes || entryStarts[count] !== entryBytes) return noSections();
  return {
    count,
    fixed,
    ids: body.subarray(fixedEnd, fixedEnd + idBytes),
    entries: body.subarray(fixedEnd + idBytes),
    idStarts,
    entryStarts,
  };
}

export class TreeState {
  private previous: Sections;
  /** Entry number + 1 by its identity's hash, open addressing, EMPTY where none. */
  private table: Uint32Array;
  /** The identity being looked up or recorded: its UTF-8 bytes (probeLength of them). */
  private probe = Buffer.alloc(256);
  private probeLength = 0;
  /** This build's entries listed the full way (`addedCount` of them, with their bytes summed). */
  private readonly added: AddedEntries;
  private addedCount = 0;
  private addedIdBytes = 0;
  private addedEntryBytes = 0;
  /** The fixed bytes and the listing entry of the entry being added (the entry is record's view). */
  private readonly addedFixed = Buffer.alloc(FIXED_BYTES);
  private entryBytes = Buffer.alloc(1024);
  /**
   * This build's record as runs of entries, in order: [from, to) of the previous record's entries
   * (kept), or of `added`'s: [from, to, 1 when added] each. A one-document edit makes three.
   */
  private runs: number[] = [];

  private constructor(
    private readonly file: string,
    private readonly stamp: string,
    whole: Buffer,
  ) {
    this.previous = readSections(whole, stamp);
    this.added = new AddedEntries(`${file}${ADDED_FILE_MARK}${process.pid}`, FIXED_BYTES);
    let size = 16;
    while (size < this.previous.count * 2) size *= 2;
    this.table = new Uint32Array(size);
    const mask = size - 1;
    const { ids, idStarts } = this.previous;
    for (let index = 0; index < this.previous.count; index++) {
      let position = fnv1aOf(ids, idStarts[index]!, idStarts[index + 1]!) & mask;
      while (this.table[position] !== EMPTY) position = (position + 1) & mask;
      this.table[position] = index + 1;
    }
  }
  /**
   * The project's record, stamped with the generator and a digest of staticmcp.json as the build
   * read it (a record of another stamp is not used); `readPrevious` false (build --force): nothing
   * is found, all is recorded anew.
   */
  static async open(
    projectRoot: string,
    generator: string,
    config: unknown,
    readPrevious: boolean,
  ): Promise<TreeState> {
    const stamp = `${generator}\0${createHash('sha256').update(JSON.stringify(config)).digest('hex')}`;
    const file = path.join(projectRoot, TREE_STATE_FILE);
    // What builds killed while writing it left (never a running build's).
    await removeDeadWritersFiles(file, NEW_FILE_MARK);
    await removeDeadWritersFiles(file, ADDED_FILE_MARK);
    let whole: Buffer = Buffer.alloc(0);
    if (readPrevious) {
      try {
        whole = readFileSync(file);
      } catch {
        // None yet, or unreadable: every document is listed the full way.
      }
    }
    return new TreeState(file, stamp, whole);
  }

  /** Puts `treePath \0 mimeType` in the probe. */
  private encodeIdentity(treePath: string, mimeType: string): void {
    const most = (treePath.length + mimeType.length) * 3 + 1;
    if (this.probe.length < most) this.probe = Buffer.alloc(most * 2);
    let length = this.probe.write(treePath, 0, 'utf8');
    this.probe[length++] = 0;
    length += this.probe.write(mimeType, length, 'utf8');
    this.probeLength = length;
  }

  /**
   * The previous record's entry for a document of these inputs, or -1: the same tree path and MIME
   * type, both text or both not, and the same source bytes (sha256).
   */
  find(treePath: string, mimeType: string, text: boolean, sourceSha256: Uint8Array): number {
    if (this.previous.count === 0) return -1;
    this.encodeIdentity(treePath, mimeType);
    const { ids, idStarts, fixed } = this.previous;
    const length = this.probeLength;
    const mask = this.table.length - 1;
    for (let position = fnv1aOf(this.probe, 0, length) & mask; ; position = (position + 1) & mask) {
      const entry = this.table[position]!;
      if (entry === EMPTY) return -1;
      const index = entry - 1;
      const start = idStarts[index]!;
      if (idStarts[index + 1]! - start !== length || ids.compare(this.probe, 0, length, start, start + length) !== 0)
        continue;
      const at = index * FIXED_BYTES;
      const same =
        (fixed[at + 8]! & TEXT_FLAG) === (text ? TEXT_FLAG : 0) &&
        sourceSha256.length === SHA_BYTES &&
        fixed.compare(sourceSha256, 0, SHA_BYTES, at + SHA_AT, at + KEY_AT) === 0;
      return same ? index : -1;
    }
  }

  /** The kept-file key of a found entry (a view, valid until save). */
  keyAt(index: number): Buffer {
    const at = index * FIXED_BYTES + KEY_AT;
    return this.previous.fixed.subarray(at, at + KEY_BYTES);
  }

  /** The listing entry's bytes of a found entry (a view, valid until save). */
  entryAt(index: number): Buffer {
    const { entries, entryStarts } = this.previous;
    return entries.subarray(entryStarts[index]!, entryStarts[index + 1]!);
  }

  /** Records a found entry for the next build as it is. */
  keep(index: number): void {
    this.extendRun(index, false);
  }

  /** Adds entry `index` (of the previous record, or of `added`) to the last run, or starts one. */
  private extendRun(index: number, added: boolean): void {
    const { runs } = this;
    const last = runs.length - 3;
    if (last >= 0 && runs[last + 2] === (added ? 1 : 0) && runs[last + 1] === index) runs[last + 1] = index + 1;
    else runs.push(index, index + 1, added ? 1 : 0);
  }

  /**
   * Records a document listed the full way; returns its entry's bytes (a view, valid until the
   * next record), `entryText` as a list part holds it.
   */
  record(
    treePath: string,
    mimeType: string,
    text: boolean,
    sourceSha256: Uint8Array,
    key: Uint8Array,
    entryText: string,
  ): Buffer {
    this.encodeIdentity(treePath, mimeType);
    const index = this.addedCount;
    const most = entryText.length * 3;
    if (this.entryBytes.length < most) this.entryBytes = Buffer.alloc(most * 2);
    const entryLength = this.entryBytes.write(entryText, 0, 'utf8');
    const fixed = this.addedFixed;
    fixed.fill(0);
    fixed.writeUInt32LE(this.probeLength, 0);
    fixed.writeUInt32LE(entryLength, 4);
    fixed.writeUInt32LE(text ? TEXT_FLAG : 0, 8);
    fixed.set(sourceSha256.subarray(0, SHA_BYTES), SHA_AT);
    fixed.set(key.subarray(0, KEY_BYTES), KEY_AT);
    const entry = this.entryBytes.subarray(0, entryLength);
    this.added.append(fixed, this.probe.subarray(0, this.probeLength), entry);
    this.addedIdBytes += this.probeLength;
    this.addedEntryBytes += entryLength;
    this.addedCount += 1;
    this.extendRun(index, true);
    return entry;
  }

  /** Removes the record (what it led to was found wrong): the next build lists every document the full way. */
  forget(): void {
    rmSync(this.file, { force: true });
  }

  /**
   * Writes this build's record (atomically; unless it is the previous one), once, after the last
   * document: then nothing is found or recorded any more. A failure to write only costs the next
   * build the full way.
   */
  save(): void {
    const { runs, previous, added } = this;
    this.added.finish();
    let count = 0;
    let idBytes = this.addedIdBytes;
    let entryBytes = this.addedEntryBytes;
    for (let run = 0; run < runs.length; run += 3) {
      const [from, to] = [runs[run]!, runs[run + 1]!];
      count += to - from;
      if (runs[run + 2] === 1) continue;
      idBytes += previous.idStarts[to]! - previous.idStarts[from]!;
      entryBytes += previous.entryStarts[to]! - previous.entryStarts[from]!;
    }
    const unchanged = runs.length === 3 && runs[2] === 0 && runs[0] === 0 && runs[1] === previous.count;
    if (!unchanged && !added.failed) this.write(count, idBytes, entryBytes);
    added.remove();
    // Both records are let go: the build holds this one to its end (forget), through the search step's peak.
    this.previous = noSections();
    this.table = new Uint32Array(16);
    this.runs = [];
  }

  /** Writes the record: each section's runs in turn, a previous run as one slice, an added one entry by entry. */
  private write(count: number, idBytes: number, entryBytes: number): void {
    const stamp = Buffer.from(this.stamp, 'utf8');
    const bodyAt = MAGIC.length + SUM_BYTES;
    const header = Buffer.alloc(bodyAt + 4 + stamp.length + 12);
    MAGIC.copy(header);
    header.writeUInt32LE(stamp.length, bodyAt);
    stamp.copy(header, bodyAt + 4);
    header.writeUInt32LE(count, bodyAt + 4 + stamp.length);
    header.writeUInt32LE(idBytes, bodyAt + 8 + stamp.length);
    header.writeUInt32LE(entryBytes, bodyAt + 12 + stamp.length);
    const temp = `${this.file}${NEW_FILE_MARK}${process.pid}`;
    let out: RecordFileWriter | undefined;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      out = new RecordFileWriter(temp, bodyAt);
      out.append(header);
      for (const section of ['fixed', 'ids', 'entries'] as const) this.writeSection(out, section);
      out.finish(MAGIC.length);
      out = undefined;
      renameSync(temp, this.file);
    } catch {
      out?.abandon();
      rmSync(temp, { force: true });
    }
  }

  private writeSection(out: RecordFileWriter, section: SectionName): void {
    const { runs, previous } = this;
    const starts = section === 'ids' ? previous.idStarts : previous.entryStarts;
    let reader: AddedSectionReader | undefined;
    try {
      for (let run = 0; run < runs.length; run += 3) {
        const [from, to] = [runs[run]!, runs[run + 1]!];
        if (runs[run + 2] === 1) {
          reader ??= this.added.reader(section);
          for (let index = from; index < to; index++) out.append(reader!.next());
        } else if (section === 'fixed') out.append(previous.fixed.subarray(from * FIXED_BYTES, to * FIXED_BYTES));
        else out.append(previous[section].subarray(starts[from]!, starts[to]!));
      }
    } finally {
      reader?.close();
    }
  }
}
