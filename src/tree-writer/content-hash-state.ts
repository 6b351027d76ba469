// The content hash's input kept for the next build (`.staticmcp/content-hash.bin`, issue #39
// "Edits in a second"; content-hash-record.ts lays it out): the bytes content-hash.ts hashes
// (`path \0 hex digest \0` a file, in path order) with, per tree-writer slot, its entry, and per
// hash which entries it takes. A build whose slots mostly hold the paths they held in the record
// (a content edit: the same documents, one changed, and the list part naming it renamed) patches
// the digests that changed, takes out the entries of paths gone from their slot and merges in the
// new ones, then hashes those bytes: no sort of every path, no walk of the digests in path order.
// Only which entries each hash takes is trusted (keyed by the filters' identities): every slot's
// path and digest is compared with the writer's, and the entries' order checked, before the bytes
// are hashed. Never keyed by the previous tree, so a killed build leaves it true; a missing,
// damaged (CRC-32) or foreign one means the full walk, which writes it anew.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { type FileFilter, type HashObserver, hashSlotsBy } from './content-hash.js';
import { grownTypedArray, releaseGrown } from './grown-typed-array.js';
import { readExactly } from './read-exactly.js';
import {
  ENTRY_TAIL_BYTES,
  HEX_BYTES,
  type HashRecord,
  NONE,
  RecordWriter,
  readRecord,
  writeHex,
  writeRecord,
} from './content-hash-record.js';

/** Where the record lives and whether a build may read it (`build --force` does not). */
export interface ContentHashStateOptions {
  file: string;
  readPrevious: boolean;
}

/** What the record reads of a tree writer's files (file-digests.ts). */
export interface HashedFiles {
  readonly slotCount: number;
  isLive(slot: number): boolean;
  forEachInHashOrder(visit: (slot: number, digest: Uint8Array) => void): void;
  bytesAt(slot: number): Uint8Array;
  at(slot: number): string;
  /** Each slot's digest (spilled-digests.ts: a view valid until the next read of a digest). */
  readonly digests: { viewOf(slot: number): Uint8Array };
}

/** Slots whose entry changes, past this share of the slots: the full walk costs no more than the merge. */
const MOST_CHANGED_SHARE = 1 / 8;
/** An entry's fate in an update: its slot still holds its path, or it goes. */
const KEPT = 1;
const REMOVED = 2;

/** The project's record file. */
export function contentHashStateFile(projectRoot: string): string {
  return path.join(projectRoot, '.staticmcp', 'content-hash.bin');
}

/**
 * The content hash of the files each of `includes` takes (content-hash.ts hashSlotsBy), from the
 * record when one of these filters is there, else from the full walk, which records them.
 */
export function hashWithState(
  files: HashedFiles,
  includes: readonly FileFilter[],
  state: ContentHashStateOptions | undefined,
  /** Told of each file when the hash walks them all (not when it is taken from the record). */
  observer?: HashObserver,
): string[] {
  const identities = includes.map((include) => include.identity);
  if (state === undefined || identities.some((identity) => identity === undefined))
    return hashSlotsBy((visit) => files.forEachInHashOrder(visit), files, includes, observer);
  const key = createHash('sha256').update(JSON.stringify(identities)).digest();
  if (state.readPrevious) {
    // The record's bytes, read and merged, given back at once: a build's later stages (the pack
    // step's peak) never hold them.
    const held: Buffer[] = [];
    try {
      const record = updatedRecord(state.file, key, files, includes, held);
      if (record !== undefined) {
        writeRecord(state.file, key, record);
        return record.taken.map((taken) => hashOfTaken(record, taken));
      }
    } finally {
      for (const bytes of held) releaseGrown(bytes);
    }
  }
  const recorder = new RecordWriter(state.file, files.slotCount, includes.length);
  const hashes = hashSlotsBy(
    (visit) => files.forEachInHashOrder(visit),
    files,
    includes,
    observer ? bothObservers(recorder, observer) : recorder,
  );
  recorder.finish(key);
  return hashes;
}

function bothObservers(first: HashObserver, second: HashObserver): HashObserver {
  return {
    observe(slot, pathBytes, digest, takenBy) {
      first.observe(slot, pathBytes, digest, takenBy);
      second.observe(slot, pathBytes, digest, takenBy);
    },
  };
}

