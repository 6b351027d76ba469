// Damages one record of a search index held in memory, the way a bad disk or a hand edit would
// but with a sound record CRC (so only what the body says is wrong): for the tests of a record
// that does not inflate, or inflates to another length than it claims.
import { KEY_KIND, type KeyKind, parseRecord } from '../../src/core/packs/pack-format.js';
import { encodeRecord } from '../../src/core/packs/pack-encoding.js';
import { type PackFileSource, PackReader, textOfBody } from '../../src/core/packs/pack-reader.js';
import type { PackTableRow } from '../../src/core/packs/pack-table.js';
import { sourceRecordsAfter } from '../../src/core/search/excerpt-source.js';
import { parseTitleBlock, type SearchIndexTable, titleBlockKeyOf } from '../../src/core/search/search-index-format.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';

/** Rewrites the body of the record of `name` under `key` in `files` with `damage` (given a copy). */
export async function damageRecordBody(
  files: PackFileSource & { files: Map<string, Uint8Array> },
  rows: readonly PackTableRow[],
  keyKind: KeyKind,
  key: Uint8Array,
  name: string,
  damage: (body: Uint8Array) => void,
): Promise<void> {
  const entry = await new PackReader(files).locate(rows, keyKind, key, name);
  if (entry.status !== 'ok') throw new Error(entry.reason);
  const pack = files.files.get(entry.pack.path)!.slice();
  const record = parseRecord(pack.subarray(entry.recordOffset, entry.recordOffset + entry.recordLength), name);
  if ('status' in record) throw new Error(record.reason);
  const body = record.body.slice();
  damage(body);
  pack.set(encodeRecord({ names: record.names, body }), entry.recordOffset);
  files.files.set(entry.pack.path, pack);
}

/** Where document `number`'s excerpt source record lies: after its title block, as the block's entries place it. */
export async function locateExcerptSource(
  files: PackFileSource,
  table: SearchIndexTable,
  number: number,
): Promise<{ pack: string; recordOffset: number; recordLength: number; name: string }> {
  const blockNumber = Math.floor(number / table.blockSize);
  const key = titleBlockKeyOf(blockNumber);
  const block = await new PackReader(files).lookup(table.titles, KEY_KIND.term, utf8Bytes(key), key);
  if (block.status !== 'ok') throw new Error(block.reason);
  const count = Math.min(table.blockSize, table.documentCount - blockNumber * table.blockSize);
  const entries = parseTitleBlock(textOfBody(block.body), count, table.format)!;
  const place = sourceRecordsAfter({ number: blockNumber, ...block }, entries, table.blockSize)[
    number % table.blockSize
  ];
  if (place === undefined) throw new Error(`document ${number} has no excerpt source`);
  return { pack: block.pack, ...place };
}

/** Rewrites the body of document `number`'s excerpt source with `damage` (given a copy), its CRC sound. */
export async function damageExcerptSource(
  files: PackFileSource & { files: Map<string, Uint8Array> },
  table: SearchIndexTable,
  number: number,
  damage: (body: Uint8Array) => void,
): Promise<void> {
  const place = await locateExcerptSource(files, table, number);
  const pack = files.files.get(place.pack)!.slice();
  const record = parseRecord(pack.subarray(place.recordOffset, place.recordOffset + place.recordLength), place.name);
  if ('status' in record) throw new Error(record.reason);
  const body = record.body.slice();
  damage(body);
  pack.set(encodeRecord({ names: record.names, body }), place.recordOffset);
  files.files.set(place.pack, pack);
}
