// The `total` a search answers (issue #40): exactly how many documents hold any of the query's
// words, whichever blocks the ranking decoded first, and a damaged block refused as a decode
// refuses it, whether the ranking read that block or not.
import { describe, expect, it } from 'vitest';
import { countMatchingDocuments } from '../../src/core/search/match-count.js';
import { decodePostings, encodeImpactPostings, type PostingList } from '../../src/core/search/postings.js';

const corpus = { documentCount: 20_000, tokenCount: 200_000 };

/** A seeded list of distinct ascending documents below corpus.documentCount, one in `every`. */
function documentsOf(seed: number, every: number): number[] {
  let state = seed;
  const documents: number[] = [];
  for (let document = 0; document < corpus.documentCount; document += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    if (state % every === 0) documents.push(document);
  }
  return documents;
}

function listOf(documents: number[]): PostingList {
  const impacts = documents.map((document) => 1 + (document % 200));
  const list = decodePostings(encodeImpactPostings(documents, impacts), corpus, 4);
  if ('problem' in list) throw new Error(list.problem);
  return list;
}

describe('the match count', () => {
  const words = [documentsOf(7, 3), documentsOf(11, 5), documentsOf(13, 40)];
  const union = new Set(words.flat()).size;

  it('counts each document holding any word once, however many blocks were decoded before', () => {
    // Lists of many blocks (128 postings each) that overlap.
    expect(words[2]!.length).toBeGreaterThan(3 * 128);
    expect(union).toBeLessThan(words[0]!.length + words[1]!.length + words[2]!.length);
    // Undecoded, every other block decoded, every block decoded: the same count.
    for (const decodes of [() => false, (block: number) => block % 2 === 1, () => true]) {
      const lists = words.map(listOf);
      for (const list of lists)
        for (let block = 0; block < list.blockCount; block += 1)
          if (decodes(block)) expect(list.readBlock(block)).toBeUndefined();
      expect(countMatchingDocuments(lists, corpus.documentCount)).toBe(union);
      // Any order of the words: the same count.
      expect(countMatchingDocuments([...lists].reverse(), corpus.documentCount)).toBe(union);
    }
    // Many lists of one word: counted once.
    expect(countMatchingDocuments([listOf(words[0]!), listOf(words[0]!)], corpus.documentCount)).toBe(words[0]!.length);
    // A list counted undecoded still ranks: its blocks decode to the documents written.
    const list = listOf(words[1]!);
    countMatchingDocuments([list, listOf(words[2]!)], corpus.documentCount);
    expect(list.readEveryBlock()).toBeUndefined();
    expect([...list.documents]).toEqual(words[1]);
  });

  it('refuses a damaged block of any list as a decode does, naming the list', () => {
    const sound = listOf(words[0]!);
    // df 1, the table's entry (last document 2, block bytes, max impact), the block (delta, impact).
    const damaged: [number[], string][] = [
      [[1, 2, 2, 5, 0, 0], 'a posting has no weight'],
      [[1, 3, 2, 5, 2, 5], 'a block does not end or weigh as its table says'],
      [[1, 2, 2, 5, 2, 4], 'a block does not end or weigh as its table says'],
      [[1, 2, 2, 5, 2, 6], 'a posting weighs more than its block says'],
      [[1, 2, 2, 5, 0x80, 0x80], 'a block ends inside a posting'],
      [[1, 2, 3, 5, 2, 5, 0], 'bytes follow the last posting of a block'],
      [[2, 3, 4, 5, 2, 5, 0, 5], 'its documents are not in ascending order'],
    ];
    for (const [body, problem] of damaged) {
      const bad = () => decodePostings(Uint8Array.from(body), corpus, 4) as PostingList;
      expect(bad().readEveryBlock()).toBe(problem);
      expect(countMatchingDocuments([sound, bad()], corpus.documentCount)).toEqual({ problem, list: 1 });
      expect(countMatchingDocuments([bad(), sound], corpus.documentCount)).toEqual({ problem, list: 0 });
    }
  });
});
