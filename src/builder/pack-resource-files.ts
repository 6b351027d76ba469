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
import { DEFAULT_TARGET_PACK_BYTES, MAX_PACK_BYTES, maxPackFilesFor } from '../tree-writer/pack-writer.js';
import { formatCount } from '../shared/format-count.js';
import type { BuildProblem } from './build-report.js';
import { type PackingOutcome, RESOURCE_FILES_IN_MARGIN } from './host-limits.js';
import { HashedKeyMap } from './hashed-key-map.js';
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
 * The raw-name copies packed with their encoded twins, looked up by the twin (owner): held as the
 * copies' positions in their slot list by a hash of the twin (hashed-key-map.ts), not as a Map of
 * path strings (~200 bytes of heap a resource, for the rest of the build).
 */
class RawNameCopies implements PackedCopies {
  private readonly first: HashedKeyMap;
  /** The next copy of the same twin (position + 1; 0: none). */
  private readonly next: Uint32Array;

  constructor(
    private readonly names: TreeSlotList,
    files: FileDigests,
  ) {
    // Each copy's twin by its slot in the writer's paths (4 bytes a copy): a lookup reads the twin's
    // path back instead of encoding the copy's name again (three lookups a resource an edit build).
    const twinSlots = new Uint32Array(names.length);
    this.first = new HashedKeyMap((position) => files.at(twinSlots[position]!));
    this.next = new Uint32Array(names.length);
    for (let position = 0; position < names.length; position++) {
      const twin = encodedTwinOf(names.at(position))!;
      // A copy's twin is in the tree (planResourcePacking made it a copy for that).
      twinSlots[position] = files.slotOf(twin);
      const held = this.first.get(twin);
      if (held === undefined) {
        this.first.set(twin, position);
        continue;
      }
      let last = held;
      while (this.next[last] !== 0) last = this.next[last]! - 1;
      this.next[last] = position + 1;
    }
  }

  get(owner: string): string[] | undefined {
    const first = this.first.get(owner);
    if (first === undefined) return undefined;
    const names: string[] = [];
    for (let position = first; ; position = this.next[position]! - 1) {
      names.push(this.names.at(position));
      if (this.next[position] === 0) break;
    }
    return names.sort();
  }

  /** The number of `owner`'s copies and their names' UTF-8 bytes, without making the names' list. */
  measure(owner: string): { count: number; nameBytes: number } {
    const first = this.first.get(owner);
    if (first === undefined) return { count: 0, nameBytes: 0 };
    let count = 0;
    let nameBytes = 0;
    for (let position = first; ; position = this.next[position]! - 1) {
      count += 1;
      nameBytes += Buffer.byteLength(this.names.at(position));
      if (this.next[position] === 0) break;
    }
    return { count, nameBytes };
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
  const room = Math.max(RESOURCE_FILES_IN_MARGIN, maxCallFiles - callFilesAfter);
  let filesBefore = 0;
  for (const filePath of writer.paths()) if (isPackableResourceFile(filePath)) filesBefore += 1;
  if (filesBefore <= room) return undefined;

  // The writer's slots (4 bytes a file), not a copy of each path: held until the pack step.
  const files = writer.written;
  const owners = new TreeSlotList(files);
  const copyNames = new TreeSlotList(files);
  const packable = (filePath: string) => isPackableResourceFile(filePath) && !keepPlain.has(filePath);
  for (let slot = 0; slot < files.slotCount; slot++) {
    if (!files.isLive(slot)) continue;
    const filePath = files.at(slot);
    if (!packable(filePath)) continue;
    const twin = encodedTwinOf(filePath);
    // The same bytes under two names: one record, two names (only when the twin is packed too).
    if (twin !== undefined && packable(twin) && files.sameDigest(twin, filePath)) {
      copyNames.push(slot);
    } else owners.push(slot);
  }
  const copies = new RawNameCopies(copyNames, files);
  let recordBytes = 0;
  let nameCount = 0;
  for (let position = 0; position < owners.length; position++) {
    const owner = owners.at(position);
    // encodedRecordBytes of the owner's names, from their lengths (no buffer or list a record).
    const copied = copies.measure(owner);
    const names = 1 + copied.count;
    recordBytes +=
      encodedRecordBytes([], writer.sizeOf(owner)) + 2 * names + Buffer.byteLength(owner) + copied.nameBytes;
    nameCount += names;
  }
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
    entry: { tool: RESOURCE_PACK_GROUP, owners, copies: copyNames, recordBytes, nameCount, targetPackBytes },
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
