// The title and stored-document parts of a search index (search-index-spill-writer.ts), packed from
// the documents' columns (search-document-columns.ts): the title blocks in number order, each
// document's excerpt source after its block, then the stored records (fetch bodies), each of a
// document whose body is empty pointing at the place its source took in its title pack. Titles and
// sources are read back by offset in block (a block's sources after it) and key order
// (search-scratch-records.ts); with pack reuse, each title item is followed by its document's
// entry digest, which keys the title packs, so a linked pack's titles and sources are never read.
import { closeSync, openSync } from 'node:fs';
import { KEY_KIND } from '../core/packs/pack-format.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import { SEARCH_FOLDER, type SearchPackRow } from '../core/search/search-index-format.js';
import { DIGEST_BYTES, type DocumentColumns } from './search-document-columns.js';
import { SEARCH_FILE_LIMITS, titleFileLimits } from './search-index-targets.js';
import { type PackReuse, packRecords, type RecordPlace, type WriteIndexFile } from './search-record-packer.js';
import { documentRecords, titleRecords } from './search-scratch-records.js';
import { readAt, WindowReader } from './spill-files.js';
import { releaseGrown } from './grown-typed-array.js';

type Targets = { targetPackBytes: number; targetIndexBytes: number };

/** Packs the title and stored parts of `columns` (closed) in number order; returns their rows. */
export async function packDocumentParts(
  columns: DocumentColumns,
  byNumber: Uint32Array,
  blockSize: number,
  targets: { titles: Targets; stored: Targets },
  writeFile: WriteIndexFile,
  titleReuse: PackReuse | undefined,
  noteMemory: (step: string) => void,
): Promise<{ titles: PackTableRow[]; stored: PackTableRow[]; titlePacks: SearchPackRow[] }> {
  const { ids, titleItems, bodies, sources } = columns;
  const count = ids.length;
  // Where each document source lies in its title pack: its fetch record's index entry points there.
  const placePacks: RecordPlace['pack'][] = [];
  const placePackNumber = new Uint32Array(count);
  const placeOffset = new Uint32Array(count);
  const placeLength = new Uint32Array(count);
  const titleLength = titleItems.lengthOf;
  const bodyLength = bodies.lengthOf;
  const sourceLength = sources.lengthOf;
  const placeFollower = (arrival: number, place: RecordPlace) => {
    if (bodyLength[arrival] !== 0) return;
    if (placePacks.at(-1) !== place.pack) placePacks.push(place.pack);
    placePackNumber[arrival] = placePacks.length - 1;
    placeOffset[arrival] = place.offset;
    placeLength[arrival] = place.length;
  };
  const titlesFd = openSync(columns.titleSpill.file, 'r');
  const bodiesFd = openSync(columns.bodySpill.file, 'r');
  const sourcesFd = openSync(columns.sourceSpill.file, 'r');
  // Titles and excerpt sources are read by number, about the order they arrived in: by window.
  const titleReader = new WindowReader(titlesFd);
  const sourceReader = new WindowReader(sourcesFd);
  try {
    const titlePacks: SearchPackRow[] = [];
    const titles = await packRecords(
      `${SEARCH_FOLDER}titles/`,
      KEY_KIND.term,
      titleRecords(
        byNumber,
        blockSize,
        ids,
        titleLength,
        (arrival) => titleReader.read(titleItems.offsetAt(arrival), titleLength[arrival]!),
        sourceLength,
        (arrival) => sourceReader.read(sources.offsetAt(arrival), sourceLength[arrival]!),
        (arrival) => bodyLength[arrival] === 0,
        columns.keysTitlePacks
          ? (arrival) => titleReader.read(titleItems.offsetAt(arrival) + titleLength[arrival]!, DIGEST_BYTES)
          : undefined,
      ),
      targets.titles,
      // An index of call results alone has small title blocks; one storing text, larger packs' worth.
      titleFileLimits(sourceLength.subarray(0, count).some((length) => length > 0)),
      writeFile,
      placeFollower,
      titleReuse,
      titlePacks,
    );
    noteMemory('search/titles');
    const keys = columns.keyHalves();
    const records = documentRecords(
      ids,
      keys.keyHigh,
      keys.keyLow,
      bodyLength,
      (arrival) => readAt(bodiesFd, bodies.offsetAt(arrival), bodyLength[arrival]!),
      (arrival) => ({
        pack: placePacks[placePackNumber[arrival]!]!,
        offset: placeOffset[arrival]!,
        length: placeLength[arrival]!,
      }),
    );
    // documentRecords keeps the keys in its own order: the halves go back at once.
    releaseGrown(keys.keyHigh);
    releaseGrown(keys.keyLow);
    const stored = await packRecords(
      `${SEARCH_FOLDER}documents/`,
      KEY_KIND.call,
      records,
      targets.stored,
      SEARCH_FILE_LIMITS.documents,
      writeFile,
    );
    noteMemory('search/stored');
    return { titles, stored, titlePacks };
  } finally {
    closeSync(titlesFd);
    closeSync(bodiesFd);
    closeSync(sourcesFd);
  }
}
