// The record a shard build (`staticmcp build --shard I/N`) leaves at the top of its part folder,
// and all `staticmcp merge` needs besides the part's files: which shard it is, the project state
// every shard must share, a hash of the part's own files (to catch an incomplete or edited
// artifact), and the shard's report. Shared by the build (writer), the merge (reader) and the
// output-folder check (a part may be rebuilt in place, a whole tree may not replace it).
import path from 'node:path';
import { readRegularFile } from '../shared/read-regular-file.js';

export const SHARD_RECORD_FILE = 'staticmcp-shard.json';
/**
 * Bumped when the record or the split changes meaning: parts of different formats never merge.
 * 4: the record carries the call-file budget, and the merge packs the tree past it.
 * 5: the record carries the search settings, and the merge indexes the merged tree with them.
 * 6: documents are split over the parts like calls, and the record carries limits.maxLlmsFullBytes.
 */
export const SHARD_FORMAT = 6;

export interface ShardRecord {
  /** Marks the file as ours and says how to read it. */
  staticmcpShard: number;
  /** 1-based shard number. */
  index: number;
  count: number;
  generator: string;
  /** Hash of everything every shard computes alike (manifest, shared files, plans); equal across parts of one build. */
  projectState: string;
  /** The content hash (content-hash.ts) of every file in the part besides this record. */
  filesHash: string;
  /** How many files the part holds besides this record. */
  files: number;
  /** Call files this shard wrote, per tool (the merged manifest records their sums). */
  precomputed: Record<string, number>;
  /**
   * The left-out-defaults copies this shard's call files claim (copy path → call file, null when
   * two of its calls claim one path); the merge claims every shard's again and writes the copies.
   */
  copies: [string, string | null][];
  /**
   * The call-file budget the whole build would pack at (`--max-call-files`, else staticmcp.json's
   * `limits.maxCallFiles`; 0 never): a part is never packed, the merge packs the merged tree.
   */
  maxCallFiles: number;
  /**
   * What the whole tree's search index holds (builder/search-index-step.ts searchToIndex): text
   * resources or not, and the tools whose call results are documents with their title templates;
   * null when the tree has no index. A part writes none: the merge indexes the merged tree.
   */
  search: { resources: boolean; tools: Record<string, { title?: string }> } | null;
  /** limits.maxLlmsFullBytes, for the merged llms-full.txt (absent: the default). */
  maxLlmsFullBytes?: number;
  /** staticmcp.json's publicUrl, for the merged index.html and the documents' urls. */
  publicUrl?: string;
  /** This shard's build report, as `build --json` prints it. */
  report: unknown;
}

function isShardRecord(value: unknown): value is ShardRecord {
  const record = value as Partial<ShardRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.staticmcpShard === 'number' &&
    Number.isInteger(record.index) &&
    Number.isInteger(record.count) &&
    typeof record.projectState === 'string' &&
    typeof record.filesHash === 'string' &&
    typeof record.files === 'number' &&
    typeof record.generator === 'string' &&
    typeof record.precomputed === 'object' &&
    record.precomputed !== null
  );
}

/** The folder's shard record; `missing` when it has none, `broken` when it has one we cannot read. */
export async function readShardRecord(
  folder: string,
): Promise<{ status: 'ok'; record: ShardRecord } | { status: 'missing' } | { status: 'broken'; reason: string }> {
  let text: string;
  try {
    text = await readRegularFile(path.join(folder, SHARD_RECORD_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { status: 'missing' } : { status: 'broken', reason: String(code) };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isShardRecord(parsed)) return { status: 'ok', record: parsed };
    return { status: 'broken', reason: 'it lacks the fields staticmcp writes' };
  } catch {
    return { status: 'broken', reason: 'it is not JSON' };
  }
}
