// The build's pack step (issue #24): when the call files written pass the call-file budget
// (`limits.maxCallFiles`, host-limits.ts), each tool whose packs take fewer files than its call
// files has them replaced by packs and indexes under packs/<tool>/ (tree-writer/pack-writer.ts),
// its left-out-default copies becoming extra names of the same record. Two steps: `planPacking`
// once every call file and copy is written (it decides, from sizes alone, which tools are packed
// and at what pack size, so the deploy files can say the tree has packs: `_headers`), and
// `writePacks` after the content hash (which stays over the logical files) and before the
// manifest, which carries the pack table. The build and `staticmcp merge` both run them on the
// whole tree, so a merged tree is packed byte for byte as a one-machine build packs it.
// Deterministic: tools in name order, records sorted by the writer.
// Cost: the call files past the budget are held in one spool file, never created one by one
// (tree-output.ts), then each packed tool's are read back once (one pack's bodies in memory at a
// time) and its packs written. A tool whose records are those of the previous build (pack-reuse.ts:
// a digest of the writer's file digests, no read) has its packs hard-linked from the previous tree
// instead: no read-back, no encoding, no write; a tool whose records changed still links each
// pack whose own records are a recorded pack's (pack-reuse.ts reusablePack). Why calls are not packed as they stream in: the
// budget decision needs every tool's final count and size, known only once every call is in.
import path from 'node:path';
import type { PackTableRow } from '../core/packs/pack-table.js';
import { encodedRecordBytes } from '../core/packs/pack-encoding.js';
import type { FileDigests } from '../tree-writer/file-digests.js';
import { releaseGrown } from '../tree-writer/grown-typed-array.js';
import { PackRecordList } from '../tree-writer/pack-record-list.js';
import {
  DEFAULT_TARGET_PACK_BYTES,
  MAX_PACK_BYTES,
  maxPackFilesFor,
  generateListPacks,
} from '../tree-writer/pack-writer.js';
import type { PackingOutcome } from './host-limits.js';
import { toolOfCallFile } from './packable-call-file.js';
import { type PackedToolOutcome, type PreviousPacks, ToolRecordsDigest } from './pack-reuse.js';
import type { RecordedFile } from './recorded-file.js';
import { noteStageMemory } from './stage-memory.js';
import { TreeSlotList } from './tree-slot-list.js';
import type { TreeOutput } from './tree-output.js';

/** Paths taken out of the tree per call to the writer. */
const REMOVE_SLICE = 4096;

/** Tree paths by position: held as slots of the writer's paths (tree-slot-list.ts) or in an arena of their own. */
export interface TreePathList {
  readonly length: number;
  at(position: number): string;
  /** The positions in the paths' order. */
  sortedPositions(): Uint32Array;
}

export interface ToolCallFiles {
  tool: string;
  /**
   * Call files that are not copies, in the order written (the pack writer sorts records itself).
   * Never a string per path (a tool can have 650,000 calls): the writer's slots, or an arena.
   */
  owners: TreePathList;
  /** The tool's call files that are copies (extra names of an owner's record). */
  copies: TreePathList;
  recordBytes: number;
  nameCount: number;
  /** This entry's own pack size (the resource group's, pack-resource-files.ts); else the plan's. */
  targetPackBytes?: number;
  /**
   * The writer's slots of an owner's record names (its own, then its copies' in their names'
   * order), by the owner's slot, where the entry knows them (the resource group's): the pack
   * step then makes no string of them.
   */
  nameSlotsOf?: (ownerSlot: number) => readonly number[];
}

/** Owner → the other names of its record, sorted (only looked up: a resource group's are made when asked). */
export interface PackedCopies {
  get(owner: string): readonly string[] | undefined;
}

/** A record's names as the writer's slots (its own first), when the entry knows them. */
function nameSlotsOf(entry: ToolCallFiles, position: number): readonly number[] | undefined {
  if (entry.nameSlotsOf === undefined || !(entry.owners instanceof TreeSlotList)) return undefined;
  return entry.nameSlotsOf(entry.owners.slotAt(position));
}

