// What `check` asks of one packed tool (issue #24), portable so any host can run it: every index of
// the pack table loads and covers only keys of its own row's range; every index and pack is named
// by its content hash; every pack is whole (records tile it exactly, checksums hold, the header's
// count is right); every entry points at the start of a record that names it; and every name of
// every record is reachable by the lookup a reader does. Each problem is one line saying what is
// wrong and where; an empty list means the tool's packs are sound.
import { hexOfBytes } from './hex-of-bytes.js';
import { sha256HexOfBytes } from '../tree/sha256.js';
import {
  callKeyOf,
  compareKeys,
  entryKey,
  KEY_KIND,
  type PackProblem,
  type ParsedIndex,
  parseIndex,
  parsePack,
  readEntry,
} from './pack-format.js';
import { type ByteRange, type BytesOutcome, type PackFileSource, PackReader } from './pack-reader.js';
import type { PackTableRow } from './pack-table.js';

const REBUILD = 'build the tree again';
/** What to do about a pack or index the host does not have (or answers with a page of its own). */
const DEPLOY_ALL =
  'deploy (or copy) the whole tree, packs/ included: an upload that leaves out binary or unknown files loses them';

/**
 * A read index or pack, parsed (with its bytes); or the problem line: missing on the host, answered with a page of
 * the host's own (HTML with status 200 fails the magic: missing too), or refused by the parser.
 */
function parseRead<Parsed extends object>(
  read: BytesOutcome,
  parse: (bytes: Uint8Array) => Parsed | PackProblem,
  missing: string,
): { parsed: Parsed; bytes: Uint8Array } | string {
  if (read.status === 'missing') return `${missing}; ${DEPLOY_ALL}`;
  const parsed = parse(read.bytes);
  if (!('status' in parsed)) return { parsed, bytes: read.bytes };
  return parsed.status === 'missing'
    ? `${missing} (the host answered something else: its page for a missing file?); ${DEPLOY_ALL}`
    : parsed.reason;
}

/** What a caller of verifyPackedTool sees of the files it reads (each once). */
export interface PackVisitor {
  /** An index that parsed (the packs it names, whether present or not). */
  onIndex?(indexPath: string, index: ParsedIndex): void;
  /** A pack that parsed whole, with its records. */
  onPack?(packPath: string, records: readonly ParsedPackRecord[]): void | Promise<void>;
}

type ParsedPackRecord = Exclude<ReturnType<typeof parsePack>, PackProblem>['records'][number];

