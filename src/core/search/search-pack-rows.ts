// Which pack of the search index holds a key, from the table's pack rows (issue #40): format 6's
// table names each term pack and title pack by its first key (search-index-format.ts), so a reader
// whose host sends whole files (the Workers asset binding) reads that pack alone for a word or a
// title block, not its index first: a cold two-word query makes 13 reads, not 16. A row is
// checked when a lookup uses it; one that is not [hex, 16-digit name, bytes] leaves the lookup to
// the index. The rows are one text, a line per pack, searched in place: a cold worker parses the
// table as one string instead of building an array per pack. Portable.
import { MAX_DIGEST_CHECKED_PACK_BYTES } from '../packs/pack-digest.js';
import { hexOfBytes } from '../packs/hex-of-bytes.js';
import { KEY_KIND } from '../packs/pack-format.js';
import type { PackFileSource, PackLookup, PackReader, WholePackKeeping } from '../packs/pack-reader.js';
import type { PackTableRow } from '../packs/pack-table.js';
import { SEARCH_FOLDER, type SearchPackRow, type SearchPackRows } from './search-index-format.js';

const PACK_NAME = /^[0-9a-f]{16}$/;
const HEX_KEY = /^[0-9a-f]+$/;
/** A line of the rows' text: first key in hex, pack name, bytes. */
const ROW_LINE = /^([0-9a-f]+) ([0-9a-f]{16}) (0|[1-9][0-9]{0,15})$/;
/**
 * Larger packs are found through their index, their record read as a range (a host that
 * ignores ranges has it cut as it streams): this is the largest a pack checked whole by its
 * name may be (pack-digest.ts), and every pack at 6,000 documents is far smaller.
 */
const MAX_WHOLE_PACK_BYTES = MAX_DIGEST_CHECKED_PACK_BYTES;

/** The rows as the table stores them: a line per row, in the order given (key order). */
export function encodePackRows(rows: readonly SearchPackRow[]): string {
  return rows.map(([first, name, bytes]) => `${first} ${name} ${bytes}`).join('\n');
}

/** The rows of a table's value, each as a list; undefined when one is not a row. */
export function listPackRows(rows: SearchPackRows): SearchPackRow[] | undefined {
  if (typeof rows !== 'string') return rows.every(isPackRow) ? [...rows] : undefined;
  if (rows === '') return [];
  const listed: SearchPackRow[] = [];
  for (const line of rows.split('\n')) {
    const row = rowOfLine(line);
    if (row === undefined) return undefined;
    listed.push(row);
  }
  return listed;
}

/** Whether a row read from the table is one: [first key hex, pack name, bytes]. */
function isPackRow(row: unknown): row is SearchPackRow {
  return Array.isArray(row) && typeof row[0] === 'string' && typeof row[1] === 'string' && typeof row[2] === 'number';
}

function rowOfLine(line: string): SearchPackRow | undefined {
  const match = ROW_LINE.exec(line);
  return match === null ? undefined : [match[1]!, match[2]!, Number(match[3])];
}

/**
 * The tree path of the pack of `space` whose range holds `key` (the last row whose first key is
 * at most the key), null when the key sorts before every pack (not in the tree), undefined when
 * a row the search meets is not sound (ask the index).
 */
export function packPathOfKey(
  rows: SearchPackRows,
  space: 'terms' | 'titles',
  key: Uint8Array,
): string | null | undefined {
  const keyHex = hexOfBytes(key);
  const row = typeof rows === 'string' ? rowInText(rows, keyHex) : rowInList(rows, keyHex);
  if (row === null || row === undefined) return row;
  if (!isPackRow(row) || !PACK_NAME.test(row[1]) || !(row[2] <= MAX_WHOLE_PACK_BYTES)) return undefined;
  return `${SEARCH_FOLDER}${space}/${row[1]}.pack`;
}

/** The last row of a list whose first key is at most `keyHex`: null before the first, undefined when unsound. */
function rowInList(rows: readonly SearchPackRow[], keyHex: string): unknown {
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
  return rows[low - 1];
}

/**
 * rowInList over the rows' text, by character offsets: each step reads the line around the middle
 * of what is left, so a lookup slices ~log2(rows) keys and parses only the line it lands on.
 */
function rowInText(text: string, keyHex: string): SearchPackRow | null | undefined {
  if (text === '') return undefined;
  // Invariant: lines starting before `low` start at or before the key, lines from `high` after it.
  let low = 0;
  let high = text.length;
  let found = -1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = text.lastIndexOf('\n', middle - 1) + 1;
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const space = text.indexOf(' ', start);
    if (space === -1 || space > end) return undefined;
    const first = text.slice(start, space);
    if (!HEX_KEY.test(first)) return undefined;
    if (first <= keyHex) {
      found = start;
      low = end + 1;
    } else high = start;
  }
  if (found === -1) return null;
  const end = text.indexOf('\n', found);
  return rowOfLine(text.slice(found, end === -1 ? text.length : end));
}

/**
 * The pack to read whole for `key` (packPathOfKey), when the host sends whole files and the table
 * names its packs; undefined: look the key up through its index.
 */
export function wholePackOf(
  files: PackFileSource,
  rows: SearchPackRows | undefined,
  space: 'terms' | 'titles',
  key: Uint8Array,
): string | null | undefined {
  if (files.sendsWholeFiles !== true || rows === undefined) return undefined;
  return packPathOfKey(rows, space, key);
}

/**
 * The record `name` under `key`: in `wholePack` (wholePackOf) when it is sure, else through the
 * index, whose rows `indexRows` gives (a reader's table is read, and its rows checked, when first asked).
 * `sorted`: the pack's records are in key order (term packs), so its walk may stop early.
 */
export async function lookupSearchRecord(
  packs: PackReader,
  indexRows: () => readonly PackTableRow[] | Promise<readonly PackTableRow[]>,
  wholePack: string | null | undefined,
  key: Uint8Array,
  name: string,
  keeping?: WholePackKeeping,
  sorted = false,
): Promise<PackLookup> {
  if (wholePack === null) return { status: 'missing', reason: `${name} is not in this tree (before its first pack)` };
  if (wholePack !== undefined) {
    const found = await packs.lookupInPack(wholePack, name, keeping, sorted);
    if (found !== undefined) return found;
  }
  return packs.lookup(await indexRows(), KEY_KIND.term, key, name, keeping);
}
