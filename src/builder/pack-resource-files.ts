// The resource side of the pack step (issue #39): when a tree's resource files pass what the file
// budget leaves them, they go into packs like a tool's calls (pack-call-files.ts writes them: same
// container, same writer, one more row of the manifest's pack table, RESOURCE_PACK_GROUP). What
// they get: RESOURCE_FILES_IN_MARGIN (their share of the 1,000 files the call budget leaves the
// rest of the tree), plus whatever the call files leave of `limits.maxCallFiles` after their own
// packing, so one budget covers both; `0` never packs. The files of the resources mcp.json lists
// inline stay plain (both names), so what another StaticMCP bridge lists it can also read; the rest
// are packed, a raw-name copy becoming one more name of its encoded file's record (same bytes).
// Skill files (skills/files/) ride the same packs; skills/list.json stays plain.
import { encodedRecordBytes } from '../core/packs/pack-encoding.js';
import { isPackableResourceFile, RESOURCE_PACK_GROUP } from '../core/packs/pack-table.js';
import { encodedTwinOf, rawResourceFilePath, resourceFilePath } from '../core/tree/resource-key.js';
import { grownTypedArray } from '../tree-writer/grown-typed-array.js';
import { sortPositions } from '../tree-writer/sort-positions.js';
import { DEFAULT_TARGET_PACK_BYTES, MAX_PACK_BYTES, maxPackFilesFor } from '../tree-writer/pack-writer.js';
import { formatCount } from '../shared/format-count.js';
import type { BuildProblem } from './build-report.js';
import { type PackingOutcome, readResourceFilesInMargin } from './host-limits.js';
import { TreeSlotList } from './tree-slot-list.js';
import type { PackedCopies, PackingPlan, ToolCallFiles } from './pack-call-files.js';
import type { TreeOutput } from './tree-output.js';
import type { FileDigests } from '../tree-writer/file-digests.js';

/** The resource group to pack, with its own pack size and its copies (owner → other names). */
export interface ResourcePackingPlan {
  entry: ToolCallFiles & { targetPackBytes: number };
  copies: PackedCopies;
  /** Resource files in the tree before packing. */
  filesBefore: number;
}

/**
 * The raw-name copies packed with their encoded twins, looked up by the twin (owner): the copies'
 * positions in their slot list ordered by their twin's slot in the writer's paths (8 bytes a copy
 * with the twins' slots), found by a binary search on the owner's slot. No path is encoded or
 * read back to find them (the pack step asks twice a resource), and no Map of path strings is
 * held (~200 bytes of heap a resource, for the rest of the build).
 */
class RawNameCopies implements PackedCopies {
  /** Positions in `names`, by twin slot, then position. */
  private readonly byTwin: Uint32Array;

  constructor(
    private readonly names: TreeSlotList,
    /** Each copy's twin's slot, by the copy's position in `names`. */
    private readonly twinSlots: Uint32Array,
    private readonly files: FileDigests,
  ) {
    this.byTwin = new Uint32Array(names.length);
    for (let position = 0; position < names.length; position++) this.byTwin[position] = position;
    sortPositions(this.byTwin, (left, right) => twinSlots[left]! - twinSlots[right]! || left - right);
  }

  /** Where the copies of `owner` (a twin) start in byTwin (byTwin.length when it has none). */
  private firstAt(owner: string): number {
    return this.firstAtSlot(this.files.slotOf(owner));
  }

  /** firstAt by the owner's slot (-1: not in the tree). */
  private firstAtSlot(slot: number): number {
    let low = 0;
    let high = this.byTwin.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.twinSlots[this.byTwin[middle]!]! < slot) low = middle + 1;
      else high = middle;
    }
    return slot >= 0 && low < this.byTwin.length && this.twinSlots[this.byTwin[low]!] === slot
      ? low
      : this.byTwin.length;
  }

  get(owner: string): string[] | undefined {
    let at = this.firstAt(owner);
    if (at === this.byTwin.length) return undefined;
    const slot = this.twinSlots[this.byTwin[at]!];
    const names: string[] = [];
    for (; at < this.byTwin.length && this.twinSlots[this.byTwin[at]!] === slot; at++)
      names.push(this.names.at(this.byTwin[at]!));
    return names.sort();
  }

  /** The slots of the owner in `slot` and of its copies, in their names' order (get's, by slot). */
  nameSlotsOf(slot: number): readonly number[] {
    let at = this.firstAtSlot(slot);
    const slots = [slot];
    for (; at < this.byTwin.length && this.twinSlots[this.byTwin[at]!] === slot; at++)
      slots.push(this.names.slotAt(this.byTwin[at]!));
    // In get's order (names.sort()): a resource has one raw-name copy at most, so this rarely sorts.
    if (slots.length > 2) {
      const copies = slots.slice(1).sort((left, right) => this.files.compare(left, right));
      slots.splice(1, copies.length, ...copies);
    }
    return slots;
  }
}

/** The plain files of the resources listed inline: their encoded and raw names. */
export function inlineResourceFiles(inlineUris: Iterable<string>): Set<string> {
  const files = new Set<string>();
  for (const uri of inlineUris) {
    files.add(resourceFilePath(uri));
    const raw = rawResourceFilePath(uri);
    if (raw !== undefined) files.add(raw);
  }
  return files;
}

/**
 * Whether and how to pack the tree's resource files, once every one is written: undefined when they
 * fit what the budget leaves them (`callFilesAfter`: the call files left plain after call packing),
 * or when packs would not take fewer files.
 */
