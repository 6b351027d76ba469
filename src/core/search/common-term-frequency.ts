// The document count of a term at FTS5's idf floor (issue #25), read from the first bytes of its
// record without its postings: search-reader.ts leaves such a term's postings unread when the
// other terms of a query fill a page. Portable.
import { KEY_KIND, RECORD_HEADER_BYTES } from '../packs/pack-format.js';
import type { PackFileSource, PackReader } from '../packs/pack-reader.js';
import type { PackTableRow } from '../packs/pack-table.js';
import { inverseDocumentFrequency } from './bm25.js';
import { minimumPostingBytes } from './postings.js';
import type { SearchIndexCounts } from './search-index-format.js';

/**
 * The document count of a term at FTS5's idf floor, else undefined (also when anything looks
 * off: the full read then says what). Read from the first bytes of its record, and only when
 * the record is long enough to hold that many postings (minimumPostingBytes each).
 */
export async function commonFrequencyOf(
  reads: { packs: PackReader; files: PackFileSource },
  termRows: readonly PackTableRow[],
  counts: SearchIndexCounts,
  term: string,
  key: Uint8Array,
): Promise<number | undefined> {
  const documentCount = counts.documentCount;
  const entry = await reads.packs.locate(termRows, KEY_KIND.term, key, term);
  if (entry.status !== 'ok') return undefined;
  const bodyStart = RECORD_HEADER_BYTES + 2 + key.length;
  const mostPostings = Math.floor((entry.recordLength - bodyStart - 1) / minimumPostingBytes(counts.format));
  if (inverseDocumentFrequency(documentCount, mostPostings) > 1e-6) return undefined;
  const length = Math.min(entry.recordLength, bodyStart + 5);
  const read = await reads.files.readBytes(entry.pack.path, {
    offset: entry.recordOffset,
    length,
    fileLength: entry.pack.length,
    keepsWhole: false,
  });
  if (read.status !== 'ok') return undefined;
  const bytes = read.whole ? read.bytes.subarray(entry.recordOffset, entry.recordOffset + length) : read.bytes;
  if (bytes.length !== length || ((bytes[RECORD_HEADER_BYTES]! << 8) | bytes[RECORD_HEADER_BYTES + 1]!) !== key.length)
    return undefined;
  let documentFrequency = 0;
  let scale = 1;
  for (let offset = bodyStart; offset < length; offset += 1) {
    const byte = bytes[offset]!;
    documentFrequency += (byte & 0x7f) * scale;
    if (byte < 0x80)
      return documentFrequency <= documentCount && inverseDocumentFrequency(documentCount, documentFrequency) <= 1e-6
        ? documentFrequency
        : undefined;
    scale *= 128;
  }
  return undefined;
}
