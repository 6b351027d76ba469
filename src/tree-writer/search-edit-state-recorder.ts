// This build's search edit state (search-edit-state.ts), gathered as the index writer takes each
// document (search-index-spill-writer.ts) and written once the kept documents it vouches for are
// in place (search-index-step.ts): the column scratch files are moved out of the scratch folder
// before it goes, then the state file is written to a temporary name and renamed, then the
// scratch files of earlier states are removed. A build killed at any point leaves a state that
// names the kept directory and files it was made with, or one that no longer matches them.
// What the recorder notes per document (its kept entry's place and its two digests, 88 bytes)
// waits in a scratch file of rows beside the states, not in memory: a first build notes every
// document, and the rows were held through the index step's peak. The state's columns are
// written from the rows when it is committed, through small windows.
import { appendFileSync, copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { SpillReader, SpillWriter } from './spill-files.js';
import { releaseGrown } from './grown-typed-array.js';
import type { KeptSearchDocuments } from './search-kept-documents.js';
import type { KeptLlmsEntries } from './llms-kept-entries.js';
import { partsFolderOf } from './kept-parts.js';
import type { DocumentColumns } from './search-document-columns.js';
import {
  COLUMN_NAMES,
  type ColumnName,
  EDIT_SPILLS_FOLDER,
  EDIT_STATE_FILE,
  readSearchEditState,
  type SearchEditState,
  type FileIdentity,
  fileIdentityOf,
  headerOf,
  LIST_RUN_BYTES,
  SPILL_NAMES,
} from './search-edit-state.js';
import { removeDeadWritersFilesSync, removeFilesOfDeadWriters } from './interrupted-write.js';

const DIGEST_BYTES = 32;
/** The kept entry's numbers a row holds (u32 LE each), in COLUMN_NAMES' order: the six before `order`. */
const KEPT_COLUMNS = ['keptPart', 'keptIndex', 'keptOffset', 'keptLength', 'fieldsOffset', 'found'] as const;
/** A document's row: the kept columns, then its source digest and its entry digest. */
const ROW_BYTES = 4 * KEPT_COLUMNS.length + 2 * DIGEST_BYTES;
const DIGESTS_AT = 4 * KEPT_COLUMNS.length;
/** Rows gathered before an append, and a reader's window: under glibc's mmap threshold (CONTRIBUTING.md). */
const CHUNK_BYTES = 1 << 16;
/** The state is `<file><NEW_STATE_MARK><pid>` until it is put in place. */
export const NEW_STATE_MARK = '.new-';
/** Where a directory record keeps its source's length byte (search-kept-entry-layout.ts RECORD_SOURCE_AT - 1). */
const RECORD_SOURCE_LENGTH_AT = DIGEST_BYTES;

export class SearchEditStateRecorder {
  /** Rows not yet appended to the rows file. */
  private chunk: Buffer | undefined;
  private used = 0;
  /** The rows file, named once the first chunk is appended (a dead writer's goes in a later commit's sweep). */
  private rowsFile: string | undefined;
  /** A row could not be kept (an append failed, an arrival noted twice): no state is written. */
  private failed = false;
  private count = 0;
  private columns: DocumentColumns | undefined;
  /** The arrivals in id order (DocumentColumns.numbers). */
  private order: Uint32Array | undefined;
  /** The column scratch files, once moved out of the scratch folder. */
  private spills: { prefix: string; files: string[] } | undefined;
  private readonly folder: string;
  private lastAppended: number;
  /** The list runs noted (search-list-runs.ts), LIST_RUN_BYTES each, written after the digests. */
  private listRuns: Buffer[] = [];

  constructor(
    private readonly file: string,
    private readonly keptDocuments: KeptSearchDocuments,
    private readonly keptLlms: KeptLlmsEntries,
  ) {
    this.folder = path.join(path.dirname(file), EDIT_SPILLS_FOLDER);
    this.lastAppended = keptDocuments.appended?.count ?? 0;
  }

  /**
   * Notes the document that arrived `arrival`-th, taken or made, and listed by the source digest
   * `source` (undefined: not listed by one): found by it next time when its kept entry was just
   * appended under that source.
   */
  note(arrival: number, source: Uint8Array | undefined): void {
    if (arrival < this.count) this.failed = true;
    // Documents not noted keep a row of zeros (not found), as they had in columns grown to them.
    while (this.count < arrival) this.nextRow();
    // Written in place in the chunk: a view and an array of the numbers a document were garbage.
    const at = this.nextRow();
    const appended = this.keptDocuments.appended;
    const fresh = appended !== undefined && appended.count > this.lastAppended;
    if (appended !== undefined) this.lastAppended = appended.count;
    const record = this.keptDocuments.lastRecord;
    if (!fresh || source === undefined || record === undefined) return;
    if (record[RECORD_SOURCE_LENGTH_AT] !== DIGEST_BYTES) return;
    for (let index = 0; index < DIGEST_BYTES; index += 1)
      if (record[RECORD_SOURCE_LENGTH_AT + 1 + index] !== source[index]) return;
    const { last } = appended!;
    const chunk = this.chunk!;
    chunk.writeUInt32LE(last.part, at);
    chunk.writeUInt32LE(last.index, at + 4);
    chunk.writeUInt32LE(last.offset, at + 8);
    chunk.writeUInt32LE(last.length, at + 12);
    chunk.writeUInt32LE(last.fieldsOffset, at + 16);
    chunk.writeUInt32LE(1, at + 20);
    for (let index = 0; index < DIGEST_BYTES; index += 1) {
      chunk[at + DIGESTS_AT + index] = source[index]!;
      chunk[at + DIGESTS_AT + DIGEST_BYTES + index] = record[index]!;
    }
  }

  /** Notes a list run: its key, its first arrival and count, and the digest of its documents' file digests. */
  noteListRun(key: Uint8Array, first: number, count: number, files: Uint8Array): void {
    const run = Buffer.alloc(LIST_RUN_BYTES);
    run.set(key.subarray(0, DIGEST_BYTES), 0);
    run.writeUInt32LE(first, DIGEST_BYTES);
    run.writeUInt32LE(count, DIGEST_BYTES + 4);
    run.set(files.subarray(0, DIGEST_BYTES), DIGEST_BYTES + 8);
    this.listRuns.push(run);
  }

  /** Where the next document's row starts in the chunk, zeroed (the chunk is appended to the rows file when it is full). */
  private nextRow(): number {
    if (this.used + ROW_BYTES > CHUNK_BYTES) this.flushRows();
    this.chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
    const at = this.used;
    this.chunk.fill(0, at, at + ROW_BYTES);
    this.used += ROW_BYTES;
    this.count += 1;
    return at;
  }

  /** Appends the gathered rows to the rows file (by name: no descriptor is held between appends). */
  private flushRows(): void {
    if (this.used === 0 || this.failed) {
      this.used = 0;
      return;
    }
    const first = this.rowsFile === undefined;
    try {
      if (first) {
        mkdirSync(this.folder, { recursive: true });
        this.rowsFile = path.join(this.folder, `${process.pid}-${randomBytes(6).toString('hex')}-rows`);
      }
      appendFileSync(this.rowsFile!, this.chunk!.subarray(0, this.used), { flag: first ? 'w' : 'a', mode: 0o600 });
    } catch {
      this.failed = true;
    }
    this.used = 0;
  }

  /** The documents' columns, closed (every document has come): their numbers go into the state. */
  noteColumns(columns: DocumentColumns): void {
    this.columns = columns;
  }

  /** The arrivals in id order: the next build's hint for its own (DocumentColumns.numbers). */
  noteOrder(byNumber: Uint32Array): void {
    this.order = byNumber;
  }

  /** Moves the columns' scratch files out of the scratch folder (before it is removed); false when they cannot be. */
  keepSpills(): boolean {
    const columns = this.columns;
    if (columns === undefined || columns.count !== this.count) return false;
    const prefix = `${process.pid}-${randomBytes(6).toString('hex')}-`;
    const sources = [columns.titleSpill.file, columns.bodySpill.file, columns.sourceSpill.file];
    const files = SPILL_NAMES.map((name) => path.join(this.folder, `${prefix}${name}`));
    try {
      mkdirSync(this.folder, { recursive: true });
      sources.forEach((source, index) => {
        moveFile(source, files[index]!);
      });
    } catch {
      for (const moved of files) rmSync(moved, { force: true });
      return false;
    }
    this.spills = { prefix, files };
    return true;
  }

  /**
   * Writes the state for the kept directory just committed (its checksum and parts), then removes
   * the scratch files no state names; without a committed directory, removes the state.
   */
  commit(): void {
    const checksum = this.keptDocuments.committedChecksum;
    const parts = this.keptDocuments.committedParts;
    const llms = this.keptLlms.committed;
    const { columns, spills, order } = this;
    if (!checksum || !parts || !llms || columns === undefined || spills === undefined || order?.length !== this.count) {
      this.discard();
      rmSync(this.file, { force: true });
      return;
    }
    const partsFolder = this.keptDocuments.previousParts.folder;
    const llmsFolder = partsFolderOf(this.keptLlms.file);
    const identities: FileIdentity[] = [];
    const files = [
      ...spills.files,
      ...parts.map((part) => path.join(partsFolder, part.name)),
      ...llms.parts.map((part) => path.join(llmsFolder, part.name)),
    ];
    for (const file of files) {
      const identity = fileIdentityOf(file);
      if (identity === undefined) {
        this.discard();
        rmSync(this.file, { force: true });
        return;
      }
      identities.push(identity);
    }
    const count = this.count;
    this.flushRows();
    this.chunk = undefined;
    if (this.failed || (count > 0 && this.rowsFile === undefined)) {
      this.discard();
      rmSync(this.file, { force: true });
      return;
    }
    // Made from the ids now, given back once the state is written.
    const keys = columns.keyHalves();
    const numbers: Record<Exclude<ColumnName, (typeof KEPT_COLUMNS)[number] | 'order'>, Uint32Array> = {
      tokenCount: columns.tokenCounts,
      keyHigh: keys.keyHigh,
      keyLow: keys.keyLow,
      titleLength: columns.titleItems.lengthOf,
      bodyLength: columns.bodies.lengthOf,
      excerptLength: columns.sources.lengthOf,
    };
    const pieces: Uint8Array[] = [headerOf(this.keptDocuments.identity)];
    const fields = Buffer.alloc(8);
    fields.writeUInt32LE(count, 0);
    fields.writeUInt32LE(columns.keysTitlePacks ? 1 : 0, 4);
    pieces.push(fields, Buffer.from(checksum, 'hex'));
    const prefix = Buffer.from(spills.prefix, 'latin1');
    const prefixLength = Buffer.alloc(4);
    prefixLength.writeUInt32LE(prefix.length, 0);
    pieces.push(prefixLength, prefix);
    // The scratch files' identities; the llms checksum; each kept directory's part count and parts' identities.
    const identityBytes = Buffer.alloc(24 * identities.length + DIGEST_BYTES + 8);
    const writeIdentities = (from: number, to: number, at: number) => {
      let next = at;
      for (const identity of identities.slice(from, to))
        for (const value of identity) next = identityBytes.writeDoubleLE(value, next);
      return next;
    };
    let at = writeIdentities(0, SPILL_NAMES.length, 0);
    at += Buffer.from(llms.checksum, 'hex').copy(identityBytes, at);
    at = identityBytes.writeUInt32LE(parts.length, at);
    at = writeIdentities(SPILL_NAMES.length, SPILL_NAMES.length + parts.length, at);
    at = identityBytes.writeUInt32LE(llms.parts.length, at);
    writeIdentities(SPILL_NAMES.length + parts.length, identities.length, at);
    pieces.push(identityBytes);
    for (const name of COLUMN_NAMES) {
      const column = (numbers as Partial<Record<ColumnName, Uint32Array>>)[name];
      if (column !== undefined) pieces.push(new Uint8Array(column.buffer, column.byteOffset, count * 4));
    }
    const temporary = `${this.file}${NEW_STATE_MARK}${process.pid}`;
    try {
      const hash = createHash('sha256');
      const output = new SpillWriter(temporary);
      try {
        const write = (bytes: Uint8Array) => {
          hash.update(bytes);
          output.append(bytes);
        };
        for (const piece of pieces) write(piece);
        // The kept columns, one pass over the rows each, the id order, then the digests: the file's order.
        for (let column = 0; column < KEPT_COLUMNS.length; column += 1) this.writeFromRows(count, 4 * column, 4, write);
        write(new Uint8Array(order!.buffer, order!.byteOffset, count * 4));
        this.writeFromRows(count, DIGESTS_AT, 2 * DIGEST_BYTES, write);
        // The runs of documents that all arrived (a failed build never gets here).
        const runs = this.listRuns.filter(
          (run) => run.readUInt32LE(DIGEST_BYTES) + run.readUInt32LE(DIGEST_BYTES + 4) <= count,
        );
        const runCount = Buffer.alloc(4);
        runCount.writeUInt32LE(runs.length, 0);
        write(runCount);
        for (const run of runs) write(run);
        output.append(hash.digest());
      } finally {
        output.close();
      }
      renameSync(temporary, this.file);
    } catch {
      rmSync(temporary, { force: true });
      this.discard();
      return;
    } finally {
      releaseGrown(keys.keyHigh);
      releaseGrown(keys.keyLow);
    }
    // In place: the scratch files it names are the next build's, no longer this one's to remove.
    this.spills = undefined;
    this.release();
    // The scratch files of other states go, but those of writers still running.
    removeFilesOfDeadWriters(this.folder, (name) => name.startsWith(spills.prefix));
  }

  /** Removes the scratch files this build moved (its state is not written). */
  discard(): void {
    for (const file of this.spills?.files ?? []) rmSync(file, { force: true });
    this.spills = undefined;
    this.release();
  }

  /** Hands `width` bytes at `offset` of each of the `count` rows to `write`, a window of them at a time. */
  private writeFromRows(count: number, offset: number, width: number, write: (bytes: Uint8Array) => void): void {
    if (count === 0) return;
    const rows = new SpillReader(this.rowsFile!, CHUNK_BYTES);
    const out = Buffer.allocUnsafe(Math.floor(CHUNK_BYTES / width) * width);
    let used = 0;
    try {
      for (let row = 0; row < count; row += 1) {
        const bytes = rows.readView(ROW_BYTES);
        out.set(bytes.subarray(offset, offset + width), used);
        used += width;
        if (used === out.length) {
          write(out);
          used = 0;
        }
      }
      if (used > 0) write(out.subarray(0, used));
    } finally {
      rows.close();
    }
  }

  private release(): void {
    this.listRuns = [];
    this.chunk = undefined;
    this.used = 0;
    if (this.rowsFile !== undefined) rmSync(this.rowsFile, { force: true });
    this.rowsFile = undefined;
    this.columns = undefined;
    this.order = undefined;
  }
}

/**
 * The previous build's edit state when it matches the kept documents this build read, and the
 * recorder of this build's. The build always keys title items (its title packs are reused), as
 * the state's scratch files then hold them.
 */
export function openSearchEditState(
  documentsFile: string,
  kept: KeptSearchDocuments,
  keptLlms: KeptLlmsEntries,
): { previous?: SearchEditState; recorder: SearchEditStateRecorder } {
  const file = path.join(path.dirname(documentsFile), EDIT_STATE_FILE);
  // Temporary states of builds killed before their rename (never a running build's).
  removeDeadWritersFilesSync(file, NEW_STATE_MARK);
  const { state } = readSearchEditState(file, {
    identity: kept.identity,
    keptChecksum: kept.previousChecksum,
    keptParts: kept.previousParts,
    llms: keptLlms.previous,
    keysTitlePacks: true,
  });
  if (state) keptLlms.trust();
  return { ...(state ? { previous: state } : {}), recorder: new SearchEditStateRecorder(file, kept, keptLlms) };
}

/** Renames `from` to `to`, or copies it there when they lie on two file systems. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyFileSync(from, to);
  }
}
