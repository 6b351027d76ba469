// What the excerpts of a search's ranked documents are cut from (issue #40): in format 6 their
// excerpt sources (excerpt-source.ts), which follow their title blocks in the same packs, placed by
// the blocks' entries (a host that sends a pack whole for the block has sent them too, and the
// query's one read of that pack serves both), and inflated as one stream; before it, each
// document's stored text, found by its id once the title blocks are read. Portable.
import type { PackReader } from '../packs/pack-reader.js';
import type { ScoredDocument } from './bm25.js';
import { inflateExcerptSources, sourceRecordsAfter } from './excerpt-source.js';
import { type SearchIndexTable, STEMMED_FORMAT, type TitleEntry } from './search-index-format.js';
import { readExcerptText } from './stored-documents.js';

export type ExcerptText = { text: string; goesOn: boolean } | { problem: string } | undefined;

/** A title block as a search read it: its entries, and where its record lies (its sources follow it). */
export interface ReadTitleBlock {
  entries: TitleEntry[];
  pack: string;
  packLength: number;
  recordOffset: number;
  recordLength: number;
}

/**
 * Per ranked document, the text its excerpt is cut from (`goesOn`: the document's text is longer),
 * undefined for a document that stores no text or whose record cannot be read (`onProblem` hears
 * why), or the problem of an excerpt source that cannot be read or does not inflate (the caller
 * names its id). `blocks` holds the title block of every ranked document. `table` is read only
 * before format 6, whose excerpts come from the documents' records.
 */
export async function readExcerptTexts(
  packs: PackReader,
  blockSize: number,
  table: () => Promise<SearchIndexTable>,
  format: number,
  best: readonly ScoredDocument[],
  options: { onProblem?: (reason: string) => void },
  blocks: ReadonlyMap<number, ReadTitleBlock>,
): Promise<ExcerptText[]> {
  const blockOf = (document: number) => blocks.get(Math.floor(document / blockSize))!;
  if (format < STEMMED_FORMAT) {
    return Promise.all(
      best.map(async ({ document }) => {
        const id = blockOf(document).entries[document % blockSize]!.id;
        const stored = await readExcerptText(packs, (await table()).documents, format, id);
        if (stored.status === 'damaged') options.onProblem?.(stored.reason);
        return stored.status === 'ok' ? { text: stored.text, goesOn: false } : undefined;
      }),
    );
  }
  const found = await Promise.all(
    best.map(async ({ document }) => {
      const block = blockOf(document);
      const number = Math.floor(document / blockSize);
      const place = sourceRecordsAfter({ number, ...block }, block.entries, blockSize)[document % blockSize];
      // No source: the document stores no text.
      if (place === undefined) return undefined;
      const read = await packs.readPlacedRecord(
        { path: block.pack, length: block.packLength },
        place.recordOffset,
        place.recordLength,
        place.name,
      );
      return read.status === 'ok' ? { body: read.body, pack: block.pack } : { problem: read.reason };
    }),
  );
  const present = found.flatMap((read) => (read === undefined || 'problem' in read ? [] : [read]));
  const sources = await inflateExcerptSources(present.map((read) => read.body));
  let next = 0;
  return found.map((read, position) => {
    if (read === undefined) return undefined;
    if ('problem' in read) return { problem: `(document ${best[position]!.document}): ${read.problem}` };
    const source = sources[next++]!;
    return 'problem' in source
      ? { problem: `(document ${best[position]!.document}, in ${read.pack}): ${source.problem}` }
      : { text: source.text, goesOn: source.cut };
  });
}
