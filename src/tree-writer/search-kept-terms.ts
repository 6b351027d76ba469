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
import { encodeRecord } from '../core/packs/pack-encoding.js';
import { encodeImpactPostings, impactOf, POSTING_BLOCK_SIZE, readVarint } from '../core/search/postings.js';
import { grownTypedArray } from './grown-typed-array.js';
import { SpillReader, SpillWriter } from './spill-files.js';
import { ChangedNumbers, holdsChanged, holdsExactly } from './search-changed-postings.js';

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
}

/** A document whose share was made anew (not taken from the kept documents): its number and terms. */
export interface ChangedDocument {
  number: number;
  keys: readonly string[];
  counts: readonly number[];
  tokenCount: number;
}

/** Documents made anew past this many: the runs are merged (patching touches most records then). */
export const MAX_PATCHED_DOCUMENTS = 1000;

const STATE_VERSION = 1;
/** A file being written is `<file><NEW_TERMS_MARK><pid>` until it is put in place. */
export const NEW_TERMS_MARK = '.new-';

/** A record's name bytes start after its 14-byte header and the name's 2-byte length (one name). */
const RECORD_NAME_AT = 16;

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
    return { state: { documents: saved.documents, averageLength: saved.averageLength }, file, sha256: saved.sha256 };
  } catch {
    return undefined;
  }
}

function identityDigestOf(identity: string): string {
  return createHash('sha256').update(identity).digest('hex');
}

/**
 * This build's records on their way to `file`: copied beside it when the index's term part is
 * written, put in place with their state once the kept documents file they go with is (`commit`).
 */
export class KeptTermsWriter {
  private pending: { file: string; state: KeptTermsState; sha256: string } | undefined;

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