/** The problems of `tool`'s packs, read whole through `files` (at most one pack at a time in memory, plus its tool's indexes). */
export async function verifyPackedTool(
  tool: string,
  rows: readonly PackTableRow[],
  files: PackFileSource,
  seen: PackVisitor = {},
): Promise<string[]> {
  const problems: string[] = [];
  const indexes: { row: PackTableRow; index: ParsedIndex }[] = [];
  // The reachability lookups below read the indexes from here, never from the host again.
  const onePack = new OnePackFiles(files);
  for (const [position, row] of rows.entries()) {
    if (!row.index.startsWith(`packs/${tool}/`)) problems.push(`${row.index} is not below packs/${tool}/; ${REBUILD}`);
    // A row naming an index another row names reads it once too.
    const read = onePack.heldIndex(row.index) ?? (await files.readBytes(row.index));
    if (read.status === 'ok') onePack.holdIndex(row.index, read.bytes);
    const outcome = parseRead(
      read,
      (bytes) => parseIndex(bytes, row.index),
      `${row.index} is missing: the calls of its key range cannot be answered`,
    );
    if (typeof outcome === 'string') {
      problems.push(outcome);
      continue;
    }
    const { parsed, bytes } = outcome;
    seen.onIndex?.(row.index, parsed);
    if (parsed.keyKind !== KEY_KIND.call) problems.push(`${row.index} does not hold call keys; ${REBUILD}`);
    if (!(await isNamedByContent(row.index, bytes)))
      problems.push(`${row.index} is not named by its content hash (edited?); ${REBUILD}`);
    const next = rows[position + 1]?.first;
    for (let entry = 0; entry < parsed.entryCount; entry += 1) {
      const keyHex = hexOfBytes(entryKey(parsed, entry));
      if (keyHex < row.first || (next !== undefined && keyHex >= next)) {
        problems.push(
          `${row.index} entry ${entry} (key ${keyHex}) lies outside its row's key range, so no reader finds it; ${REBUILD}`,
        );
        break;
      }
    }
    indexes.push({ row, index: parsed });
  }

  // Each pack once: whole, named by its content, and every entry pointing into it at a record naming it.
  const entriesByPack = new Map<string, { index: ParsedIndex; entry: number; row: PackTableRow }[]>();
  for (const { row, index } of indexes) {
    for (let entry = 0; entry < index.entryCount; entry += 1) {
      const pack = readEntry(index, entry).pack.path;
      const list = entriesByPack.get(pack) ?? [];
      if (list.length === 0) entriesByPack.set(pack, list);
      list.push({ index, entry, row });
    }
  }
  // One reader for the tool (its index cache shared), reading the pack at hand from memory.
  const reader = new PackReader(onePack);
  for (const [packPath, entries] of [...entriesByPack].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const read = await files.readBytes(packPath);
    const outcome = parseRead(
      read,
      (bytes) => parsePack(bytes, packPath),
      `${packPath} is missing: ${entries.length} calls cannot be answered`,
    );
    if (typeof outcome === 'string') {
      problems.push(outcome);
      continue;
    }
    const { parsed, bytes } = outcome;
    await seen.onPack?.(packPath, parsed.records);
    if (!(await isNamedByContent(packPath, bytes)))
      problems.push(`${packPath} is not named by its content hash (edited?); ${REBUILD}`);
    const recordAt = new Map(parsed.records.map((record) => [record.offset, record]));
    for (const { index, entry, row } of entries) {
      const { recordOffset, recordLength } = readEntry(index, entry);
      const record = recordAt.get(recordOffset);
      const key = entryKey(index, entry);
      if (record === undefined || record.length !== recordLength) {
        problems.push(
          `${row.index} entry ${entry} points into ${packPath} at byte ${recordOffset}, where no record starts; ${REBUILD}`,
        );
      } else if (!record.record.names.some((name) => compareKeys(callKeyOf(name), key) === 0)) {
        problems.push(
          `${row.index} entry ${entry} points at a record of ${packPath} none of whose names has its key; ${REBUILD}`,
        );
      }
    }
    // Every name reachable the way a reader looks it up (only this pack read, from memory).
    onePack.hold(packPath, bytes);
    for (const { record, offset } of parsed.records) {
      for (const name of record.names) {
        const found = await reader.lookup(rows, KEY_KIND.call, callKeyOf(name), name);
        if (found.status !== 'ok' || found.pack !== packPath || found.recordOffset !== offset) {
          problems.push(
            `${name} in ${packPath} is not reachable through the pack table (${found.status === 'ok' ? `found in ${found.pack}` : found.reason}); ${REBUILD}`,
          );
        }
      }
    }
    if (problems.length > 100) {
      problems.push('… and more; stopped after 100 problems');
      break;
    }
  }
  return problems;
}

/** A pack or index name ends in the first 16 hex digits of its bytes' SHA-256. */
async function isNamedByContent(path: string, bytes: Uint8Array): Promise<boolean> {
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.(?:pack|idx)$/, '');
  return (await sha256HexOfBytes(bytes)).slice(0, 16) === name;
}

/**
 * Reads one pack and the tool's indexes (each read once by verifyPackedTool) from memory, and
 * anything else through the real source (a lookup reads nothing else of a sound tree).
 */
class OnePackFiles implements PackFileSource {
  private packPath = '';
  private packBytes: Uint8Array = new Uint8Array(0);
  private readonly indexes = new Map<string, Uint8Array>();

  constructor(private readonly files: PackFileSource) {}

  hold(packPath: string, packBytes: Uint8Array): void {
    this.packPath = packPath;
    this.packBytes = packBytes;
  }

  holdIndex(indexPath: string, bytes: Uint8Array): void {
    this.indexes.set(indexPath, bytes);
  }

  heldIndex(indexPath: string): BytesOutcome | undefined {
    const bytes = this.indexes.get(indexPath);
    return bytes === undefined ? undefined : { status: 'ok', bytes, whole: true };
  }

  async readBytes(relativePath: string, range?: ByteRange): Promise<BytesOutcome> {
    const index = this.indexes.get(relativePath);
    if (index !== undefined)
      return {
        status: 'ok',
        bytes: range ? index.subarray(range.offset, range.offset + range.length) : index,
        whole: !range,
      };
    if (relativePath !== this.packPath) return this.files.readBytes(relativePath, range);
    if (!range) return { status: 'ok', bytes: this.packBytes, whole: true };
    return { status: 'ok', bytes: this.packBytes.subarray(range.offset, range.offset + range.length), whole: false };
  }
}
