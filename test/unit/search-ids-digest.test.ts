// The digest of the index writer's ids in number order (DocumentColumns.idsDigest,
// src/tree-writer/search-document-columns.ts), which names the documents the kept term records
// were made for (search-kept-terms.ts): laid out from the ids' bytes, it is the digest
// documentsDigestOf makes of their strings, for ASCII ids, ids of other scripts and emoji, and an
// id longer than a chunk, so an edit build patches the records the previous build kept.
import { describe, expect, it } from 'vitest';
import { DocumentColumns } from '../../src/tree-writer/search-document-columns.js';
import { documentsDigestOf } from '../../src/tree-writer/search-kept-terms.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function columnsOf(ids: string[]): Promise<DocumentColumns> {
  const columns = new DocumentColumns(await temporaryFolder('staticmcp-ids-digest-'), false);
  for (const id of ids) columns.ids.push(id);
  columns.close();
  return columns;
}

describe('the ids digest of the search index writer', () => {
  it('is the digest of the id strings in number order, whatever the ids hold', async () => {
    const ids: string[] = [];
    for (let number = 0; number < 3000; number += 1) ids.push(`resources/part-${number % 7}/doc-${number}.md.json`);
    ids.push('resources/café/naïve.md.json', 'resources/日本語/文書.md.json', 'resources/emoji/🦀-crab.md.json');
    ids.push(`resources/long/${'x'.repeat(70_000)}.md.json`, 'resources/a.json');
    const columns = await columnsOf(ids);
    const { byNumber } = columns.numbers();
    const expected = documentsDigestOf(columns.idsInOrder(byNumber));
    expect(columns.idsDigest(byNumber)).toBe(expected);
    expect(expected).toBe(documentsDigestOf([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))));
  });

  it('is the empty list digest with no documents', async () => {
    const columns = await columnsOf([]);
    expect(columns.idsDigest(new Uint32Array(0))).toBe(documentsDigestOf([]));
  });
});
