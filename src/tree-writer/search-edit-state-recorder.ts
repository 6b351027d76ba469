// This build's search edit state (search-edit-state.ts), gathered as the index writer takes each
// document (search-index-spill-writer.ts) and written once the kept documents it vouches for are
// in place (search-index-step.ts): the column scratch files are moved out of the scratch folder
// before it goes, then the state file is written to a temporary name and renamed, then the
// scratch files of earlier states are removed. A build killed at any point leaves a state that
// names the kept directory and files it was made with, or one that no longer matches them.
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
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
  SPILL_NAMES,
} from './search-edit-state.js';
import { removeDeadWritersFilesSync, removeFilesOfDeadWriters } from './interrupted-write.js';

const DIGEST_BYTES = 32;
/** The state is `<file><NEW_STATE_MARK><pid>` until it is put in place. */
export const NEW_STATE_MARK = '.new-';
/** Where a directory record keeps its source's length byte (search-kept-entry-layout.ts RECORD_SOURCE_AT - 1). */
const RECORD_SOURCE_LENGTH_AT = DIGEST_BYTES;

export class SearchEditStateRecorder {
  /** By arrival: the kept entry's place and fields, and whether the document is found by its source (1). */
  private kept = {
    keptPart: new Uint32Array(1024),
    keptIndex: new Uint32Array(1024),
    keptOffset: new Uint32Array(1024),
    keptLength: new Uint32Array(1024),
    fieldsOffset: new Uint32Array(1024),
    found: new Uint32Array(1024),
  };
  /** By arrival: source digest, then entry digest. */
  private digests = new Uint8Array(64 * 1024);
  private count = 0;
  private columns: DocumentColumns | undefined;
  /** The arrivals in id order (DocumentColumns.numbers). */
  private order: Uint32Array | undefined;
  /** The column scratch files, once moved out of the scratch folder. */
  private spills: { prefix: string; files: string[] } | undefined;
  private readonly folder: string;
  private lastAppended: number;

  /** `expectedCount`: the documents the build likely has (the previous state's), room made for them at once. */
  constructor(
    private readonly file: string,
    private readonly keptDocuments: KeptSearchDocuments,
    private readonly keptLlms: KeptLlmsEntries,
    expectedCount = 0,
  ) {
    this.folder = path.join(path.dirname(file), EDIT_SPILLS_FOLDER);
    this.lastAppended = keptDocuments.appended?.count ?? 0;
    if (expectedCount > 0) this.grow(expectedCount);
  }

  /** Room for `count` documents in every column. */
  private grow(count: number): void {
    const kept = this.kept;
    for (const name of Object.keys(kept) as (keyof typeof kept)[]) kept[name] = grownTypedArray(kept[name], count);
    this.digests = grownTypedArray(this.digests, count * 2 * DIGEST_BYTES);
  }

  /**
   * Notes the document that arrived `arrival`-th, taken or made, and listed by the source digest
   * `source` (undefined: not listed by one): found by it next time when its kept entry was just
   * appended under that source.
   */
  note(arrival: number, source: Uint8Array | undefined): void {
    const filled = arrival + 1;
    const kept = this.kept;
    if (kept.found.length < filled) this.grow(filled);
    this.count = filled;
    const appended = this.keptDocuments.appended;
    const fresh = appended !== undefined && appended.count > this.lastAppended;
    if (appended !== undefined) this.lastAppended = appended.count;
    const record = this.keptDocuments.lastRecord;
    kept.found[arrival] = 0;
    if (!fresh || source === undefined || record === undefined) return;
    const at = arrival * 2 * DIGEST_BYTES;
    if (record[RECORD_SOURCE_LENGTH_AT] !== DIGEST_BYTES) return;
    for (let index = 0; index < DIGEST_BYTES; index += 1)
      if (record[RECORD_SOURCE_LENGTH_AT + 1 + index] !== source[index]) return;
    this.digests.set(source, at);
    this.digests.set(record.subarray(0, DIGEST_BYTES), at + DIGEST_BYTES);
    const { last } = appended!;
    kept.keptPart[arrival] = last.part;
    kept.keptIndex[arrival] = last.index;
    kept.keptOffset[arrival] = last.offset;
    kept.keptLength[arrival] = last.length;
    kept.fieldsOffset[arrival] = last.fieldsOffset;
    kept.found[arrival] = 1;
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
    const numbers: Record<ColumnName, Uint32Array> = {
      tokenCount: columns.tokenCounts,
      keyHigh: columns.keyHigh,
      keyLow: columns.keyLow,
      titleLength: columns.titleItems.lengthOf,
      bodyLength: columns.bodies.lengthOf,
      excerptLength: columns.sources.lengthOf,
      ...this.kept,
      order: order!,
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
      const column = numbers[name];
      pieces.push(new Uint8Array(column.buffer, column.byteOffset, count * 4));
    }
    pieces.push(this.digests.subarray(0, count * 2 * DIGEST_BYTES));
    const hash = createHash('sha256');
    for (const piece of pieces) hash.update(piece);
    pieces.push(hash.digest());
    const temporary = `${this.file}${NEW_STATE_MARK}${process.pid}`;
    try {
      writeFileSync(temporary, Buffer.concat(pieces), { mode: 0o600 });
      renameSync(temporary, this.file);
    } catch {
      rmSync(temporary, { force: true });
      this.discard();
      return;
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

  private release(): void {
    for (const name of Object.keys(this.kept) as (keyof typeof this.kept)[])
      this.kept[name] = releaseGrown(this.kept[name]);
    this.digests = releaseGrown(this.digests);
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
  return {
    ...(state ? { previous: state } : {}),
    recorder: new SearchEditStateRecorder(file, kept, keptLlms, state?.count),
  };
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
