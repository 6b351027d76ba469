// Title records checked lazily (issue #40): a warm reader whose host sends whole files keeps the
// title packs it reads, and a pack much larger than the record a query needs is not hashed whole:
// each record it uses is checked by its own CRC. So a damaged title record refuses the query that
// needs it, every time it is asked, while queries whose results lie in the same pack's sound
// records answer as before the damage.
import { describe, expect, it } from 'vitest';
import { KEY_KIND } from '../../src/core/packs/pack-format.js';
import { type BytesOutcome, type PackFileSource, PackReader } from '../../src/core/packs/pack-reader.js';
import {
  parseSearchIndexManifest,
  type SearchIndexTable,
  titleBlockKeyOf,
} from '../../src/core/search/search-index-format.js';
import { SearchReader } from '../../src/core/search/search-reader.js';
import { utf8Bytes } from '../../src/core/tree/utf8.js';
import type { SearchDocument } from '../../src/tree-writer/search-index-output.js';
import { writeSearchIndex } from '../helpers/in-memory-search-index.js';
import { random } from '../helpers/random.js';

/** A host that sends whole files, as the Workers asset binding does. */
class WholeFiles implements PackFileSource {
  readonly sendsWholeFiles = true;
  constructor(readonly files: Map<string, Uint8Array>) {}
  async readBytes(relativePath: string): Promise<BytesOutcome> {
    const bytes = this.files.get(relativePath);
    return bytes ? { status: 'ok', bytes, whole: true } : { status: 'missing' };
  }
}

/** Documents each with a word of its own (`only<n>`), so a query finds exactly one of them. */
function corpus(count: number): SearchDocument[] {
  const next = random(11);
  return Array.from({ length: count }, (_, position) => ({
    id: `resources/d${String(position).padStart(4, '0')}.json`,
    title: `Document ${position}`,
    text: `only${position} ${Array.from({ length: 80 }, () => `w${Math.floor(next() * 9000)}`).join(' ')}`,
    url: '',
  }));
}

describe('a warm reader checks the title records it uses, not whole large packs', async () => {
  const documents = corpus(1500);
  // Large title packs, as at 65,000 documents: each holds many blocks and their excerpt sources.
  const written = writeSearchIndex(documents, { targetPackBytes: 256 * 1024 });
  const bytes = new Map(written.files.map((file) => [file.path, file.bytes]));
  const parsed = parseSearchIndexManifest(JSON.parse(JSON.stringify(written.extension)));
  if (!('table' in parsed)) throw new Error('the rows should be inline');
  const table = parsed.table as SearchIndexTable;
  const blockSize = table.blockSize;
  const blockOf = (document: number) => titleBlockKeyOf(Math.floor(document / blockSize));
  const located = await new PackReader(new WholeFiles(bytes)).lookup(
    table.titles,
    KEY_KIND.term,
    utf8Bytes(blockOf(700)),
    blockOf(700),
  );
  if (located.status !== 'ok') throw new Error(located.reason);
  const titlePack = located;

  it('so the query needing a damaged title record is refused, each time, and its neighbours answer', async () => {
    const packBytes = bytes.get(titlePack.pack)!;
    // The pack is one the reader would otherwise hash whole: many times the record's size.
    expect(packBytes.length).toBeGreaterThan(64 * 1024);
    expect(packBytes.length).toBeGreaterThan(titlePack.recordLength * 8);
    const damaged = new Map(bytes);
    const pack = packBytes.slice();
    // One letter of a title in block 700's record: it still parses, so only its CRC can tell.
    const record = pack.subarray(titlePack.recordOffset, titlePack.recordOffset + titlePack.recordLength);
    const title = Buffer.from(record).indexOf('Document 701');
    expect(title).toBeGreaterThan(0);
    record[title] = 'd'.charCodeAt(0);
    damaged.set(titlePack.pack, pack);
    const problems: string[] = [];
    const reader = new SearchReader(new WholeFiles(damaged), table, { onProblem: (reason) => problems.push(reason) });
    // Documents whose title blocks lie in the same pack, before and after the damaged one.
    const neighbours: number[] = [];
    for (let document = 0; document < documents.length && neighbours.length < 6; document += blockSize) {
      if (blockOf(document) === blockOf(700)) continue;
      const at = await new PackReader(new WholeFiles(bytes)).lookup(
        table.titles,
        KEY_KIND.term,
        utf8Bytes(blockOf(document)),
        blockOf(document),
      );
      if (at.status === 'ok' && at.pack === titlePack.pack) neighbours.push(document);
    }
    expect(neighbours.length).toBe(6);
    for (let round = 0; round < 2; round += 1) {
      for (const document of neighbours) {
        const answer = await reader.search({ query: `only${document}` });
        expect(answer.isError, `only${document}`).toBeUndefined();
        const hits = (answer.structuredContent as { results: { id: string; title: string }[] }).results;
        expect(hits.map((hit) => hit.title)).toEqual([`Document ${document}`]);
      }
      problems.length = 0;
      const refused = await reader.search({ query: 'only700' });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/search index is damaged/);
      expect(problems.join('\n')).toMatch(/checksum/);
    }
  });
});
