// The pack table a manifest carries (staticmcp extension of mcp.json): for each packed tool, its
// index files in key order, each covering the keys from its `first` (16 hex digits, the first
// key of its range) up to the next row's. Parsed from untrusted JSON: a row whose index is not a
// plain tree path below packs/ ending in `.idx`, or rows out of order, refuse the whole table.
import { EXTENSION_KEY } from '../tree/manifest.js';
import { findTreePathProblem, showTreePath } from '../tree/tree-path.js';
import { hexOfBytes } from './hex-of-bytes.js';
import { PACKS_FOLDER } from './pack-format.js';

/**
 * The table's name for the packed resource files (issue #39): never a tool name (tool names hold
 * no `.`), so it shares the table with the tools and its packs live in `packs/resources.files/`.
 * Its records are named by tree path below resources/ or skills/files/, keyed as calls are.
 */
export const RESOURCE_PACK_GROUP = 'resources.files';

/** Whether a tree path is a resource file the resource packs may hold (a resource, its raw copy, a skill's file). */
export function isPackableResourceFile(treePath: string): boolean {
  return (treePath.startsWith('resources/') || treePath.startsWith('skills/files/')) && treePath.endsWith('.json');
}

export interface PackTableRow {
  /** The first key of the index's range, lowercase hex (16 digits for calls). */
  first: string;
  /** Tree path of the index file. */
  index: string;
}

/** Tool name → its rows, sorted by `first`. */
export type PackTable = ReadonlyMap<string, readonly PackTableRow[]>;

/**
 * When a row's index path is checked as a plain tree path: `now` (check, the verifiers, a
 * manifest's table), or `on-read`, by the pack reader before it reads that index
 * (indexPathRefusal): a search table names hundreds of indexes, thousands at 650,000 documents,
 * and a query reads a few. Either way a row's path must be below packs/ and end in `.idx`.
 */
export type IndexPathChecks = 'now' | 'on-read';

/** Parses the manifest's `packs` value; `problem` says what is wrong with it. */
export function parsePackTable(
  value: unknown,
  pathChecks: IndexPathChecks = 'now',
): { table: PackTable } | { problem: string } {
  if (value === undefined) return { table: new Map() };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'packs is not an object' };
  const table = new Map<string, PackTableRow[]>();
  for (const [tool, rows] of Object.entries(value)) {
    if (!Array.isArray(rows) || rows.length === 0) return { problem: `packs.${tool} is not a non-empty list` };
    const parsed: PackTableRow[] = [];
    for (const row of rows as unknown[]) {
      const { first, index } = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
      if (typeof first !== 'string' || !/^(?:[0-9a-f]{2})+$/.test(first)) {
        return { problem: `packs.${tool} has a row whose first key is not lowercase hex` };
      }
      const pathProblem =
        typeof index !== 'string'
          ? 'it is not a string'
          : ((pathChecks === 'now' ? findTreePathProblem(index) : undefined) ??
            (!index.startsWith(PACKS_FOLDER) || !index.endsWith('.idx')
              ? `it is not an .idx file below ${PACKS_FOLDER}`
              : undefined));
      if (pathProblem !== undefined || typeof index !== 'string') {
        return { problem: `packs.${tool} names the index ${showTreePath(index)} (${pathProblem})` };
      }
      const previous = parsed.at(-1);
      if (previous !== undefined && !(previous.first < first))
        return { problem: `packs.${tool} rows are not in key order` };
      parsed.push({ first, index });
    }
    table.set(tool, parsed);
  }
  return { table };
}

/** The row whose range holds `key`: the last with `first` ≤ the key (hex strings of equal
 * length compare as their bytes do; a shorter `first` is a prefix range start). */
export function findIndexRow(rows: readonly PackTableRow[], key: Uint8Array): PackTableRow | undefined {
  const keyHex = hexOfBytes(key);
  let low = 0;
  let high = rows.length;
  // Invariant: rows[< low].first <= keyHex < rows[>= high].first.
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows[middle]!.first <= keyHex) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? undefined : rows[low - 1];
}

/**
 * The pack table of a manifest's text (our extension's `packs`): undefined when it names none (an
 * unpacked tree, or a manifest that is not JSON, which its loader reports), else the table or
 * what is wrong with it. Most trees are not packed: their manifest is not parsed a second time.
 */
export function packTableOfManifest(manifestText: string): { table: PackTable } | { problem: string } | undefined {
  if (!manifestText.includes('"packs"')) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(manifestText);
  } catch {
    return undefined;
  }
  const extension = (raw as Record<string, unknown> | null)?.[EXTENSION_KEY];
  const packs =
    typeof extension === 'object' && extension !== null ? (extension as { packs?: unknown }).packs : undefined;
  if (packs === undefined) return undefined;
  const parsed = parsePackTable(packs);
  return 'table' in parsed && parsed.table.size === 0 ? undefined : parsed;
}
