// The `total` of a search (issue #40): how many documents hold any of the query's words, the union
// of their postings counted in a bitmap of the corpus (one bit a document: 80 KiB at 650,000).
// Every block of the lists is decoded, which the ranking (bm25.ts) mostly avoids: linear in the
// postings the query's words have. Portable.
import type { PostingList } from './postings.js';

/** Documents in any of `lists`; the problem of the list (by position) whose block did not decode. */
export function countMatchingDocuments(
  lists: readonly PostingList[],
  documentCount: number,
): number | { problem: string; list: number } {
  if (lists.length === 0) return 0;
  if (lists.length === 1) return lists[0]!.count;
  const seen = new Uint32Array(Math.ceil(documentCount / 32));
  let total = 0;
  for (let index = 0; index < lists.length; index += 1) {
    const list = lists[index]!;
    const problem = list.readEveryBlock();
    if (problem !== undefined) return { problem, list: index };
    const documents = list.documents;
    for (let position = 0; position < list.count; position += 1) {
      const document = documents[position]!;
      const word = document >>> 5;
      const bit = 1 << (document & 31);
      if ((seen[word]! & bit) === 0) {
        seen[word] = seen[word]! | bit;
        total += 1;
      }
    }
  }
  return total;
}
