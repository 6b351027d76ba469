// What the search index writer keeps of its term part between builds (issue #39, "Edits in a
// second"): the last index's term records (key and encoded record, in key order, as mergeRuns
// writes them) and what they were made from: a digest of the documents' ids in number order, the
// weight average length, the writer's identity and the kept documents file they go with (its
// checksum, search-kept-documents.ts). A rebuild whose documents have those ids and that average,
// and whose every document but a few came from that kept file, patches the records instead of
// collecting, sorting and merging every posting again: a record holding a changed document's
// number loses that posting, each key of a changed document's text gains one, every other record
// is copied as it is. A record is encodeImpactPostings of its numbers and impacts, as a
// from-scratch merge makes it, so the index is byte for byte the same. Anything else (no file,
// another writer's, damaged, other ids or average) merges the runs as a first build does.
// The patch says which records it copied and from where, so a term pack made of copied records only
// is linked from the previous tree (search-index-spill-writer.ts, termPackReuse).
// Two files in the project's .staticmcp/: the records, and a small JSON naming their sha256 (it
// is written last, so a build killed between the two leaves a pair that does not match: ignored).
import { createHash } from 'node:crypto';
import {
  closeSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { grownTypedArray } from './grown-typed-array.js';
import { SpillReader, SpillWriter } from './spill-files.js';
import { layoutOf, savedLayoutOf, type TermsLayout } from './search-terms-layout.js';
import { type ChangedDocument, type EmitTermRecord, TermRecordPatch } from './search-term-record-patch.js';

/** What the kept records were made from. */
export interface KeptTermsState {
  /** sha256 (hex) of the documents' ids in number order. */
  documents: string;
  /** The weight average length the impacts were made with (weightAverageLengthOf). */
  averageLength: number;
}

/**
 * The previous build's records: their file and the sha256 (hex) their state names, which
 * patchTermRecords checks as it reads them (held whole, they were the edit build's largest holding).
 */
export interface PreviousTerms {
  state: KeptTermsState;
  file: string;
  sha256: string;
  /** Where the previous index's term packs and indexes lie in the records (when saved and whole). */
  layout?: TermsLayout;
}

export type { ChangedDocument };

/** Documents made anew past this many: the runs are merged (patching touches most records then). */
export const MAX_PATCHED_DOCUMENTS = 1000;

const STATE_VERSION = 1;
/** A file being written is `<file><NEW_TERMS_MARK><pid>` until it is put in place. */
export const NEW_TERMS_MARK = '.new-';

/** The documents' ids in number order, as the state names them. */
export function documentsDigestOf(idsInNumberOrder: Iterable<string>): string {
  const hash = createHash('sha256');
  for (const id of idsInNumberOrder) hash.update(`${id.length}:${id}\n`);
  return hash.digest('hex');
}

function stateFileOf(file: string): string {
  return `${file}.json`;
}

/**
 * The records kept at `file` for a writer of `identity` made with the kept documents whose
 * checksum is `keptDocuments`, if their state says so and they are at most `maxBytes`; undefined
 * otherwise. Not read here: patchTermRecords checks their sha256 as it streams them.
 */
export function readKeptTerms(
  file: string,
  identity: string,
  keptDocuments: string | undefined,
  maxBytes: number,
): PreviousTerms | undefined {
  if (keptDocuments === undefined) return undefined;
  try {
    const saved = JSON.parse(readFileSync(stateFileOf(file), 'utf8')) as Record<string, unknown>;
    if (
      saved.version !== STATE_VERSION ||
      saved.identity !== identityDigestOf(identity) ||
      saved.keptDocuments !== keptDocuments ||
      typeof saved.documents !== 'string' ||
      typeof saved.averageLength !== 'number' ||
      typeof saved.sha256 !== 'string' ||
      statSync(file).size > maxBytes
    )
      return undefined;
    const layout = layoutDigestOf(saved.layout) === saved.layoutSha256 ? layoutOf(saved.layout) : undefined;
    return {
      state: { documents: saved.documents, averageLength: saved.averageLength },
      file,
      sha256: saved.sha256,
      ...(layout && layout.bytes === statSync(file).size ? { layout } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The digest the state names its layout by (a layout edited or cut short is not used). */
function layoutDigestOf(saved: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(saved ?? null))
    .digest('hex');
}

function identityDigestOf(identity: string): string {
  return createHash('sha256').update(identity).digest('hex');
}

/**
 * This build's records on their way to `file`: copied beside it when the index's term part is
 * written, put in place with their state once the kept documents file they go with is (`commit`).
 */
export class KeptTermsWriter {
  private pending: { file: string; state: KeptTermsState; sha256: string; layout?: unknown } | undefined;

  constructor(
    private readonly file: string,
    private readonly identity: string,
    private readonly maxBytes: number,
  ) {}

  /**
   * Takes a copy of the terms file `termsFile` (the writer's scratch file) made as `state` says;
   * returns its sha256 (hex), or undefined when it is not kept (past the size bound).
   */
  keep(termsFile: string, state: KeptTermsState): string | undefined {
    this.discard();
    if (statSync(termsFile).size > this.maxBytes) return undefined;
    const copy = `${this.file}${NEW_TERMS_MARK}${process.pid}`;
    this.pending = { file: copy, state, sha256: copyHashing(termsFile, copy) };
    return this.pending.sha256;
  }

  /** Saves with the records kept the layout of the term part made of them. */
  keepLayout(layout: TermsLayout): void {
    if (this.pending !== undefined) this.pending.layout = savedLayoutOf(layout);
  }

  /** Puts the copy in place for the kept documents file of checksum `keptDocuments` (none: removes the pair). */
  commit(keptDocuments: string | undefined): void {
    rmSync(stateFileOf(this.file), { force: true });
    if (this.pending === undefined || keptDocuments === undefined) {
      this.discard();
      rmSync(this.file, { force: true });
      return;
    }
    renameSync(this.pending.file, this.file);
    const { layout } = this.pending;
    const state = {
      version: STATE_VERSION,
      identity: identityDigestOf(this.identity),
      keptDocuments,
      ...this.pending.state,
      sha256: this.pending.sha256,
      ...(layout === undefined ? {} : { layout, layoutSha256: layoutDigestOf(layout) }),
    };
    this.pending = undefined;
    const stateFile = stateFileOf(this.file);
    writeFileSync(`${stateFile}${NEW_TERMS_MARK}${process.pid}`, JSON.stringify(state));
    renameSync(`${stateFile}${NEW_TERMS_MARK}${process.pid}`, stateFile);
  }

  /** Drops a copy not put in place. */
  discard(): void {
    if (this.pending !== undefined) rmSync(this.pending.file, { force: true });
    this.pending = undefined;
  }
}

/** Bytes copied at a time: a small buffer, under glibc's mmap threshold (CONTRIBUTING.md, Benchmarks). */
const COPY_CHUNK_BYTES = 64 * 1024;

/**
 * Copies `source` to `target` and returns the sha256 (hex) of the bytes copied, a chunk at a time:
 * reading the copy back whole held every term record at once, at the index step's peak (the
 * records grow with the corpus).
 */
function copyHashing(source: string, target: string): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
  const from = openSync(source, 'r');
  try {
    const to = openSync(target, 'w', 0o600);
    try {
      for (;;) {
        const read = readSync(from, chunk, 0, chunk.length, null);
        if (read === 0) break;
        const bytes = chunk.subarray(0, read);
        hash.update(bytes);
        let written = 0;
        while (written < read) written += writeSync(to, bytes, written, read - written);
      }
    } finally {
      closeSync(to);
    }
  } finally {
    closeSync(from);
  }
  return hash.digest('hex');
}

/** Thrown when the kept records read are not those their state names (damaged, or replaced meanwhile). */
export class KeptTermsChangedError extends Error {}

/**
 * Writes to `file` the previous term records patched for the `changed` documents (of
 * `documentCount`), with impacts of `averageLength`: the records a from-scratch merge would write.
 * Returns the totals the packer's boundaries need. The previous records are read a buffer at a
 * time and hashed as they pass: throws KeptTermsChangedError when they are not the ones checked
 * (then `file` is not to be used), and on records that do not parse.
 */
export function patchTermRecords(
  previous: Pick<PreviousTerms, 'file' | 'sha256'>,
  changed: readonly ChangedDocument[],
  documentCount: number,
  averageLength: number,
  file: string,
  /** Told each record as it is written (views valid only during the call). */
  onRecord?: (key: Uint8Array, encoded: Uint8Array) => void,
): { count: number; totalBytes: number; keyBytes: number; origins: Uint32Array } {
  const patch = new TermRecordPatch(changed, documentCount, averageLength);
  const writer = new SpillWriter(file);
  const totals = { count: 0, totalBytes: 0, keyBytes: 0 };
  // Each record's position in the previous records plus one when it is that record as it was, else 0.
  let origins = new Uint32Array(1024);
  let previousPosition = 0;
  const emit: EmitTermRecord = (key, encoded, origin) => {
    origins = grownTypedArray(origins, totals.count + 1);
    origins[totals.count] = origin + 1;
    writer.appendVarint(key.length);
    writer.append(key);
    writer.appendVarint(encoded.length);
    writer.append(encoded);
    onRecord?.(key, encoded);
    totals.count += 1;
    totals.totalBytes += encoded.length;
    totals.keyBytes += key.length;
  };
  const hash = createHash('sha256');
  const reader = new SpillReader(previous.file, COPY_CHUNK_BYTES, hash);
  // Each record is read as a view of the reader's buffer and copied only into the new file (a copy
  // of every record was ~31 MB of garbage an edit at 100,000 documents, its long lists mmapped one
  // by one); the key goes to a buffer of its own first, as reading the record's length may move it.
  let keyScratch = Buffer.alloc(64);
  try {
    while (!reader.atEnd()) {
      const keyLength = reader.readVarint();
      if (keyLength > keyScratch.length) keyScratch = Buffer.alloc(keyLength * 2);
      keyScratch.set(reader.readView(keyLength));
      const encoded = reader.readView(reader.readVarint());
      patch.record(keyScratch.subarray(0, keyLength), encoded, previousPosition++, emit);
    }
    patch.emitAddedUpTo(patch.addedKeys.length, emit);
  } finally {
    reader.close();
    writer.close();
  }
  if (hash.digest('hex') !== previous.sha256)
    throw new KeptTermsChangedError(`the kept term records ${previous.file} are not those their state names`);
  return { ...totals, origins: origins.subarray(0, totals.count) };
}
