// What the excerpts of a search's ranked documents are cut from (issue #40): in format 6 their
// excerpt sources (excerpt-source.ts), read at once beside the title blocks, from the same packs
// (a block's sources follow it: a host that sends a pack whole for the block sends them too, and
// the query's one read of that pack serves both), and inflated as one stream; before it, each
// document's stored text, found by its id once the title blocks are read. Portable.
import { KEY_KIND } from '../packs/pack-format.js';
import type { PackReader } from '../packs/pack-reader.js';
import { utf8Bytes } from '../tree/utf8.js';
import type { ScoredDocument } from './bm25.js';
import { excerptSourceKeyOf, inflateExcerptSources } from './excerpt-source.js';
import { type SearchIndexTable, STEMMED_FORMAT } from './search-index-format.js';
import { readExcerptText } from './stored-documents.js';

export type ExcerptText = { text: string; goesOn: boolean } | { problem: string } | undefined;

/**
 * Per ranked document, the text its excerpt is cut from (`goesOn`: the document's text is longer),
 * undefined for a document that stores no text or whose record cannot be read (`onProblem` hears
 * why), or the problem of an excerpt source that does not inflate (the caller names its id).
 */
export async function readExcerptTexts(
  packs: PackReader,
  table: SearchIndexTable,
  format: number,
  best: readonly ScoredDocument[],
  options: { onProblem?: (reason: string) => void },
  idsOf: () => Promise<string[]>,
): Promise<ExcerptText[]> {
  if (format < STEMMED_FORMAT) {
    const ids = await idsOf();
    return Promise.all(
      ids.map(async (id) => {
        const stored = await readExcerptText(packs, table.documents, format, id);
        if (stored.status === 'damaged') options.onProblem?.(stored.reason);
        return stored.status === 'ok' ? { text: stored.text, goesOn: false } : undefined;
      }),
    );
  }
  const found = await Promise.all(
    best.map(async ({ document }) => {
      const key = excerptSourceKeyOf(document, table.blockSize);
      // Kept as the title block's pack is (the same pack): whichever lookup reads it first shares it.
      const read = await packs.lookup(table.titles, KEY_KIND.term, utf8Bytes(key), key);
      if (read.status === 'ok') return read;
      // No source: the document stores no text. Anything else is damage, costing this excerpt only.
      if (read.status !== 'missing' || !read.reason.startsWith(`${key} is not in this tree`))
        options.onProblem?.(read.reason);
      return undefined;
    }),
  );
  const present = found.flatMap((read) => (read === undefined ? [] : [read]));
  const sources = await inflateExcerptSources(present.map((read) => read.body));
  let next = 0;
  return found.map((read, position) => {
    if (read === undefined) return undefined;
    const source = sources[next++]!;
    return 'problem' in source
      ? { problem: `(document ${best[position]!.document}, in ${read.pack}): ${source.problem}` }
      : { text: source.text, goesOn: source.cut };
  });
}
