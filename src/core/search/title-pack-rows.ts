// The title pack rows of a large search index as a binary file of their own (issue #40): when the
// table leaves mcp.json for its file, the rows naming each title pack by its first block go to
// packs/search.index/<sha256-16>.title-packs instead, 16 bytes a pack (less than half of the
// table's text they took; docs/search.md has the figures). A cold two-word query then reads that
// file for its results' title packs and never reads or parses the table; a lookup is a binary
// search over fixed-size rows, with no JSON parse and no string built but the pack's name.
// Layout: "SMTP" (4 bytes), the row count (uint32 LE), then per pack, in block order: its first
// block number (uint32 LE), its content name (the 16 hex digits as 8 bytes), its bytes (uint32 LE).
// A row is checked when a lookup uses it, as the text rows are (search-pack-rows.ts): one that does
// not name a sound pack leaves the lookup to the title index. Portable.
import { hexOfBytes } from '../packs/hex-of-bytes.js';
import { MAX_DIGEST_CHECKED_PACK_BYTES } from '../packs/pack-digest.js';
import type { PackFileSource } from '../packs/pack-reader.js';
import { utf8Bytes } from '../tree/utf8.js';
import { SEARCH_FOLDER, type SearchPackRow, type SearchPackRows, titleBlockKeyOf } from './search-index-format.js';
import { packPathOfKey } from './search-pack-rows.js';

const MAGIC = [0x53, 0x4d, 0x54, 0x50]; // "SMTP"
const HEADER_BYTES = 8;
const ROW_BYTES = 16;
/** Rows a file may hold: the writer's title packs stop at 9,000 until their size grows; 2^20 is far past it. */
const MAX_ROWS = 1 << 20;
const BLOCK_KEY = /^[0-9a-f]{8}$/;
const PACK_NAME = /^[0-9a-f]{16}$/;

/**
 * The file's bytes for title pack rows (first key in hex of an 8-hex-digit block key, content
 * name, bytes), in block order; undefined when a row is not of a title pack.
 */
export function encodeTitlePackRows(rows: readonly SearchPackRow[]): Uint8Array | undefined {
  if (rows.length > MAX_ROWS) return undefined;
  const bytes = new Uint8Array(HEADER_BYTES + rows.length * ROW_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  view.setUint32(4, rows.length, true);
  let previous = -1;
  for (const [position, [firstHex, name, packBytes]] of rows.entries()) {
    const key = textOfHex(firstHex);
    if (key === undefined || !BLOCK_KEY.test(key) || !PACK_NAME.test(name)) return undefined;
    if (!Number.isSafeInteger(packBytes) || packBytes < 0 || packBytes > 0xffffffff) return undefined;
    const block = Number.parseInt(key, 16);
    if (block <= previous) return undefined;
    previous = block;
    const at = HEADER_BYTES + position * ROW_BYTES;
    view.setUint32(at, block, true);
    for (let digit = 0; digit < 8; digit += 1)
      bytes[at + 4 + digit] = Number.parseInt(name.slice(digit * 2, digit * 2 + 2), 16);
    view.setUint32(at + 12, packBytes, true);
  }
  return bytes;
}

function textOfHex(hex: string): string | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined;
  let text = '';
  for (let at = 0; at < hex.length; at += 2) text += String.fromCharCode(Number.parseInt(hex.slice(at, at + 2), 16));
  return text;
}

/** A title pack rows file as read: lookups search its rows in place. */
export class TitlePackRows {
  private readonly view: DataView;
  readonly count: number;

  private constructor(bytes: Uint8Array, count: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.count = count;
  }

  /** The file's rows; undefined when its header or length is not that of a rows file. */
  static of(bytes: Uint8Array): TitlePackRows | undefined {
    if (bytes.length < HEADER_BYTES || MAGIC.some((byte, at) => bytes[at] !== byte)) return undefined;
    const count = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
    if (count > MAX_ROWS || bytes.length !== HEADER_BYTES + count * ROW_BYTES) return undefined;
    return new TitlePackRows(bytes, count);
  }

  /**
   * The tree path of the title pack holding block `block` (the last row starting at or before it),
   * null when it sorts before every row, undefined when the rows cannot say (none, or one too large
   * to be read whole: look the block up through the title index).
   */
  packPathOfBlock(block: number): string | null | undefined {
    if (this.count === 0) return undefined;
    let low = 0;
    let high = this.count;
    // Invariant: rows[< low] start at or before the block, rows[>= high] after it.
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.firstBlock(middle) <= block) low = middle + 1;
      else high = middle;
    }
    if (low === 0) return null;
    const row = low - 1;
    if (!(this.view.getUint32(HEADER_BYTES + row * ROW_BYTES + 12, true) <= MAX_DIGEST_CHECKED_PACK_BYTES))
      return undefined;
    return `${SEARCH_FOLDER}titles/${this.nameOf(row)}.pack`;
  }

  /** The rows as the table's text rows list them ([first key hex, name, bytes]), for `check`. */
  list(): SearchPackRow[] {
    const rows: SearchPackRow[] = [];
    for (let row = 0; row < this.count; row += 1) {
      const key = titleBlockKeyOf(this.firstBlock(row));
      let keyHex = '';
      for (let at = 0; at < key.length; at += 1) keyHex += key.charCodeAt(at).toString(16).padStart(2, '0');
      rows.push([keyHex, this.nameOf(row), this.view.getUint32(HEADER_BYTES + row * ROW_BYTES + 12, true)]);
    }
    return rows;
  }

  private firstBlock(row: number): number {
    return this.view.getUint32(HEADER_BYTES + row * ROW_BYTES, true);
  }

  private nameOf(row: number): string {
    const at = this.view.byteOffset + HEADER_BYTES + row * ROW_BYTES + 4;
    return hexOfBytes(new Uint8Array(this.view.buffer, at, 8));
  }
}

/** The rows file mcp.json names, and the rows once read (null: missing or not a rows file). */
export interface TitlePackFile {
  path: string;
  rows?: TitlePackRows | null;
}

/**
 * Where a result's title pack lies by its block, for a host that sends whole files: from the rows
 * file when mcp.json names one (read on first use, and kept in `file`), else from the table's rows
 * (`tableRows`, which reads the table); undefined: through the title index. A rows file that
 * cannot be used leaves titles to their index, slower but sound, and `onProblem` hears why.
 */
export async function titlePackLookupOf(
  files: PackFileSource,
  file: TitlePackFile | undefined,
  tableRows: () => Promise<SearchPackRows | undefined>,
  onProblem?: (reason: string) => void,
): Promise<((block: number) => string | null | undefined) | undefined> {
  if (files.sendsWholeFiles !== true) return undefined;
  if (file === undefined) {
    const rows = await tableRows();
    return rows === undefined ? undefined : (block) => packPathOfKey(rows, 'titles', utf8Bytes(titleBlockKeyOf(block)));
  }
  if (file.rows === undefined) {
    // Concurrent first requests may each read it, as the table: workerd wants no promise of one
    // request settled in another.
    const read = await files.readBytes(file.path);
    const rows = read.status === 'ok' ? TitlePackRows.of(read.bytes) : undefined;
    if (rows === undefined)
      onProblem?.(
        `the search's title pack rows ${file.path} are ${read.status === 'missing' ? 'missing on the host' : 'not a rows file'}; titles are found through their index`,
      );
    file.rows = rows ?? null;
  }
  const rows = file.rows;
  return rows === null ? undefined : (block) => rows.packPathOfBlock(block);
}