/** A record's names: its own call file, then the copies packed with it (planPacking sorted them). */
function namesOf(packedCopies: PackedCopies, owner: string): string[] {
  return [owner, ...(packedCopies.get(owner) ?? [])];
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** What planPacking decided: the tools to pack and the pack size, for writePacks. */
export interface PackingPlan {
  callFilesBefore: number;
  /** Call files of the tree that stay plain (other files under tools/, tools not worth packing). */
  callFilesAfter: number;
  /** The tools to pack, in name order. */
  tools: ToolCallFiles[];
  /** Owner → its left-out-default copies below the same tool's folder (extra names of its record), sorted. */
  packedCopies: PackedCopies;
  targetPackBytes: number;
  /** The tools' records digests, taken in the content hash's walk where it could (content-hash-step.ts). */
  recordsWalk?: WalkedRecords;
}

/** A tool's records digest (ToolRecordsDigest) taken before the pack step; undefined where it was not. */
export interface WalkedRecords {
  recordsOf(entry: ToolCallFiles, generator: string, targetPackBytes: number): string | undefined;
}

export interface PackCallFilesOptions {
  /** The previous build's packs of this output folder, reused for tools whose records are the same. */
  previous?: PreviousPacks;
  /** The generator (name and version), part of a tool's records digest. */
  generator: string;
}

/**
 * Which of `tools` to pack when the tree holds more than `maxCallFiles` call files (`0`: never);
 * `copies` are the left-out-default copies written ([copy, original]). Undefined when nothing is
 * to be packed (within the budget, or no tool's packs would take fewer files than its call files).
 */
export async function planPacking(
  output: TreeOutput,
  tools: readonly string[],
  copies: readonly [string, string][],
  maxCallFiles: number,
): Promise<PackingPlan | undefined> {
  const callFilesBefore = output.tally.callFiles;
  if (maxCallFiles === 0 || callFilesBefore <= maxCallFiles) return undefined;
  await output.writer.flush();
  const known = new Set(tools);
  const packedCopies = new Map<string, string[]>();
  const isCopy = new Set<string>();
  for (const [copy, owner] of copies) {
    isCopy.add(copy);
    // A copy elsewhere (tools/<tool>.json, the all-defaults one) stays a plain file.
    if (toolOfCallFile(copy) !== toolOfCallFile(owner)) continue;
    const list = packedCopies.get(owner) ?? [];
    if (list.length === 0) packedCopies.set(owner, list);
    list.push(copy);
  }
  for (const list of packedCopies.values()) list.sort(compareStrings);
  const byTool = new Map<string, ToolCallFiles & { owners: TreeSlotList; copies: TreeSlotList }>();
  const files = output.writer.written;
  for (let slot = 0; slot < files.slotCount; slot++) {
    if (!files.isLive(slot)) continue;
    const filePath = files.at(slot);
    const tool = toolOfCallFile(filePath);
    if (tool === undefined || !known.has(tool)) continue;
    let entry = byTool.get(tool);
    if (!entry) {
      entry = { tool, owners: new TreeSlotList(files), copies: new TreeSlotList(files), recordBytes: 0, nameCount: 0 };
      byTool.set(tool, entry);
    }
    // A copy is one more name of its original's record (an owner is always in its copy's tool).
    if (isCopy.has(filePath)) {
      entry.copies.push(slot);
      continue;
    }
    entry.owners.push(slot);
    const copiesOf = packedCopies.get(filePath) ?? [];
    const names = [files.bytesAt(slot), ...copiesOf.map((name) => Buffer.from(name))];
    entry.recordBytes += encodedRecordBytes(names, output.writer.sizeOf(filePath));
    entry.nameCount += names.length;
  }
  const entries = [...byTool.values()].sort((a, b) => compareStrings(a.tool, b.tool));
  let otherCallFiles = callFilesBefore;
  for (const entry of entries) otherCallFiles -= callFilesOf(entry);

  // 256 KiB packs (pack-writer.ts says why), doubled while the packed tree would still pass the
  // budget and doubling saves files (it cannot once every tool is one pack and one index). Up to
  // 16 MiB: packs come out up to a few % over the target, and MAX_PACK_BYTES is 24 MiB.
  const filesAt = (target: number) => {
    let files = otherCallFiles;
    for (const entry of entries) files += Math.min(callFilesOf(entry), packFilesOf(entry, target));
    return files;
  };
  let targetPackBytes = DEFAULT_TARGET_PACK_BYTES;
  while (
    filesAt(targetPackBytes) > maxCallFiles &&
    targetPackBytes * 2 <= MAX_PACK_BYTES * (2 / 3) &&
    filesAt(targetPackBytes * 2) < filesAt(targetPackBytes)
  )
    targetPackBytes *= 2;

  const packed: ToolCallFiles[] = [];
  let callFilesAfter = otherCallFiles;
  for (const entry of entries) {
    if (packFilesOf(entry, targetPackBytes) >= callFilesOf(entry)) callFilesAfter += callFilesOf(entry);
    else packed.push(entry);
  }
  if (packed.length === 0) return undefined;
  return { callFilesBefore, callFilesAfter, tools: packed, packedCopies, targetPackBytes };
}

/**
 * Replaces the planned tools' call files by their packs and indexes (or, for a tool whose records
 * are the previous build's, by the previous tree's pack files); the manifest's table is in the outcome.
 */
export async function writePacks(
  output: TreeOutput,
  plan: PackingPlan,
  options: PackCallFilesOptions = { generator: '' },
): Promise<PackingOutcome> {
  const { packedCopies } = plan;
  const table: Record<string, PackTableRow[]> = {};
  const packedTools: Record<string, PackedToolOutcome> = {};
  let packFiles = 0;
  await output.writer.flush();
  // The content hash is taken: its order is let go before the tools' records are held.
  output.writer.written.forgetOrder();
  // An edited tool's index files that come out the same are then left in place without a read.
  if (options.previous) output.writer.knownPrevious.add(options.previous.recordedFiles());
  for (const entry of plan.tools) {
    const targetPackBytes = entry.targetPackBytes ?? plan.targetPackBytes;
    // Not taken when the recorded tool's records had other bytes: they cannot be these.
    const records = options.previous?.cannotMatch(entry.tool, entry.recordBytes, targetPackBytes)
      ? ''
      : (plan.recordsWalk?.recordsOf(entry, options.generator, targetPackBytes) ??
        toolRecordsDigest(output, entry, packedCopies, options.generator, targetPackBytes));
    noteStageMemory('packs/digest');
    const { recordBytes } = entry;
    const reused = options.previous?.reusable(entry.tool, records, targetPackBytes);
    let outcome: PackedToolOutcome;
    let owners: PathsToRemove = entry.owners;
    if (reused && options.previous) {
      for (const file of reused.files)
        await output.writeFromFile(
          file.path,
          path.join(options.previous.outDir, file.path),
          Buffer.from(file.sha256, 'hex'),
          file.size,
        );
      outcome = { records, targetPackBytes, recordBytes, table: reused.table, files: reused.files };
    } else {
      // Names by their slot in the writer's paths, never a second copy of a path (pack-record-list.ts).
      const files = output.writer.written;
      const list = new PackRecordList(files);
      // In the order written: the pack writer sorts the records itself.
      for (let position = 0; position < entry.owners.length; position++) {
        const slots = nameSlotsOf(entry, position);
        const held = slots && files.heldLengthAt(slots[0]!);
        if (slots !== undefined && held !== undefined) {
          list.pushIds(slots, held);
          continue;
        }
        const owner = entry.owners.at(position);
        list.pushIds(
          namesOf(packedCopies, owner).map((name) => slotOfWritten(files, name)),
          output.writer.sizeOf(owner),
        );
      }
      if (list.nameCount === list.length && entry.owners instanceof TreeSlotList) {
        // One name a record: the list holds the owners' slots in the same order, so the owners'
        // own array is let go (4 bytes a call through the packing) and the list names them.
        owners = {
          length: list.length,
          at: (position) => list.nameAt(position),
          slotAt: (position) => list.nameIdAt(position),
        };
        entry.owners.release();
      }
      noteStageMemory('packs/list');
      // One pack's bodies in memory at a time: each is read when its pack is made, then dropped.
      const reusedPacks = new Map<string, RecordedFile>();
      const generator = generateListPacks(list, {
        tool: entry.tool,
        readBody: (owner) => output.writer.read(owner),
        readBodyInto: (owner, into) => output.writer.readInto(owner, into),
        targetPackBytes,
        // An edited tool's packs whose records are the previous build's are linked, not encoded.
        ...(options.previous ? reusingPacks(output, options.previous, entry.tool, reusedPacks) : {}),
      });
      const written: { path: string; records?: string }[] = [];
      let indexesNoted = false;
      let step = generator.next();
      for (; !step.done; step = generator.next()) {
        const { bytes, path: filePath, records: packRecords } = step.value;
        if (filePath.endsWith('.idx') && !indexesNoted) {
          indexesNoted = true;
          noteStageMemory('packs/packs');
        }
        const reused = step.value.reused ? reusedPacks.get(filePath) : undefined;
        if (reused !== undefined && options.previous) {
          const source = path.join(options.previous.outDir, filePath);
          await output.writeFromFile(filePath, source, Buffer.from(reused.sha256, 'hex'), reused.size);
        } else {
          // A view, not a copy: the pack's bytes are written once, before the generator reuses them.
          await output.write(filePath, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
          await output.writer.flush();
        }
        written.push({ path: filePath, ...(packRecords !== undefined ? { records: packRecords } : {}) });
      }
      outcome = {
        records,
        targetPackBytes,
        recordBytes,
        table: step.value,
        files: written
          .sort((left, right) => compareStrings(left.path, right.path))
          .map((file) => ({ ...file, sha256: output.writer.digestOf(file.path)!.toString('hex') })),
      };
    }
    noteStageMemory('packs/indexes');
    packFiles += outcome.files.length;
    await removeAll(output, owners);
    await removeAll(output, entry.copies);
    noteStageMemory('packs/removed');
    table[entry.tool] = outcome.table;
    packedTools[entry.tool] = outcome;
  }
  const { callFilesBefore, callFilesAfter } = plan;
  return { callFilesBefore, callFilesAfter, table, packFiles, targetPackBytes: plan.targetPackBytes, packedTools };
}

/**
 * The digest of a tool's records (pack-reuse.ts), its owners taken in path order (they come in as
 * the calls finished); that order is dropped with it, not held through the packing. For a tool
 * the content hash's walk did not take it for (records-from-hash-walk.ts).
 */
function toolRecordsDigest(
  output: TreeOutput,
  entry: ToolCallFiles,
  packedCopies: PackedCopies,
  generator: string,
  targetPackBytes: number,
): string {
  const digest = new ToolRecordsDigest(generator, entry.tool, targetPackBytes);
  const files = output.writer.written;
  const { owners } = entry;
  if (!(owners instanceof TreeSlotList)) {
    const ownerOrder = owners.sortedPositions();
    for (const position of ownerOrder)
      digest.add(namesOf(packedCopies, owners.at(position)), output.writer.digestOf(owners.at(position))!);
    releaseGrown(ownerOrder);
    return digest.digest();
  }
  // The slots themselves sorted, one array a call: positions and their slots were two.
  const slots = owners.sortedSlots();
  // A tool without copies has one name a record: its bytes, with no string made a call.
  const ownNameOnly = entry.nameSlotsOf === undefined && entry.copies.length === 0;
  let at = 0;
  try {
    // The writer's digests read in one pass over its digests' file per window (spilled-digests.ts).
    for (const ownerDigest of files.digestsInOrder(slots)) {
      const slot = slots[at++]!;
      const names = entry.nameSlotsOf?.(slot);
      if (names !== undefined) digest.addNameBytes(names.length, (index) => files.bytesAt(names[index]!), ownerDigest);
      else if (ownNameOnly) digest.addNameBytes(1, () => files.bytesAt(slot), ownerDigest);
      else digest.add(namesOf(packedCopies, files.at(slot)), ownerDigest);
    }
  } finally {
    // Given back now: freed by a collection, a buffer this size would leave glibc's heap fragmented.
    releaseGrown(slots);
  }
  return digest.digest();
}

/**
 * The pack writer's hooks that find a previous build's pack of the same records (pack-reuse.ts);
 * `found` gets each one, for the caller to link when the writer yields it.
 */
function reusingPacks(output: TreeOutput, previous: PreviousPacks, tool: string, found: Map<string, RecordedFile>) {
  return {
    bodyDigest: (owner: string) => output.writer.digestOf(owner)!,
    // The list's names are the writer's slots (PackRecordList over writer.written).
    bodyDigestOfName: (slot: number) => output.writer.written.digestAt(slot),
    reusedPack: (records: string, length: number) => {
      const file = previous.reusablePack(tool, records, length);
      if (file !== undefined) found.set(file.path, file);
      return file?.path;
    },
  };
}

/** Paths to take out of the tree, by position (and by the writer's slot, where known). */
type PathsToRemove = Pick<TreePathList, 'length' | 'at'> & { slotAt?(position: number): number };

/** Takes `paths` out of the tree a slice at a time (by slot where known), so no array of every path is made. */
async function removeAll(output: TreeOutput, paths: PathsToRemove): Promise<void> {
  if (paths.slotAt !== undefined) {
    await output.removeSlots(paths as Required<PathsToRemove>);
    return;
  }
  const slice: string[] = [];
  for (let position = 0; position < paths.length; position++) {
    slice.push(paths.at(position));
    if (slice.length === REMOVE_SLICE || position === paths.length - 1) {
      await output.remove(slice);
      slice.length = 0;
    }
  }
}

/** The slot of a file the tree holds (a packed name always is one). */
function slotOfWritten(files: FileDigests, filePath: string): number {
  const slot = files.slotOf(filePath);
  if (slot < 0) throw new Error(`${filePath} is to be packed but is not in the tree`);
  return slot;
}

/** How many call files the tool has, copies included. */
function callFilesOf(entry: ToolCallFiles): number {
  return entry.owners.length + entry.copies.length;
}

function packFilesOf(entry: ToolCallFiles, targetPackBytes: number): number {
  return maxPackFilesFor(entry.recordBytes, entry.nameCount, targetPackBytes);
}
