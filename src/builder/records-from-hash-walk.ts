// The pack step's records digests (pack-reuse.ts ToolRecordsDigest), taken during the content
// hash's walk of every file in path order (content-hash.ts hashSlotsBy), for the packed tools:
// their owners come by in that walk already sorted, so the pack step needs no sort of its own (an
// array of every owner's slot plus half as much scratch, at the top of the build's peak) and no
// second read of the owners' digests. The digest is the one writePacks would take (pack-call-files.ts
// toolRecordsDigest), in its owners' order as strings compare (UTF-16): the walk's order (UTF-8
// bytes) is the same unless a path holds a character past U+FFFF, and a tool with one such owner
// path is left to writePacks, as is one whose owners the walk did not all see (a hash taken from
// its record, content-hash-state.ts) and the resource group (its owners are not under one folder).
import type { HashObserver } from '../tree-writer/content-hash.js';
import type { FileDigests } from '../tree-writer/file-digests.js';
import type { PackedCopies, PackingPlan, ToolCallFiles, WalkedRecords } from './pack-call-files.js';
import { ToolRecordsDigest } from './pack-reuse.js';
import { TreeSlotList } from './tree-slot-list.js';

/** A UTF-8 byte that starts a character past U+FFFF (four bytes; a surrogate pair in UTF-16). */
const FOUR_BYTE_LEAD = 0xf0;

interface WalkedTool {
  entry: ToolCallFiles;
  /** `tools/<tool>/` as UTF-8: every owner's path starts with it (packable-call-file.ts toolOfCallFile). */
  prefix: Buffer;
  digest: ToolRecordsDigest;
  targetPackBytes: number;
  /** Whether its only names are the owners' own paths (no copies): no string made per record. */
  ownNameOnly: boolean;
  seen: number;
  /** False once an owner's path would sort elsewhere as a string than as bytes. */
  usable: boolean;
}

export class RecordsFromHashWalk implements HashObserver, WalkedRecords {
  /** One bit a slot of the writer's: set for an owner of a walked tool. */
  private owners: Uint8Array;
  private readonly tools: WalkedTool[] = [];
  private current: WalkedTool | undefined;
  /** The path bytes addNameBytes takes, set before each call. */
  private name: Uint8Array = new Uint8Array(0);
  private readonly nameAt = () => this.name;
  private readonly packedCopies: PackedCopies;

  constructor(
    private readonly files: FileDigests,
    plan: PackingPlan,
    private readonly generator: string,
  ) {
    this.packedCopies = plan.packedCopies;
    this.owners = new Uint8Array((files.slotCount + 7) >>> 3);
    for (const entry of plan.tools) {
      const { owners } = entry;
      if (entry.nameSlotsOf !== undefined || !(owners instanceof TreeSlotList)) continue;
      const targetPackBytes = entry.targetPackBytes ?? plan.targetPackBytes;
      this.tools.push({
        entry,
        prefix: Buffer.from(`tools/${entry.tool}/`),
        digest: new ToolRecordsDigest(generator, entry.tool, targetPackBytes),
        targetPackBytes,
        ownNameOnly: entry.copies.length === 0,
        seen: 0,
        usable: true,
      });
      for (let position = 0; position < owners.length; position++) {
        const slot = owners.slotAt(position);
        this.owners[slot >>> 3]! |= 1 << (slot & 7);
      }
    }
  }

  observe(slot: number, pathBytes: Uint8Array, digest: Uint8Array): void {
    if (slot >= this.owners.length << 3 || (this.owners[slot >>> 3]! & (1 << (slot & 7))) === 0) return;
    let tool = this.current;
    if (tool === undefined || !startsWith(pathBytes, tool.prefix)) {
      tool = this.tools.find((walked) => startsWith(pathBytes, walked.prefix));
      if (tool === undefined) return;
      this.current = tool;
    }
    tool.seen += 1;
    if (!tool.usable) return;
    for (let index = tool.prefix.length; index < pathBytes.length; index++)
      if (pathBytes[index]! >= FOUR_BYTE_LEAD) {
        tool.usable = false;
        return;
      }
    this.name = pathBytes;
    if (tool.ownNameOnly) tool.digest.addNameBytes(1, this.nameAt, digest);
    else {
      const owner = this.files.at(slot);
      tool.digest.add([owner, ...(this.packedCopies.get(owner) ?? [])], digest);
    }
  }

  /**
   * The records digest of `entry` as writePacks takes it (with `generator` and `targetPackBytes`),
   * or undefined where the walk could not take it; asked once per tool.
   */
  recordsOf(entry: ToolCallFiles, generator: string, targetPackBytes: number): string | undefined {
    const tool = this.tools.find((walked) => walked.entry === entry);
    if (tool === undefined || !tool.usable || tool.seen !== entry.owners.length) return undefined;
    if (generator !== this.generator || targetPackBytes !== tool.targetPackBytes) return undefined;
    tool.usable = false;
    return tool.digest.digest();
  }

  /** Gives the owners' bits back: the walk is over (a later one is not observed). */
  endWalk(): void {
    this.owners = new Uint8Array(0);
  }
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}