/** The content hash of the entries `taken` marks: one update a run of them. */
function hashOfTaken(record: HashRecord, taken: Uint8Array): string {
  const { entries, starts, stream } = record;
  const hash = createHash('sha256');
  for (let entry = 0; entry < entries; ) {
    if ((taken[entry >> 3]! & (1 << (entry & 7))) === 0) {
      entry++;
      continue;
    }
    const from = entry;
    while (entry < entries && (taken[entry >> 3]! & (1 << (entry & 7))) !== 0) entry++;
    hash.update(stream.subarray(starts[from]!, starts[entry]!));
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The record at `file` made true of `files`: digests patched in place, the entries of slots
 * whose path changed or went taken out and the new ones merged in; undefined when there is none
 * to use (missing, damaged, foreign, or too much changed).
 */
function updatedRecord(
  file: string,
  key: Buffer,
  files: HashedFiles,
  includes: readonly FileFilter[],
  /** Where the buffers made here go, for the caller to give back (grown-typed-array.ts releaseGrown). */
  held: Buffer[],
): HashRecord | undefined {
  try {
    const bytes = readWhole(file, held);
    const record = bytes && readRecord(bytes, key, includes.length);
    const updated = record && patchedOrMerged(record, files, includes, held);
    return updated && isInPathOrder(updated) ? updated : undefined;
  } catch {
    // Offsets out of range in a record not written here: as damaged.
    return undefined;
  }
}

/** The file's bytes, in a buffer added to `held`; undefined when it cannot be read. */
function readWhole(file: string, held: Buffer[]): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const bytes = grownTypedArray(Buffer.alloc(0), fstatSync(fd).size);
    held.push(bytes);
    readExactly(fd, bytes, 0, 'the content hash record');
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** updatedRecord's work on a record read whole. */
function patchedOrMerged(record: HashRecord, files: HashedFiles, includes: readonly FileFilter[], held: Buffer[]) {
  const { entries, entryOfSlot, starts, stream } = record;
  // Per entry: 0 not claimed by a slot (yet), KEPT, REMOVED.
  const fates = new Uint8Array(entries);
  let removedCount = 0;
  const added: number[] = [];
  const mostChanged = Math.max(64, Math.floor(files.slotCount * MOST_CHANGED_SHARE));
  const hex = Buffer.alloc(HEX_BYTES);
  for (let slot = 0; slot < Math.max(files.slotCount, record.slotCount); slot++) {
    const entry = slot < record.slotCount ? entryOfSlot[slot]! : NONE;
    const live = slot < files.slotCount && files.isLive(slot);
    if (entry !== NONE) {
      if (entry >= entries || fates[entry] !== 0) return undefined;
      const from = starts[entry]!;
      const pathEnd = starts[entry + 1]! - ENTRY_TAIL_BYTES;
      if (pathEnd < from || stream[pathEnd] !== 0 || stream[starts[entry + 1]! - 1] !== 0) return undefined;
      const filePath = live ? files.bytesAt(slot) : undefined;
      if (filePath?.length === pathEnd - from && stream.compare(filePath, 0, filePath.length, from, pathEnd) === 0) {
        writeHex(files.digests.viewOf(slot), hex, 0);
        if (stream.compare(hex, 0, HEX_BYTES, pathEnd + 1, pathEnd + 1 + HEX_BYTES) !== 0)
          hex.copy(stream, pathEnd + 1);
        fates[entry] = KEPT;
        continue;
      }
      fates[entry] = REMOVED;
      removedCount += 1;
    }
    if (live) added.push(slot);
    if (added.length + removedCount > mostChanged) return undefined;
  }
  // An entry no slot claims (a record not written here) goes too.
  for (let entry = 0; entry < entries; entry++) {
    if (fates[entry] !== 0) continue;
    fates[entry] = REMOVED;
    removedCount += 1;
  }
  if (added.length === 0 && removedCount === 0) return record;
  const merged = mergedRecord(record, files, includes, fates, removedCount, added);
  held.push(merged.stream);
  return merged;
}

/** Whether every entry's path comes before the next one's (by their bytes: the content hash's order). */
function isInPathOrder(record: HashRecord): boolean {
  const { entries, starts, stream } = record;
  for (let entry = 1; entry < entries; entry++) {
    const previousEnd = starts[entry]! - ENTRY_TAIL_BYTES;
    const pathEnd = starts[entry + 1]! - ENTRY_TAIL_BYTES;
    // This entry's path (the source) against the one before it (the target).
    if (stream.compare(stream, starts[entry - 1]!, previousEnd, starts[entry]!, pathEnd) <= 0) return false;
  }
  return true;
}

/** `record` without its REMOVED entries (`fates`) and with those of the `added` slots, in path order. */
function mergedRecord(
  record: HashRecord,
  files: HashedFiles,
  includes: readonly FileFilter[],
  fates: Uint8Array,
  removedCount: number,
  added: number[],
): HashRecord {
  const { entries, entryOfSlot, starts, stream } = record;
  // Each added file's entry, whether each hash takes it, and where it goes among the old entries.
  const news = added.map((slot) => {
    const bytes = Buffer.from(files.bytesAt(slot));
    const entry = Buffer.alloc(bytes.length + ENTRY_TAIL_BYTES);
    bytes.copy(entry);
    writeHex(files.digests.viewOf(slot), entry, bytes.length + 1);
    const filePath = files.at(slot);
    const taken = includes.map((include) => include(filePath));
    let low = 0;
    let high = entries;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const from = starts[middle]!;
      const pathEnd = starts[middle + 1]! - ENTRY_TAIL_BYTES;
      if (stream.compare(bytes, 0, bytes.length, from, pathEnd) < 0) low = middle + 1;
      else high = middle;
    }
    return { slot, bytes, entry, taken, before: low };
  });
  news.sort((left, right) => left.before - right.before || left.bytes.compare(right.bytes));
  const slotOfEntry = new Uint32Array(entries).fill(NONE);
  for (let slot = 0; slot < record.slotCount; slot++) {
    const entry = entryOfSlot[slot]!;
    if (entry !== NONE && fates[entry] === KEPT) slotOfEntry[entry] = slot;
  }
  const count = entries - removedCount + news.length;
  let bytes = stream.length + news.reduce((sum, added) => sum + added.entry.length, 0);
  for (let entry = 0; entry < entries; entry++)
    if (fates[entry] === REMOVED) bytes -= starts[entry + 1]! - starts[entry]!;
  const merged: HashRecord = {
    slotCount: files.slotCount,
    entries: count,
    entryOfSlot: new Uint32Array(files.slotCount).fill(NONE),
    starts: new Uint32Array(count + 1),
    stream: grownTypedArray(Buffer.alloc(0), bytes),
    taken: includes.map(() => new Uint8Array(Math.ceil(count / 8))),
  };
  // Old entries are copied a run at a time: from `runFrom` (in the old bytes) to where the next begins.
  let next = 0;
  let at = 0;
  let runFrom = 0;
  let runAt = 0;
  const endRun = () => {
    stream.copy(merged.stream, runAt, runFrom, runFrom + (at - runAt));
  };
  let placed = 0;
  for (let entry = 0; entry <= entries; entry++) {
    for (; placed < news.length && news[placed]!.before === entry; placed++) {
      const added = news[placed]!;
      endRun();
      added.entry.copy(merged.stream, at);
      merged.starts[next] = at;
      merged.entryOfSlot[added.slot] = next;
      for (let hash = 0; hash < includes.length; hash++)
        if (added.taken[hash]) merged.taken[hash]![next >> 3]! |= 1 << (next & 7);
      at += added.entry.length;
      next += 1;
      [runFrom, runAt] = [starts[entry] ?? stream.length, at];
    }
    if (entry === entries) break;
    if (fates[entry] === REMOVED) {
      endRun();
      [runFrom, runAt] = [starts[entry + 1]!, at];
      continue;
    }
    merged.starts[next] = at;
    merged.entryOfSlot[slotOfEntry[entry]!] = next;
    for (let hash = 0; hash < includes.length; hash++)
      if ((record.taken[hash]![entry >> 3]! & (1 << (entry & 7))) !== 0)
        merged.taken[hash]![next >> 3]! |= 1 << (next & 7);
    at += starts[entry + 1]! - starts[entry]!;
    next += 1;
  }
  endRun();
  merged.starts[count] = at;
  return merged;
}
