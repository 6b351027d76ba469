// Damages one record of a search index held in memory, the way a bad disk or a hand edit would
// but with a sound record CRC (so only what the body says is wrong): for the tests of a record
// that does not inflate, or inflates to another length than it claims.
import { type KeyKind, parseRecord } from '../../src/core/packs/pack-format.js';
import { encodeRecord } from '../../src/core/packs/pack-encoding.js';
import { type PackFileSource, PackReader } from '../../src/core/packs/pack-reader.js';
import type { PackTableRow } from '../../src/core/packs/pack-table.js';

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
