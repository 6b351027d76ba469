// The term part of an edit, packed where it changed and linked elsewhere (issue #39, "Edits in a
// second"). Given the previous layout (search-terms-layout.ts) and the records patched range by
// range (search-terms-edit.ts), each stretch of changed ranges is walked as packRecords walks a
// whole part (same boundaries, same packs and indexes), from the pack holding the start of the
// first index that names a changed pack, until the walk is past every change and both a pack and
// an index close where the previous ones did: from there on the packs and indexes are the
// previous ones, linked from the previous tree without reading their records. A pack of records
// copied unchanged that starts and ends where a previous pack did is linked too. Returns the rows
// packRecords returns and the new layout.
import { closeSync, openSync, readSync } from 'node:fs';
import { hexOfBytes } from '../core/packs/hex-of-bytes.js';
import { INDEX_ENTRY_BYTES, KEY_KIND, PACK_HEADER_BYTES } from '../core/packs/pack-format.js';
import { encodePack } from '../core/packs/pack-encoding.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import type { SearchPackRow } from '../core/search/search-index-format.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { MAX_PACK_BYTES } from './pack-writer.js';
import { contentName } from './search-index-output.js';
import { boundaryHash, type PartBoundaries } from './search-part-boundaries.js';
import { encodePartIndex, type IndexEntryPending, type WriteIndexFile } from './search-record-packer.js';
import { StemListJudge } from './search-stem-lists.js';
import { type EditedTermRecords, recordAt, TermsLayoutMismatch, varintAt } from './search-terms-edit.js';
import { crcOfRange, type LayoutIndex, type LayoutPack, rowAt, type TermsLayout } from './search-terms-layout.js';

/** The previous tree's files a term part links. */
export interface TermPartReuse {
  /** The previous tree's file at `path` (its length), when it may be linked. */
  previousFile(path: string): { length: number } | undefined;
  link(path: string): Promise<void>;
}

/** A pack of the new part, as its layout row will say, with the previous range's CRC when linked. */
interface PackOut extends Omit<LayoutPack, 'crc'> {
  previous?: { crc: number; rangeBytes: number };
}

/** The pack being filled by the walk. */
interface OpenPack {
  records: Uint8Array[];
  size: number;
  count: number;
  keyBytes: number;
  firstKey: Uint8Array;
  start: number;
  byte: number;
  lastPacked: number;
  firstOrigin: number;
  lastOrigin: number;
  file: { path: string; length: number };
}

/** `length` bytes of the file open as `fd` at `offset`, in a buffer of their own. */
function bytesAt(fd: number, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  if (length > 0 && readSync(fd, bytes, 0, length, offset) !== length)
    throw new RangeError('the term records end early');
  return bytes;
}

/** Whether every pack and index `layout` names is in the previous tree, as `reuse` sees it. */
export function holdsLayoutFiles(folder: string, layout: TermsLayout, reuse: TermPartReuse): boolean {
  return (
    layout.packs.every(
      (pack) => pack.path.startsWith(folder) && reuse.previousFile(pack.path)?.length === pack.length,
    ) && layout.indexes.every((index) => index.path.startsWith(folder) && reuse.previousFile(index.path) !== undefined)
  );
}

/**
 * Writes the term part of `edited` (the new records file `file`, patched from records laid out as
 * `layout`) cut by `boundaries`, linking what `reuse` holds of the previous part (every file
 * the layout names: holdsLayoutFiles).
 */
