// Which pack of the search index holds a key, from the table's pack rows (issue #40): format 6's
// table names each term pack and title pack by its first key (search-index-format.ts), so a reader
// whose host sends whole files (the Workers asset binding) reads that pack alone for a word or a
// title block, not its index first: a cold two-word query makes 13 reads, not 16. A row is
// checked when a lookup uses it; one that is not [hex, 16-digit name] leaves the lookup to the
// index. Portable.
import { MAX_DIGEST_CHECKED_PACK_BYTES } from '../packs/pack-digest.js';
import { hexOfBytes } from '../packs/hex-of-bytes.js';
import { KEY_KIND } from '../packs/pack-format.js';
import type { PackFileSource, PackLookup, PackReader, WholePackKeeping } from '../packs/pack-reader.js';
import type { PackTableRow } from '../packs/pack-table.js';
import { SEARCH_FOLDER, type SearchPackRow } from './search-index-format.js';

const PACK_NAME = /^[0-9a-f]{16}$/;
/**
 * Larger packs are found through their index, their record read as a range (a host that
 * ignores ranges has it cut as it streams): this is the largest a pack checked whole by its
 * name may be (pack-digest.ts), and every pack at 6,000 documents is far smaller.
 */
const MAX_WHOLE_PACK_BYTES = MAX_DIGEST_CHECKED_PACK_BYTES;

/** Whether a row read from the table is one: [first key hex, pack name, bytes]. */
function isPackRow(row: unknown): row is SearchPackRow {
  return Array.isArray(row) && typeof row[0] === 'string' && typeof row[1] === 'string' && typeof row[2] === 'number';
}

/**
 * The tree path of the pack of `space` whose range holds `key` (the last row whose first key is
 * at most the key), null when the key sorts before every pack (not in the tree), undefined when
 * a row the search meets is not sound (ask the index).
 */
export function packPathOfKey(
  rows: readonly SearchPackRow[],
  space: 'terms' | 'titles',
  key: Uint8Array,
): string | null | undefined {
  const keyHex = hexOfBytes(key);
  let low = 0;
  let high = rows.length;
  // Invariant: rows[< low] start at or before the key, rows[>= high] after it.
  while (low < high) {
    const middle = (low + high) >>> 1;
    const row: unknown = rows[middle];
    if (!isPackRow(row)) return undefined;
    if (row[0] <= keyHex) low = middle + 1;
    else high = middle;
  }
  if (low === 0) return rows.length === 0 ? undefined : null;
  const row: unknown = rows[low - 1];
  if (!isPackRow(row) || !PACK_NAME.test(row[1]) || !(row[2] <= MAX_WHOLE_PACK_BYTES)) return undefined;
  return `${SEARCH_FOLDER}${space}/${row[1]}.pack`;
}

/**
 * The pack to read whole for `key` (packPathOfKey), when the host sends whole files and the table
 * names its packs; undefined: look the key up through its index.
 */
export function wholePackOf(
  files: PackFileSource,
  rows: readonly SearchPackRow[] | undefined,
  space: 'terms' | 'titles',
  key: Uint8Array,
): string | null | undefined {
  if (files.sendsWholeFiles !== true || rows === undefined) return undefined;
  return packPathOfKey(rows, space, key);
}

/** The record `name` under `key`: in `wholePack` (wholePackOf) when it is sure, else through the index. */
export async function lookupSearchRecord(
  packs: PackReader,
  indexRows: readonly PackTableRow[],
  wholePack: string | null | undefined,
  key: Uint8Array,
  name: string,
  keeping?: WholePackKeeping,
): Promise<PackLookup> {
  if (wholePack === null) return { status: 'missing', reason: `${name} is not in this tree (before its first pack)` };
  if (wholePack !== undefined) {
    const found = await packs.lookupInPack(wholePack, name, keeping);
    if (found !== undefined) return found;
  }
  return packs.lookup(indexRows, KEY_KIND.term, key, name, keeping);
}
