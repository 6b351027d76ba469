// What the search index writer saves for the next edit (issue #39, "Edits in a second"):
// `.staticmcp/search-edit-state.bin`, one file, beside the kept documents it vouches for
// (search-kept-documents.ts). For each document of the build, by arrival: the source digest it is
// found by (tree-documents.ts SourceKey), its kept entry's digest and place in the kept parts, and
// its index columns (token count, id key, title item, body and excerpt lengths); the arrivals in
// id order (the next build checks them against its ids in one walk instead of sorting); and the build's
// three column scratch files themselves (titles, bodies, excerpt sources), kept in
// `.staticmcp/search-edit-state.spills/`. A rebuild finds an unchanged document by its source
// digest (one typed-array lookup), copies its columns, and copies the scratch bytes of a run of
// such documents in one read (search-document-columns.ts): no kept part is read, parsed or
// checked for it, and its kept entry is named as it is (KeptDocumentsWriter.appendRepeated).
// Last, the list runs (search-list-runs.ts): for each run of resource list entries every one of
// which made a kept document, the digest of its run text (the entries and their context), its
// first arrival and count, and the digest of its documents' file digests; the lister then takes
// such a run's documents by their arrivals, without spelling or hashing a source key each.
// Checked on read without reading what it summarises: its own sha256, the writer's identity, the
// checksums of the kept directories it was made with (the documents', llms-full.txt's entries'),
// and the size, mtime and inode of each of their parts and of each scratch file it names: with it,
// llms-full.txt's unchanged entries are named as they are too (KeptLlmsEntries.repeat). Missing, damaged, foreign or stale: not used (today's full path).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DigestTable } from './kept-digest-table.js';
import type { KeptPart } from './kept-parts.js';
import { keptSourceDigestOf } from './search-kept-keys.js';
import type { KeptSearchDocuments } from './search-kept-documents.js';

export const EDIT_STATE_FILE = 'search-edit-state.bin';
export const EDIT_SPILLS_FOLDER = 'search-edit-state.spills';
export const MAGIC = 'staticmcp search edit state 4\n';
const DIGEST_BYTES = 32;
/** The column scratch files a state keeps, in this order. */
export const SPILL_NAMES = ['titles', 'bodies', 'excerpts'] as const;
/** The numbers kept per document, in this order (Uint32 each). */
export const COLUMN_NAMES = [
  'tokenCount',
  'keyHigh',
  'keyLow',
  'titleLength',
  'bodyLength',
  'excerptLength',
  'keptPart',
  'keptIndex',
  'keptOffset',
  'keptLength',
  'fieldsOffset',
  'found',
  // Not by arrival: the arrivals in id order (search-document-ids.ts takes it as a hint).
  'order',
] as const;
export type ColumnName = (typeof COLUMN_NAMES)[number];

/** A file as the state names it: its size, mtime (ms) and inode, which an edit or a rewrite changes. */
export type FileIdentity = [sizeBytes: number, mtimeMs: number, inode: number];

export function fileIdentityOf(file: string): FileIdentity | undefined {
  try {
    const stats = statSync(file);
    return [stats.size, stats.mtimeMs, stats.ino];
  } catch {
    return undefined;
  }
}

function sameIdentity(left: FileIdentity | undefined, right: FileIdentity): boolean {
  return left !== undefined && left[0] === right[0] && left[1] === right[1] && left[2] === right[2];
}

/** The header line naming the writer: MAGIC and the sha256 of its identity. */
export function headerOf(identity: string): Buffer {
  return Buffer.from(`${MAGIC}${createHash('sha256').update(identity).digest('hex')}\n`, 'latin1');
}

/** What the state must match to be used. */
export interface EditStateExpectation {
  /** The search writer's identity (searchWriterIdentity). */
  identity: string;
  /** The kept documents' directory as this build read it (its checksum, its parts and their folder). */
  keptChecksum: string | undefined;
  keptParts: { folder: string; parts: readonly KeptPart[] };
  /** llms-full.txt's kept entries as this build read them (llms-kept-entries.ts). */
  llms: { checksum: string; folder: string; parts: readonly KeptPart[] } | undefined;
  /** Whether title items are followed by their entry digest (title pack reuse). */
  keysTitlePacks: boolean;
}