export async function repackTermPart(
  folder: string,
  layout: TermsLayout,
  edited: EditedTermRecords,
  file: string,
  stems: boolean,
  boundaries: PartBoundaries,
  reuse: TermPartReuse,
  writeFile: WriteIndexFile,
): Promise<{ rows: PackTableRow[]; packRows: SearchPackRow[]; layout: TermsLayout }> {
  const oldPacks = layout.packs;
  const oldIndexes = layout.indexes;
  const { origins, changed, newStart, newByte } = edited;
  const rows: PackTableRow[] = [];
  const packRows: SearchPackRow[] = [];
  const packsOut: PackOut[] = [];
  const indexesOut: LayoutIndex[] = [];
  let linkedPacks = 0;
  let linkedIndexes = 0;
  // A previous position's new one, in a range copied as it was.
  const newPositionOf = (position: number) => {
    const range = rowAt(oldPacks, position);
    return newStart[range]! + (position - oldPacks[range]!.start);
  };
  const nameOf = (packPath: string) => packPath.slice(folder.length, -'.pack'.length);
  const linkPack = async (at: number, start: number, byte: number) => {
    // A pack the last walk ended inside of is linked when it ends, and walked again by the next.
    if (at < linkedPacks) return;
    const pack = oldPacks[at]!;
    await reuse.link(pack.path);
    linkedPacks = at + 1;
    packRows.push([pack.firstKey, nameOf(pack.path), pack.length]);
    const rangeBytes = (oldPacks[at + 1]?.byte ?? layout.bytes) - pack.byte;
    packsOut.push({
      ...pack,
      start,
      byte,
      lastPacked: start + (pack.lastPacked - pack.start),
      previous: { crc: pack.crc, rangeBytes },
    });
  };
  const linkIndex = async (at: number) => {
    const index = oldIndexes[at]!;
    await reuse.link(index.path);
    rows.push({ first: index.firstKey, index: index.path });
    indexesOut.push({ ...index, start: newPositionOf(index.start), lastPacked: newPositionOf(index.lastPacked) });
  };

  const fd = openSync(file, 'r');
  try {
    for (;;) {
      let touched = linkedPacks;
      while (touched < oldPacks.length && changed[touched] === 0) touched += 1;
      if (touched === oldPacks.length) break;
      // The first index naming the changed pack, and the pack its first record is in: an index
      // before it that holds records of a changed pack is written again too.
      let index = rowAt(oldIndexes, oldPacks[touched]!.start);
      let from = rowAt(oldPacks, oldIndexes[index]!.start);
      while (oldIndexes[index]!.start > oldPacks[from]!.start && changed[from] === 1) {
        if (index === linkedIndexes) throw new TermsLayoutMismatch('a linked term index names a changed pack');
        index -= 1;
        from = rowAt(oldPacks, oldIndexes[index]!.start);
      }
      while (linkedIndexes < index) await linkIndex(linkedIndexes++);
      for (let at = linkedPacks; at < from; at += 1) await linkPack(at, newStart[at]!, newByte[at]!);
      const indexFrom = changed[from] === 1 ? newStart[from]! : newPositionOf(oldIndexes[index]!.start);
      const next = await walk(from, indexFrom);
      linkedPacks = Math.max(linkedPacks, next.pack);
      linkedIndexes = next.index;
    }
    for (let at = linkedPacks; at < oldPacks.length; at += 1) await linkPack(at, newStart[at]!, newByte[at]!);
    while (linkedIndexes < oldIndexes.length) await linkIndex(linkedIndexes++);

    const window = new Uint8Array(64 * 1024);
    const packs: LayoutPack[] = packsOut.map(({ previous, ...pack }, at) => {
      const end = packsOut[at + 1]?.byte ?? edited.bytes;
      const crc =
        previous !== undefined && end - pack.byte === previous.rangeBytes
          ? previous.crc
          : crcOfRange(fd, pack.byte, end, window);
      return { ...pack, crc };
    });
    return {
      rows,
      packRows,
      layout: { cut: boundaries.cut, count: edited.count, bytes: edited.bytes, packs, indexes: indexesOut },
    };
  } finally {
    closeSync(fd);
  }

  /**
   * Walks the new records from previous pack `from`'s range, the index opening at new position
   * `indexFrom`, until past every change both streams close alike; returns the first previous
   * pack and index not walked.
   */
  async function walk(from: number, indexFrom: number): Promise<{ pack: number; index: number }> {
    const judge = stems ? new StemListJudge() : undefined;
    if (judge !== undefined) {
      let before = from - 1;
      while (before >= 0 && edited.newLastByte[before]! < 0) before -= 1;
      if (before >= 0) {
        const at = edited.newLastByte[before]!;
        const last = recordAt(bytesAt(fd, at, newByte[before + 1]! - at), 0);
        judge.drops(last.key, last.encoded);
      }
    }
    let open: OpenPack | undefined;
    let entries: IndexEntryPending[] = [];
    let indexSize = 0;
    let indexStart = -1;
    let indexLast = -1;
    let indexLastPack: OpenPack['file'] | undefined;
    const waiting: { entries: IndexEntryPending[]; lastPack?: OpenPack['file']; start: number; last: number }[] = [];
    let runStart = newStart[from]!;
    let lastChange = -1;
    let packAligned = false;

    const writeWaiting = async () => {
      while (waiting.length > 0 && (waiting[0]!.lastPack?.path ?? 'placed') !== '') {
        const { entries: written, start, last } = waiting.shift()!;
        const indexBytes = encodePartIndex(KEY_KIND.term, written);
        const indexPath = `${folder}${contentName(indexBytes)}.idx`;
        await writeFile(indexPath, indexBytes);
        const firstKey = hexOfBytes(written[0]!.key);
        rows.push({ first: firstKey, index: indexPath });
        indexesOut.push({ start, lastPacked: last, path: indexPath, firstKey });
      }
    };
    /** The previous pack `pack` is when it holds the same records, copied in one run, else undefined. */
    const previousOf = (pack: OpenPack): number | undefined => {
      if (pack.firstOrigin === 0 || runStart > pack.start) return undefined;
      const at = rowAt(oldPacks, pack.firstOrigin - 1);
      const old = oldPacks[at]!;
      return old.start === pack.firstOrigin - 1 && old.lastPacked === pack.lastOrigin - 1 ? at : undefined;
    };
    const closePack = async (pack: OpenPack) => {
      const previous = previousOf(pack);
      if (previous !== undefined) {
        const old = oldPacks[previous]!;
        pack.file.path = old.path;
        pack.file.length = old.length;
        await linkPack(previous, pack.start, pack.byte);
        return;
      }
      const packBytes = encodePack(pack.records);
      if (packBytes.length > MAX_PACK_BYTES)
        throw new StaticMcpError(
          'PACK_TOO_LARGE',
          `The search record ${new TextDecoder().decode(pack.firstKey)} would make a pack of ${packBytes.length} bytes, more than the ${MAX_PACK_BYTES} a host accepts in one file`,
          'Leave that document out of the search index, or make it smaller.',
        );
      const name = contentName(packBytes);
      pack.file.path = `${folder}${name}.pack`;
      pack.file.length = packBytes.length;
      packRows.push([hexOfBytes(pack.firstKey), name, packBytes.length]);
      packsOut.push({
        start: pack.start,
        byte: pack.byte,
        lastPacked: pack.lastPacked,
        packedCount: pack.count,
        packedBytes: pack.size - PACK_HEADER_BYTES,
        packedKeyBytes: pack.keyBytes,
        path: pack.file.path,
        length: pack.file.length,
        firstKey: hexOfBytes(pack.firstKey),
      });
      await writeFile(pack.file.path, packBytes);
    };

    for (let range = from; range < oldPacks.length; range += 1) {
      const rangeByte = newByte[range]!;
      const bytes = bytesAt(fd, rangeByte, (newByte[range + 1] ?? edited.bytes) - rangeByte);
      const end = newStart[range + 1] ?? edited.count;
      const cursor = { at: 0 };
      for (let position = newStart[range]!; position < end; position += 1) {
        const byte = rangeByte + cursor.at;
        const keyLength = varintAt(bytes, cursor);
        const key = bytes.subarray(cursor.at, cursor.at + keyLength);
        cursor.at += keyLength;
        const encodedLength = varintAt(bytes, cursor);
        const encoded = bytes.subarray(cursor.at, cursor.at + encodedLength);
        cursor.at += encodedLength;
        const origin = origins[position]!;
        if (origin === 0) {
          lastChange = position;
          runStart = position + 1;
          packAligned = false;
        } else if (position > newStart[from]! && origins[position - 1] !== origin - 1) {
          // Records left out between this one and the one before: a change here.
          lastChange = position;
          runStart = position;
          packAligned = false;
        }
        if (judge?.drops(key, encoded)) continue;
        open ??= {
          records: [],
          size: PACK_HEADER_BYTES,
          count: 0,
          keyBytes: 0,
          firstKey: key,
          start: position,
          byte,
          lastPacked: position,
          firstOrigin: origin,
          lastOrigin: origin,
          file: { path: '', length: 0 },
        };
        const inIndex = position >= indexFrom;
        if (inIndex) {
          entries.push({ key, pack: open.file, offset: open.size, length: encoded.length });
          indexSize += INDEX_ENTRY_BYTES + key.length;
          if (indexStart < 0) indexStart = position;
          indexLast = position;
          indexLastPack = open.file;
        }
        open.records.push(encoded);
        open.size += encoded.length;
        open.count += 1;
        open.keyBytes += key.length;
        open.lastPacked = position;
        open.lastOrigin = origin;
        const hash = boundaryHash(key);
        if (boundaries.closesPack(open.size, hash)) {
          await closePack(open);
          open = undefined;
          // Closed where a previous pack closed, past every change: the packs after it are the previous ones.
          packAligned =
            origin > 0 && position >= lastChange && oldPacks[rowAt(oldPacks, origin - 1)]!.lastPacked === origin - 1;
        }
        if (!inIndex || !boundaries.closesIndex(indexSize, hash)) {
          if (waiting.length > 0) await writeWaiting();
          continue;
        }
        waiting.push({ entries, lastPack: indexLastPack, start: indexStart, last: indexLast });
        entries = [];
        indexSize = 0;
        indexStart = -1;
        indexLastPack = undefined;
        const previousIndex = rowAt(oldIndexes, origin - 1);
        const indexAligned =
          packAligned && origin > 0 && position >= lastChange && oldIndexes[previousIndex]!.lastPacked === origin - 1;
        // The open pack, begun where a previous one did, is that pack when its range is unchanged.
        const openPrevious = open === undefined ? undefined : rowAt(oldPacks, open.firstOrigin - 1);
        const openUnchanged =
          open === undefined ||
          (open.firstOrigin > 0 &&
            oldPacks[openPrevious!]!.start === open.firstOrigin - 1 &&
            changed[openPrevious!] === 0 &&
            runStart <= open.start);
        // A change whose walk would start in the index after this one: walked on to from here.
        let nextChanged =
          openPrevious !== undefined && open !== undefined ? openPrevious + 1 : rowAt(oldPacks, origin - 1) + 1;
        while (nextChanged < oldPacks.length && changed[nextChanged] === 0) nextChanged += 1;
        const changeNext =
          nextChanged < oldPacks.length && rowAt(oldIndexes, oldPacks[nextChanged]!.start) <= previousIndex + 1;
        if (indexAligned && openUnchanged && !changeNext) {
          let nextPack = rowAt(oldPacks, origin - 1) + 1;
          if (open !== undefined) {
            const old = oldPacks[openPrevious!]!;
            open.file.path = old.path;
            open.file.length = old.length;
            await linkPack(openPrevious!, open.start, open.byte);
            nextPack = openPrevious! + 1;
          }
          await writeWaiting();
          if (waiting.length > 0) throw new TermsLayoutMismatch('a term index waits for a pack past the walk');
          return { pack: nextPack, index: previousIndex + 1 };
        }
        await writeWaiting();
      }
    }
    if (open !== undefined) await closePack(open);
    if (entries.length > 0) waiting.push({ entries, lastPack: indexLastPack, start: indexStart, last: indexLast });
    await writeWaiting();
    return { pack: oldPacks.length, index: oldIndexes.length };
  }
}
