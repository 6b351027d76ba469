// Incremental packing (issue #24: "a one-tool edit rewrites only that tool's packs"): after a
// packed build, the project's .staticmcp/packs.json records, per packed tool, a digest of its
// records (each call's names and its file's sha256, which the tree writer already holds, so no
// call file is read for it), the pack size aimed at, its rows of the pack table, and the identity
// of each pack and index file in the output folder (inode, size, mtime, sha256). The next build's
// pack step (pack-call-files.ts) hard-links a tool's packs from the previous tree when its digest
// is the same and every one of those files is provably untouched since, instead of reading its
// call files back and encoding them again; an edited tool is packed as before. The packs of one
// digest are byte-identical whichever build wrote them (pack-writer.ts is deterministic and the
// digest covers its inputs and the generator's version), so a reused tool's files are the ones a
// fresh build writes. Any doubt (no record, another output folder, a file touched, a record whose
// checksum does not match) means "pack".
// A tool whose records did change still links each pack whose own records digest (pack-writer.ts)
// is a recorded pack's: a one-document edit re-encodes the one resource pack that holds it.
// The record also keeps the encoded bytes of a tool's records (the plan's sum, from sizes alone):
// records of other bytes cannot be the recorded ones, so their digest, a walk of every record in
// path order, is not taken, and the tool is recorded without one (never reused whole next time).
import { createHash } from 'node:crypto';
import { type BigIntStats, promises as fs, lstatSync } from 'node:fs';
import path from 'node:path';
import { PACKS_FOLDER } from '../core/packs/pack-format.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import { assertPlainTreePath } from '../core/tree/tree-path.js';
import { isUntouched, type RecordedFile, recordedFileOf } from './recorded-file.js';

const RECORD_FILE = path.join('.staticmcp', 'packs.json');

/** One pack or index file of a recorded tool, as it was in the output folder after the build. */
type RecordedPackFile = RecordedFile & {
  /** A pack's records digest (pack-writer.ts): an edited tool's other packs are linked by it. */
  records?: string;
};

/** What a packed tool left in the tree, and the digest of the records it was packed from. */
export interface RecordedPackedTool {
  records: string;
  targetPackBytes: number;
  /** The records' encoded bytes (the plan's `recordBytes`): records of other bytes are other records. */
  recordBytes?: number;
  table: PackTableRow[];
  files: RecordedPackFile[];
}

interface PackRecordFile {
  outDir: string;
  generator: string;
  tools: Record<string, RecordedPackedTool>;
  /** sha256 of `tools` as JSON: a damaged or hand-edited record is not used at all. */
  checksum?: string;
}

function checksumOf(tools: Record<string, RecordedPackedTool>): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex');
}

/** A tool's packs as the build wrote them: its records' digest, its table rows and its files' digests. */
export interface PackedToolOutcome {
  /** The tool's records digest; '' when it was not taken (the recorded tool's could not match). */
  records: string;
  targetPackBytes: number;
  recordBytes?: number;
  table: PackTableRow[];
  files: { path: string; sha256: string; records?: string }[];
}

/** The packs of the previous build of one output folder, for the pack step to reuse. */
export class PreviousPacks {
  /** Per tool, its recorded packs by records digest (made when first asked). */
  private readonly packsByRecords = new Map<string, Map<string, RecordedPackFile>>();

  constructor(
    readonly outDir: string,
    private readonly tools: Readonly<Record<string, RecordedPackedTool>>,
  ) {}

  /**
   * One pack of a tool whose records changed (issue #39: a one-document edit re-encodes one
   * resource pack): the recorded pack of these records, `size` bytes, still untouched in the output
   * folder; otherwise undefined.
   */
  reusablePack(tool: string, records: string, size: number): RecordedPackFile | undefined {
    let byRecords = this.packsByRecords.get(tool);
    if (byRecords === undefined) {
      byRecords = new Map();
      const recorded = Object.hasOwn(this.tools, tool) ? this.tools[tool] : undefined;
      const ownFolder = `${PACKS_FOLDER}${tool}/`;
      for (const file of Array.isArray(recorded?.files) ? recorded.files : []) {
        // The record is the project's own file, but an edited one must not put other paths in the tree.
        if (typeof file.records !== 'string' || typeof file.path !== 'string' || !file.path.endsWith('.pack')) continue;
        if (!file.path.startsWith(ownFolder) || file.path.indexOf('/', ownFolder.length) >= 0) continue;
        byRecords.set(file.records, file);
      }
      this.packsByRecords.set(tool, byRecords);
    }
    const file = byRecords.get(records);
    if (file === undefined || file.size !== size) return undefined;
    try {
      assertPlainTreePath(file.path, 'a recorded pack file');
    } catch {
      return undefined;
    }
    return isUntouched(path.join(this.outDir, file.path), file) ? file : undefined;
  }

  /** Every recorded pack and index file, of every tool (the tree writer checks each before use). */
  *recordedFiles(): Iterable<RecordedFile> {
    for (const tool of Object.values(this.tools)) if (Array.isArray(tool?.files)) yield* tool.files;
  }

  /**
   * Whether the recorded tool's records are provably not records of `recordBytes` bytes packed at
   * `targetPackBytes` (their digest is then not worth taking: a one-document edit changes a size).
   */
  cannotMatch(tool: string, recordBytes: number, targetPackBytes: number): boolean {
    const recorded = Object.hasOwn(this.tools, tool) ? this.tools[tool] : undefined;
    if (recorded === undefined || typeof recorded.recordBytes !== 'number') return false;
    return recorded.recordBytes !== recordBytes || recorded.targetPackBytes !== targetPackBytes;
  }