/** A list run's bytes in the state: its key, first arrival, count and files digest. */
export const LIST_RUN_BYTES = 2 * DIGEST_BYTES + 8;

/** A run of list entries' documents as the state names them (search-list-runs.ts). */
export interface ListRun {
  first: number;
  count: number;
  /** sha256 of the documents' file digests, back to back. */
  files: Buffer;
}

/** A state read and checked: its columns by previous arrival, and where its scratch files lie. */
export class SearchEditState {
  /** The list runs, by the hex of their key. */
  listRuns = new Map<string, ListRun>();
  readonly columns: Record<ColumnName, Uint32Array>;
  /** Each document's source digest then entry digest (64 bytes a document). */
  digests: Uint8Array;
  /** Where each document's item starts in each scratch file (count + 1 each: the last is the file's end). */
  readonly starts: Float64Array[];
  private readonly table = new DigestTable(0);
  private lastFound: { source: Uint8Array | undefined; arrival: number | undefined } = {
    source: undefined,
    arrival: undefined,
  };

  constructor(
    readonly count: number,
    columns: Record<ColumnName, Uint32Array>,
    digests: Uint8Array,
    readonly spillFiles: readonly string[],
    titleGap: number,
  ) {
    this.columns = columns;
    this.digests = digests;
    const lengths = [columns.titleLength, columns.bodyLength, columns.excerptLength];
    this.starts = lengths.map((length, file) => {
      const starts = new Float64Array(count + 1);
      const gap = file === 0 ? titleGap : 0;
      for (let arrival = 0; arrival < count; arrival += 1)
        starts[arrival + 1] = starts[arrival]! + length[arrival]! + gap;
      return starts;
    });
    this.table.index(digests, 2 * DIGEST_BYTES, count, (start) => columns.found[start / (2 * DIGEST_BYTES)] === 1);
  }

  /**
   * The first arrival of the list run kept under `key` when it holds `count` documents whose file
   * digests hash to `files`, each of them found by its source digest (its kept entry appended
   * under it); undefined otherwise.
   */
  listRunAt(key: Buffer, files: Buffer, count: number): number | undefined {
    const run = this.listRuns.get(key.toString('hex'));
    if (run === undefined || run.count !== count || run.first + count > this.count || !run.files.equals(files))
      return undefined;
    const { found } = this.columns;
    for (let arrival = run.first; arrival < run.first + count; arrival += 1) if (found[arrival] !== 1) return undefined;
    return run.first;
  }

  /** Lets go of the columns (every document has come): they were held through the index step's peak. */
  release(): void {
    this.listRuns = new Map();
    this.table.clear();
    this.lastFound = { source: undefined, arrival: undefined };
    for (const name of COLUMN_NAMES) this.columns[name] = new Uint32Array(0);
    this.digests = new Uint8Array(0);
    this.starts.length = 0;
  }

  /** The previous arrival of the document whose source digest is `source`, if the state has it. */
  find(source: Uint8Array): number | undefined {
    // The lister asks for a document (keptSourceLookup), then the index writer for the same one
    // with the same digest (keptSourceDigestOf's, never changed): one table lookup for both.
    if (source === this.lastFound.source) return this.lastFound.arrival;
    const start = this.table.get(this.digests, source);
    const arrival = start === undefined ? undefined : start / (2 * DIGEST_BYTES);
    this.lastFound = { source, arrival };
    return arrival;
  }

  sourceAt(arrival: number): Uint8Array {
    return this.digests.subarray(arrival * 2 * DIGEST_BYTES, arrival * 2 * DIGEST_BYTES + DIGEST_BYTES);
  }

  entryDigestAt(arrival: number): Uint8Array {
    return this.digests.subarray(arrival * 2 * DIGEST_BYTES + DIGEST_BYTES, (arrival + 1) * 2 * DIGEST_BYTES);
  }
}

/**
 * Whether the kept documents hold a source key's entry (TreeDocumentFiles.keptSources.has): the
 * state knows an unchanged one without its kept part being read.
 */
export function keptSourceLookup(
  kept: KeptSearchDocuments,
  state: SearchEditState | undefined,
  stemming: string,
): (sourceKey: string) => boolean {
  return (sourceKey) => {
    const source = keptSourceDigestOf(stemming, sourceKey);
    return state?.find(source) !== undefined || kept.hasSource(source);
  };
}

