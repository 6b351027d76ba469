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
// Cost: the call files are written as usual, then each packed tool's are read back once (one
// tool's bodies in memory at a time), its packs written and its call files removed: about one more
// read and one unlink per call file, and a tool's bytes of memory at the peak.
import type { PackTableRow } from '../core/packs/pack-table.js';
import { encodedRecordBytes } from '../core/packs/pack-format.js';
import { utf8Bytes } from '../core/tree/utf8.js';
import {
  DEFAULT_TARGET_PACK_BYTES,
  MAX_PACK_BYTES,
  maxPackFilesFor,
  type PackRecord,
  packToolRecords,
} from '../tree-writer/pack-writer.js';
import type { PackingOutcome } from './host-limits.js';
import type { TreeOutput } from './tree-output.js';

export interface ToolCallFiles {
  tool: string;
  /** Call files that are not copies, in the order written (the pack writer sorts records itself). */
  owners: string[];
  /** Every call file of the tool, copies included. */
  all: string[];
  recordBytes: number;
  nameCount: number;
}

/**
 * The tool of a packable call file, `tools/<tool>/….json`. `tools/<tool>.json` (a tool without
 * parameters, or the all-defaults-left-out copy) stays a plain file: readers look packs up only
 * below a tool's folder (core/packs/packed-tree-source.ts), and it is one file per tool.
 */
function toolOfCallFile(filePath: string): string | undefined {
  if (!filePath.startsWith('tools/') || !filePath.endsWith('.json')) return undefined;
  const slash = filePath.indexOf('/', 'tools/'.length);
  return slash < 0 ? undefined : filePath.slice('tools/'.length, slash);
}

/** The copies of `owner` that are packed with it (those below its tool's folder). */
function packedCopiesOf(copiesOf: ReadonlyMap<string, string[]>, owner: string, tool: string): string[] {
  return (copiesOf.get(owner) ?? []).filter((copy) => toolOfCallFile(copy) === tool).sort(compareStrings);
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
  copiesOf: ReadonlyMap<string, string[]>;
  targetPackBytes: number;
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
  const copiesOf = new Map<string, string[]>();
  const isCopy = new Set<string>();
  for (const [copy, owner] of copies) {
    isCopy.add(copy);
    const list = copiesOf.get(owner) ?? [];
    if (list.length === 0) copiesOf.set(owner, list);
    list.push(copy);
  }
  const byTool = new Map<string, ToolCallFiles>();
  for (const filePath of output.writer.paths()) {
    const tool = toolOfCallFile(filePath);
    if (tool === undefined || !known.has(tool)) continue;
    let entry = byTool.get(tool);
    if (!entry) {
      entry = { tool, owners: [], all: [], recordBytes: 0, nameCount: 0 };
      byTool.set(tool, entry);
    }
    entry.all.push(filePath);
    // A copy is one more name of its original's record (an owner is always in its copy's tool).
    if (isCopy.has(filePath)) continue;
    entry.owners.push(filePath);
    const names = [filePath, ...packedCopiesOf(copiesOf, filePath, tool)].map((name) => utf8Bytes(name));
    entry.recordBytes += encodedRecordBytes(names, output.writer.sizeOf(filePath));
    entry.nameCount += names.length;
  }
  const entries = [...byTool.values()].sort((a, b) => compareStrings(a.tool, b.tool));
  let otherCallFiles = callFilesBefore;
  for (const entry of entries) otherCallFiles -= entry.all.length;

  // 256 KiB packs (pack-writer.ts says why), doubled while the packed tree would still pass the
  // budget and doubling saves files (it cannot once every tool is one pack and one index). Up to
  // 16 MiB: packs come out up to a few % over the target, and MAX_PACK_BYTES is 24 MiB.
  const filesAt = (target: number) => {
    let files = otherCallFiles;
    for (const entry of entries) files += Math.min(entry.all.length, packFilesOf(entry, target));
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
    if (packFilesOf(entry, targetPackBytes) >= entry.all.length) callFilesAfter += entry.all.length;
    else packed.push(entry);
  }
  if (packed.length === 0) return undefined;
  return { callFilesBefore, callFilesAfter, tools: packed, copiesOf, targetPackBytes };
}

/** Replaces the planned tools' call files by their packs and indexes; the manifest's table is in the outcome. */
export async function writePacks(output: TreeOutput, plan: PackingPlan): Promise<PackingOutcome> {
  const table: Record<string, PackTableRow[]> = {};
  let packFiles = 0;
  await output.writer.flush();
  for (const entry of plan.tools) {
    const records: PackRecord[] = entry.owners.map((owner) => ({
      paths: [owner, ...packedCopiesOf(plan.copiesOf, owner, entry.tool)],
      bytes: output.writer.read(owner),
    }));
    const packed = packToolRecords({ tool: entry.tool, records, targetPackBytes: plan.targetPackBytes });
    for (const file of packed.files) await output.write(file.path, Buffer.from(file.bytes));
    packFiles += packed.files.length;
    await output.remove(entry.all);
    table[entry.tool] = packed.table;
  }
  const { callFilesBefore, callFilesAfter, targetPackBytes } = plan;
  return { callFilesBefore, callFilesAfter, table, packFiles, targetPackBytes };
}

function packFilesOf(entry: ToolCallFiles, targetPackBytes: number): number {
  return maxPackFilesFor(entry.recordBytes, entry.nameCount, targetPackBytes);
}
