// The parts handed to `staticmcp merge`, checked before a single file is read: each is a folder a
// shard build wrote, all come from one split (same N) of one project state, and together they are
// every shard exactly once. Each refusal says which folders disagree and how to get a good set.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { MAX_SHARDS } from '../builder/shard-of-call.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { findTreePathProblem, showTreePath } from '../core/tree/tree-path.js';
import { readShardRecord, SHARD_FORMAT, SHARD_RECORD_FILE, type ShardRecord } from '../tree-writer/shard-record.js';

export interface ShardPart {
  /** As the user gave it, for messages. */
  given: string;
  folder: string;
  record: ShardRecord;
}

/**
 * What in a record (read but not written by the merge, and not covered by its files hash) could
 * make the merge reach outside its folders or misbehave: why it is unusable, or undefined. Paths
 * in `copies` follow the tree-path rule, checked here before anything is read or written; the
 * shard numbers stay within what `build --shard` accepts (a count of 10⁹ would make the merge list
 * 10⁹ missing shards); per-tool counts are plain numbers; the report has the lists it is read for.
 */
function findRecordProblem(record: ShardRecord): string | undefined {
  if (record.count < 1 || record.count > MAX_SHARDS || record.index < 1 || record.index > record.count)
    return `it says shard ${record.index} of ${record.count} (a split has 1 to ${MAX_SHARDS} shards)`;
  if (!Number.isSafeInteger(record.files) || record.files < 0) return 'its file count is not a count';
  for (const [name, count] of Object.entries(record.precomputed)) {
    if (!Number.isSafeInteger(count) || (count as number) < 0)
      return `its call count for ${showTreePath(name)} is not a count`;
  }
  if (!Number.isSafeInteger(record.maxCallFiles) || record.maxCallFiles < 0)
    return 'its call-file budget (maxCallFiles) is not a count';
  if (
    record.maxLlmsFullBytes !== undefined &&
    (!Number.isSafeInteger(record.maxLlmsFullBytes) || record.maxLlmsFullBytes < 0)
  )
    return 'its llms-full.txt size (maxLlmsFullBytes) is not a count';
  if (!Array.isArray(record.copies)) return 'its copies are not a list';
  const search = record.search as unknown;
  if (search !== null) {
    const { resources, tools, stemming } = (typeof search === 'object' ? search : {}) as Record<string, unknown>;
    if (
      typeof resources !== 'boolean' ||
      (stemming !== undefined && stemming !== 'none') ||
      typeof tools !== 'object' ||
      tools === null ||
      Array.isArray(tools) ||
      !Object.values(tools).every(
        (tool: unknown) =>
          typeof tool === 'object' &&
          tool !== null &&
          ((tool as { title?: unknown }).title === undefined ||
            typeof (tool as { title?: unknown }).title === 'string'),
      )
    )
      return 'its search settings are not {resources, tools, stemming?} (or null)';
  }
  for (const [index, entry] of (record.copies as unknown[]).entries()) {
    if (!Array.isArray(entry) || entry.length !== 2) return `copies[${index}] is not a [copy, call file] pair`;
    const [copyPath, ownerPath] = entry as unknown[];
    for (const named of ownerPath === null ? [copyPath] : [copyPath, ownerPath]) {
      const problem = findTreePathProblem(named);
      if (problem !== undefined)
        return `copies[${index}] names ${showTreePath(named)}, not a plain path inside the tree (${problem})`;
    }
  }
  const report = record.report as { ok?: unknown; tools?: unknown; failures?: unknown; warnings?: unknown } | null;
  if (
    typeof report !== 'object' ||
    report === null ||
    typeof report.ok !== 'boolean' ||
    !Array.isArray(report.failures) ||
    !Array.isArray(report.warnings) ||
    !Array.isArray(report.tools) ||
    !report.tools.every(
      (tool: { name?: unknown; failures?: unknown; warnings?: unknown; logLines?: unknown } | null) =>
        typeof tool === 'object' &&
        tool !== null &&
        typeof tool.name === 'string' &&
        Array.isArray(tool.failures) &&
        Array.isArray(tool.warnings) &&
        Array.isArray(tool.logLines),
    )
  )
    return 'its report lacks the fields staticmcp writes';
  return undefined;
}

const REBUILD_ALL = 'Build every shard again from the same commit (same --shard …/N), then merge all N --out folders.';