  /**
   * The recorded tool when its records digest and pack size are these and each of its files is
   * still in the output folder untouched (same inode, size and mtime); otherwise undefined.
   */
  reusable(tool: string, records: string, targetPackBytes: number): RecordedPackedTool | undefined {
    const recorded = Object.hasOwn(this.tools, tool) ? this.tools[tool] : undefined;
    if (!recorded || records === '' || recorded.records !== records || recorded.targetPackBytes !== targetPackBytes)
      return undefined;
    try {
      // The record is the project's own file, but an edited one must not put paths outside the
      // tool's packs folder into the tree or its table.
      const ownFolder = `${PACKS_FOLDER}${tool}/`;
      const paths = new Set(recorded.files.map((file) => file.path));
      if (!recorded.table.every((row) => paths.has(row.index))) return undefined;
      for (const file of recorded.files) {
        assertPlainTreePath(file.path, 'a recorded pack file');
        if (!file.path.startsWith(ownFolder) || file.path.indexOf('/', ownFolder.length) >= 0) return undefined;
        if (!isUntouched(path.join(this.outDir, file.path), file)) return undefined;
      }
    } catch {
      return undefined;
    }
    return recorded;
  }
}

/** The digest of a tool's records: its name, the pack size, and each record's names and body digest in order. */
export class ToolRecordsDigest {
  private readonly hash = createHash('sha256');
  /** addNameBytes's record, reused. */
  private scratch = Buffer.alloc(256);

  constructor(generator: string, tool: string, targetPackBytes: number) {
    this.hash.update(`${generator}\0${tool}\0${targetPackBytes}\n`);
  }

  /** Adds one record (call these in a fixed order: the owners sorted). */
  add(paths: readonly string[], bodyDigest: Uint8Array): void {
    this.hash.update(paths.join('\0'));
    this.hash.update('\0');
    this.hash.update(bodyDigest);
    this.hash.update('\n');
  }

  /**
   * add, from the names' UTF-8 bytes (`nameAt(index)`: a view, valid until the next call), in one
   * update: the same bytes as add's four.
   */
  addNameBytes(count: number, nameAt: (index: number) => Uint8Array, bodyDigest: Uint8Array): void {
    let at = 0;
    for (let index = 0; index < count; index += 1) {
      const name = nameAt(index);
      this.reserve(at + name.length + 1);
      if (index > 0) this.scratch[at++] = 0;
      this.scratch.set(name, at);
      at += name.length;
    }
    this.reserve(at + bodyDigest.length + 2);
    this.scratch[at++] = 0;
    this.scratch.set(bodyDigest, at);
    at += bodyDigest.length;
    this.scratch[at++] = 0x0a;
    this.hash.update(this.scratch.subarray(0, at));
  }

  /** Grows the scratch record to hold `length` bytes, keeping what it holds. */
  private reserve(length: number): void {
    if (this.scratch.length >= length) return;
    const grown = Buffer.alloc(Math.max(length, this.scratch.length * 2));
    this.scratch.copy(grown);
    this.scratch = grown;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The previous build's packs of `outDir` (resolved), or none when there is no usable record. */
export async function readPreviousPacks(
  projectRoot: string,
  outDir: string,
  generator: string,
): Promise<PreviousPacks> {
  try {
    const record = JSON.parse(await fs.readFile(path.join(projectRoot, RECORD_FILE), 'utf8')) as PackRecordFile;
    if (
      record.outDir === outDir &&
      record.generator === generator &&
      typeof record.tools === 'object' &&
      record.checksum === checksumOf(record.tools)
    )
      return new PreviousPacks(outDir, record.tools ?? {});
  } catch {
    // No record, or an unreadable one: nothing to reuse.
  }
  return new PreviousPacks(outDir, {});
}

/**
 * Records the packed tools of the tree now in `outDir` (after its swap, or after a build that found
 * it unchanged), each file's identity taken from the output folder. No packed tool: the record goes.
 */
export async function recordPacks(
  projectRoot: string,
  outDir: string,
  generator: string,
  packed: Readonly<Record<string, PackedToolOutcome>>,
): Promise<void> {
  const file = path.join(projectRoot, RECORD_FILE);
  if (Object.keys(packed).length === 0) {
    await fs.rm(file, { force: true });
    return;
  }
  const tools: Record<string, RecordedPackedTool> = {};
  for (const [tool, outcome] of Object.entries(packed)) {
    const files: RecordedPackFile[] = [];
    for (const written of outcome.files) {
      let stats: BigIntStats;
      try {
        stats = lstatSync(path.join(outDir, written.path), { bigint: true });
      } catch {
        // Gone already (something else wrote the folder): nothing of this tool can be reused.
        files.length = 0;
        break;
      }
      const recorded = recordedFileOf(written.path, written.sha256, stats);
      files.push(written.records !== undefined ? { ...recorded, records: written.records } : recorded);
    }
    if (files.length !== outcome.files.length) continue;
    const { records, targetPackBytes, recordBytes, table } = outcome;
    tools[tool] = { records, targetPackBytes, ...(recordBytes !== undefined ? { recordBytes } : {}), table, files };
  }
  const record: PackRecordFile = { outDir, generator, tools, checksum: checksumOf(tools) };
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(record));
  await fs.rename(temp, file);
}