export async function planResourcePacking(
  output: TreeOutput,
  keepPlain: ReadonlySet<string>,
  maxCallFiles: number,
  callFilesAfter: number,
): Promise<ResourcePackingPlan | undefined> {
  if (maxCallFiles === 0) return undefined;
  await output.writer.flush();
  const { writer } = output;
  const room = Math.max(readResourceFilesInMargin(), maxCallFiles - callFilesAfter);
  // The writer's slots (4 bytes a file), not a copy of each path: held until the pack step.
  const files = writer.written;
  const owners = new TreeSlotList(files);
  const copyNames = new TreeSlotList(files);
  /** Each copy's twin's slot, by the copy's position in copyNames. */
  let twinSlots = new Uint32Array(256);
  const packable = (filePath: string) => isPackableResourceFile(filePath) && !keepPlain.has(filePath);
  // One pass, each path decoded once (two walks of every path were most of this step in an edit
  // build): the count before packing, the owners and copies, and their records' bytes. A copy's
  // twin is always an owner (an encoded name has no twin), so the bytes a copy adds to its twin's
  // record (its name: 2 bytes of length and its UTF-8 bytes) are summed with the copy.
  let filesBefore = 0;
  let recordBytes = 0;
  for (let slot = 0; slot < files.slotCount; slot++) {
    if (!files.isLive(slot)) continue;
    const filePath = files.at(slot);
    if (!isPackableResourceFile(filePath)) continue;
    filesBefore += 1;
    if (keepPlain.has(filePath)) continue;
    const twin = encodedTwinOf(filePath);
    // The same bytes under two names: one record, two names (only when the twin is packed too).
    const twinSlot = twin !== undefined && packable(twin) ? files.slotOf(twin) : -1;
    const nameBytes = 2 + Buffer.byteLength(filePath);
    if (twinSlot >= 0 && files.sameDigestAt(twinSlot, slot)) {
      twinSlots = grownTypedArray(twinSlots, copyNames.length + 1);
      twinSlots[copyNames.length] = twinSlot;
      copyNames.push(slot);
      recordBytes += nameBytes;
    } else {
      owners.push(slot);
      // encodedRecordBytes from the lengths (no buffer or list a record): no path made or looked
      // up again for a spooled or deferred one.
      recordBytes += encodedRecordBytes([], files.heldLengthAt(slot) ?? writer.sizeOf(filePath)) + nameBytes;
    }
  }
  if (filesBefore <= room) return undefined;
  const copies = new RawNameCopies(copyNames, twinSlots, files);
  const nameCount = owners.length + copyNames.length;
  const plainFiles = owners.length + copyNames.length;
  const keptFiles = filesBefore - plainFiles;
  // The smallest packs that fit the room (pack-call-files.ts says why small), up to 16 MiB.
  let targetPackBytes = DEFAULT_TARGET_PACK_BYTES;
  const filesAt = (target: number) => keptFiles + maxPackFilesFor(recordBytes, nameCount, target);
  while (
    filesAt(targetPackBytes) > room &&
    targetPackBytes * 2 <= MAX_PACK_BYTES * (2 / 3) &&
    filesAt(targetPackBytes * 2) < filesAt(targetPackBytes)
  )
    targetPackBytes *= 2;
  if (maxPackFilesFor(recordBytes, nameCount, targetPackBytes) >= plainFiles) return undefined;
  return {
    entry: {
      tool: RESOURCE_PACK_GROUP,
      owners,
      copies: copyNames,
      recordBytes,
      nameCount,
      targetPackBytes,
      nameSlotsOf: (slot) => copies.nameSlotsOf(slot),
    },
    copies,
    filesBefore,
  };
}

/** The call plan with the resource group added (a plan of its own when no call is packed). */
export function withResourcePacking(
  callPlan: PackingPlan | undefined,
  resources: ResourcePackingPlan | undefined,
  callFiles: number,
): PackingPlan | undefined {
  if (resources === undefined) return callPlan;
  const base: PackingPlan = callPlan ?? {
    callFilesBefore: callFiles,
    callFilesAfter: callFiles,
    tools: [],
    packedCopies: new Map<string, string[]>(),
    targetPackBytes: DEFAULT_TARGET_PACK_BYTES,
  };
  return {
    ...base,
    // After the tools: the table keeps the tools' rows first, as before.
    tools: [...base.tools, resources.entry],
    // Call files and resource files never share a name.
    packedCopies: { get: (owner) => base.packedCopies.get(owner) ?? resources.copies.get(owner) },
  };
}

/** The build's (and merge's) word that resources were packed, and what other bridges then see. */
export function resourcePackingWarning(
  plan: ResourcePackingPlan | undefined,
  packing: PackingOutcome | undefined,
  inlineCount: number,
): BuildProblem[] {
  const written = packing?.packedTools[RESOURCE_PACK_GROUP];
  if (plan === undefined || written === undefined) return [];
  return [
    {
      path: '.',
      message:
        `${formatCount(plan.filesBefore)} resource files, more than the file budget leaves them (limits.maxCallFiles in staticmcp.json, or --max-call-files): ` +
        `all but those of the ${formatCount(inlineCount)} resources mcp.json lists inline went into ${formatCount(written.files.length)} pack and index files under packs/${RESOURCE_PACK_GROUP}/, ` +
        "which only staticmcp's readers understand (other StaticMCP bridges list and read the inline ones); set the budget to 0 for plain files",
    },
  ];
}