async function readPart(given: string): Promise<ShardPart> {
  const folder = path.resolve(given);
  const stats = await fs.stat(folder).catch(() => null);
  if (!stats?.isDirectory()) {
    throw new StaticMcpError(
      'PART_NOT_FOUND',
      `part ${given} is not a folder`,
      'Pass the --out folders of staticmcp build --shard I/N (in CI: the downloaded artifacts).',
    );
  }
  const read = await readShardRecord(folder);
  if (read.status === 'missing') {
    throw new StaticMcpError(
      'NOT_A_PART',
      `${given} is not a shard part: it has no ${SHARD_RECORD_FILE}`,
      'Pass the --out folders of staticmcp build --shard I/N; if this is one, its artifact lost that file (upload the whole folder).',
    );
  }
  if (read.status === 'broken') {
    throw new StaticMcpError(
      'PART_RECORD_BROKEN',
      `${given}/${SHARD_RECORD_FILE} cannot be read (${read.reason})`,
      'Build that shard again; the record is written by staticmcp build --shard and must not be edited.',
    );
  }
  if (read.record.staticmcpShard !== SHARD_FORMAT) {
    throw new StaticMcpError(
      'PART_FORMAT',
      `${given} was written by a staticmcp (${read.record.generator}) whose shard format (${read.record.staticmcpShard}) this one (${SHARD_FORMAT}) does not read`,
      'Build and merge with the same staticmcp version (pin it: npx staticmcp@<version>).',
    );
  }
  const problem = findRecordProblem(read.record);
  if (problem !== undefined) {
    throw new StaticMcpError(
      'PART_RECORD_BROKEN',
      `${given}/${SHARD_RECORD_FILE} cannot be used: ${problem}; nothing was read from the part or written`,
      'Build that shard again; the record is written by staticmcp build --shard and must not be edited.',
    );
  }
  return { given, folder, record: read.record };
}

/** Reads and cross-checks every part's record; returns the parts ordered by shard number. */
export async function readParts(given: readonly string[]): Promise<ShardPart[]> {
  if (given.length === 0) {
    throw new StaticMcpError('NO_PARTS', 'no parts to merge', 'Pass the --out folders of every shard build.');
  }
  const parts: ShardPart[] = [];
  for (const folder of given) parts.push(await readPart(folder));
  // `given` is not empty (refused above), so neither is `parts`.
  const first = parts[0]!;
  for (const part of parts.slice(1)) {
    if (part.record.count !== first.record.count) {
      throw new StaticMcpError(
        'PARTS_SPLIT_DIFFERS',
        `${first.given} is shard ${first.record.index} of ${first.record.count} but ${part.given} is shard ${part.record.index} of ${part.record.count}: parts of different splits cannot be merged`,
        REBUILD_ALL,
      );
    }
    if (part.record.projectState !== first.record.projectState) {
      const generators =
        part.record.generator !== first.record.generator
          ? ` (built by ${first.record.generator} and ${part.record.generator})`
          : '';
      throw new StaticMcpError(
        'PARTS_STATE_DIFFERS',
        `${first.given} and ${part.given} were built from different project states${generators}: their scripts, --help output, value lists, configuration or shared files differ, so their answers do not belong in one tree`,
        `${REBUILD_ALL} Value-list commands and scripts must print the same on every machine.`,
      );
    }
  }
  const byIndex = new Map<number, ShardPart>();
  for (const part of parts) {
    const other = byIndex.get(part.record.index);
    if (other) {
      throw new StaticMcpError(
        'PART_DUPLICATED',
        `${other.given} and ${part.given} are both shard ${part.record.index} of ${part.record.count}`,
        'Pass each shard once: one folder per shard number, 1 to N.',
      );
    }
    byIndex.set(part.record.index, part);
  }
  const { count } = first.record;
  const missing = Array.from({ length: count }, (_, index) => index + 1).filter((index) => !byIndex.has(index));
  if (missing.length > 0) {
    throw new StaticMcpError(
      'PART_MISSING',
      `shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} ${missing.length > 1 ? 'are' : 'is'} missing: a tree merged without ${missing.length > 1 ? 'them' : 'it'} would lack their calls`,
      `Pass all ${count} parts (build the missing one with staticmcp build --shard ${missing[0]}/${count} --out DIR).`,
    );
  }
  return [...byIndex.values()].sort((left, right) => left.record.index - right.record.index);
}