  /** Puts the copy in place for the kept documents file of checksum `keptDocuments` (none: removes the pair). */
  commit(keptDocuments: string | undefined): void {
    rmSync(stateFileOf(this.file), { force: true });
    if (this.pending === undefined || keptDocuments === undefined) {
      this.discard();
      rmSync(this.file, { force: true });
      return;
    }
    renameSync(this.pending.file, this.file);
    const state = {
      version: STATE_VERSION,
      identity: identityDigestOf(this.identity),
      keptDocuments,
      ...this.pending.state,
      sha256: this.pending.sha256,
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

/** Reads a postings body's count and moves past its skip table (per block of 128: two varints and a byte). */
function readCountPastSkips(body: Uint8Array, cursor: { at: number }): number {
  const count = readVarint(body, cursor);
  for (let block = 0; block < Math.ceil(count / POSTING_BLOCK_SIZE); block += 1) {
    readVarint(body, cursor);
    readVarint(body, cursor);
    cursor.at += 1;
  }
  return count;
}

/**
 * Postings decoded and merged, reused from record to record: a patched list of a word in every
 * one of 100,000 documents was four JavaScript arrays of 100,000 numbers each, in V8's
 * large-object space, and an edit patches every word of the edited document.
 */
let oldNumbers = new Uint32Array(1024);
let oldImpacts = new Uint8Array(1024);
let mergedNumbers = new Uint32Array(1024);
let mergedImpacts = new Uint8Array(1024);

/** Decodes a record body's postings (encodeImpactPostings's layout) into oldNumbers and oldImpacts; returns their count. */
function decodePostings(body: Uint8Array): number {
  const cursor = { at: 0 };
  const count = readCountPastSkips(body, cursor);
  if (count > oldNumbers.length) {
    oldNumbers = new Uint32Array(count * 2);
    oldImpacts = new Uint8Array(count * 2);
  }
  let number = 0;
  for (let index = 0; index < count; index += 1) {
    number += readVarint(body, cursor);
    oldNumbers[index] = number;
    oldImpacts[index] = body[cursor.at++]!;
  }
  if (cursor.at !== body.length) throw new RangeError('a kept term record does not parse');
  return count;
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
  const changedNumbers = new ChangedNumbers(
    changed.map((document) => document.number),
    documentCount,
  );
  const { marked } = changedNumbers;
  const added = new Map<string, { numbers: number[]; impacts: number[] }>();
  for (const document of [...changed].sort((left, right) => left.number - right.number)) {
    document.keys.forEach((key, position) => {
      const postings = added.get(key) ?? { numbers: [], impacts: [] };
      if (postings.numbers.length === 0) added.set(key, postings);
      postings.numbers.push(document.number);
      postings.impacts.push(impactOf(document.counts[position]!, document.tokenCount, averageLength));
    });
  }
  // Keys the previous records lack come in between them, in the records' (UTF-8 byte) order.
  const addedKeys = [...added.keys()].map((key) => ({ key, bytes: Buffer.from(key, 'utf8') }));
  addedKeys.sort((left, right) => Buffer.compare(left.bytes, right.bytes));
  let nextAdded = 0;
  const writer = new SpillWriter(file);
  const totals = { count: 0, totalBytes: 0, keyBytes: 0 };
  // Each record's position in the previous records plus one when it is that record as it was, else 0.
  let origins = new Uint32Array(1024);
  let previousPosition = 0;
  const emit = (key: Uint8Array, encoded: Uint8Array, origin = -1) => {
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
  const emitPostings = (key: Uint8Array, term: string, numbers: ArrayLike<number>, impacts: ArrayLike<number>) => {
    if (numbers.length > 0) emit(key, encodeRecord({ names: [term], body: encodeImpactPostings(numbers, impacts) }));
  };
  const emitAdded = (entry: { key: string; bytes: Buffer }) => {
    const postings = added.get(entry.key)!;
    emitPostings(entry.bytes, entry.key, postings.numbers, postings.impacts);
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
      const keyBytes = keyScratch.subarray(0, keyLength);
      const encoded = reader.readView(reader.readVarint());
      while (nextAdded < addedKeys.length && Buffer.compare(addedKeys[nextAdded]!.bytes, keyBytes) < 0)
        emitAdded(addedKeys[nextAdded++]!);
      // The added keys come in the records' order: this record's key, if added, is the next one.
      const addedKey =
        nextAdded < addedKeys.length && addedKeys[nextAdded]!.bytes.equals(keyBytes)
          ? addedKeys[nextAdded]!
          : undefined;
      const adds = addedKey && added.get(addedKey.key);
      if (adds !== undefined) nextAdded += 1;
      const position = previousPosition++;
      const bodyStart = RECORD_NAME_AT + keyBytes.length;
      if (
        adds === undefined
          ? !holdsChanged(encoded, bodyStart, encoded.length, changedNumbers)
          : holdsExactly(encoded, bodyStart, encoded.length, changedNumbers, adds)
      ) {
        emit(keyBytes, encoded, position);
        continue;
      }
      const term = addedKey?.key ?? keyBytes.toString('utf8');
      const oldCount = decodePostings(encoded.subarray(bodyStart));
      let addAt = 0;
      const addNumbers = adds?.numbers ?? [];
      if (oldCount + addNumbers.length > mergedNumbers.length) {
        mergedNumbers = new Uint32Array((oldCount + addNumbers.length) * 2);
        mergedImpacts = new Uint8Array(mergedNumbers.length);
      }
      let merged = 0;
      for (let index = 0; index <= oldCount; index += 1) {
        const number = index < oldCount ? oldNumbers[index]! : Number.POSITIVE_INFINITY;
        while (addAt < addNumbers.length && addNumbers[addAt]! < number) {
          mergedNumbers[merged] = addNumbers[addAt]!;
          mergedImpacts[merged++] = adds!.impacts[addAt]!;
          addAt += 1;
        }
        if (index === oldCount || marked[number] === 1) continue;
        mergedNumbers[merged] = number;
        mergedImpacts[merged++] = oldImpacts[index]!;
      }
      emitPostings(keyBytes, term, mergedNumbers.subarray(0, merged), mergedImpacts.subarray(0, merged));
    }
    while (nextAdded < addedKeys.length) emitAdded(addedKeys[nextAdded++]!);
  } finally {
    reader.close();
    writer.close();
  }
  if (hash.digest('hex') !== previous.sha256)
    throw new KeptTermsChangedError(`the kept term records ${previous.file} are not those their state names`);
  return { ...totals, origins: origins.subarray(0, totals.count) };
}