/** A cursor over the state's bytes; throws RangeError past their end. */
class Cursor {
  at = 0;
  constructor(readonly bytes: Buffer) {}
  take(length: number): Buffer {
    if (this.at + length > this.bytes.length) throw new RangeError('truncated');
    const piece = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return piece;
  }
  uint32(): number {
    return this.take(4).readUInt32LE(0);
  }
  double(): number {
    return this.take(8).readDoubleLE(0);
  }
  identity(): FileIdentity {
    return [this.double(), this.double(), this.double()];
  }
}

/**
 * The state at `file` when it is whole and matches `expected`; else why it is not used (undefined
 * reason: there is none). Reads the state file alone, and stats the files it names.
 */
export function readSearchEditState(
  file: string,
  expected: EditStateExpectation,
): { state?: SearchEditState; ignoredBecause?: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return {};
  }
  const header = headerOf(expected.identity);
  if (bytes.length < header.length + DIGEST_BYTES || !bytes.subarray(0, header.length).equals(header))
    return { ignoredBecause: 'another writer made it' };
  const body = bytes.subarray(0, bytes.length - DIGEST_BYTES);
  if (!createHash('sha256').update(body).digest().equals(bytes.subarray(body.length)))
    return { ignoredBecause: 'its checksum does not match (it was damaged or edited)' };
  try {
    const cursor = new Cursor(body);
    cursor.at = header.length;
    const count = cursor.uint32();
    const keysTitlePacks = cursor.uint32() === 1;
    const keptChecksum = cursor.take(DIGEST_BYTES).toString('hex');
    if (keysTitlePacks !== expected.keysTitlePacks || keptChecksum !== expected.keptChecksum)
      return { ignoredBecause: 'it describes other kept documents' };
    const prefix = cursor.take(cursor.uint32()).toString('latin1');
    if (!/^[0-9a-z-]+$/.test(prefix)) throw new RangeError('a scratch name of another form');
    const folder = path.join(path.dirname(file), EDIT_SPILLS_FOLDER);
    const spillFiles = SPILL_NAMES.map((name) => path.join(folder, `${prefix}${name}`));
    const spillIdentities = SPILL_NAMES.map(() => cursor.identity());
    const llmsChecksum = cursor.take(DIGEST_BYTES).toString('hex');
    if (llmsChecksum !== expected.llms?.checksum) return { ignoredBecause: 'it describes other llms-full.txt entries' };
    for (const { parts, folder } of [expected.keptParts, expected.llms]) {
      if (cursor.uint32() !== parts.length) return { ignoredBecause: 'it describes other kept parts' };
      for (const part of parts)
        if (!sameIdentity(fileIdentityOf(path.join(folder, part.name)), cursor.identity()))
          return { ignoredBecause: 'a kept part changed since it was written' };
    }
    const columns = {} as Record<ColumnName, Uint32Array>;
    for (const name of COLUMN_NAMES) {
      const column = new Uint32Array(count);
      new Uint8Array(column.buffer).set(cursor.take(4 * count));
      columns[name] = column;
    }
    const digests = new Uint8Array(cursor.take(2 * DIGEST_BYTES * count));
    const listRuns = new Map<string, ListRun>();
    for (let runs = cursor.uint32(); runs > 0; runs -= 1) {
      const key = cursor.take(DIGEST_BYTES).toString('hex');
      const first = cursor.uint32();
      listRuns.set(key, { first, count: cursor.uint32(), files: Buffer.from(cursor.take(DIGEST_BYTES)) });
    }
    if (cursor.at !== body.length) throw new RangeError('bytes past the end');
    const state = new SearchEditState(count, columns, digests, spillFiles, keysTitlePacks ? DIGEST_BYTES : 0);
    state.listRuns = listRuns;
    for (let spill = 0; spill < SPILL_NAMES.length; spill += 1) {
      const identity = spillIdentities[spill]!;
      if (identity[0] !== state.starts[spill]![count] || !sameIdentity(fileIdentityOf(spillFiles[spill]!), identity))
        return { ignoredBecause: 'a scratch file it names changed since it was written' };
    }
    return { state };
  } catch {
    return { ignoredBecause: 'it does not parse' };
  }
}
