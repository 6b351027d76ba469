// Two records of the same bytes (a rare word's and its stem's, issue #40) are decoded once
// (recent-postings.ts): the second is the first's list. A record that differs from a recent one in
// a single byte, of its blocks or of its block table, is decoded on its own, and says what it holds.
import { describe, expect, it } from 'vitest';
import { encodeImpactPostings, type PostingList } from '../../src/core/search/postings.js';
import { decodePostingsOnce } from '../../src/core/search/recent-postings.js';
import { random as seededRandom } from '../helpers/random.js';

const corpus = { documentCount: 40_000, tokenCount: 4_000_000 };

function decoded(body: Uint8Array): PostingList {
  const list = decodePostingsOnce(body, corpus, 6);
  if ('problem' in list) throw new Error(list.problem);
  return list;
}

function postingsOf(seed: number): { documents: number[]; impacts: number[] } {
  const random = seededRandom(seed);
  const documents = [...new Set(Array.from({ length: 2_000 }, () => Math.floor(random() * corpus.documentCount)))];
  documents.sort((a, b) => a - b);
  return { documents, impacts: documents.map(() => 1 + Math.floor(random() * 200)) };
}

describe('postings decoded once', () => {
  it('answers the list of a record of the same bytes, read from another buffer', () => {
    const { documents, impacts } = postingsOf(7);
    const body = encodeImpactPostings(documents, impacts);
    const first = decoded(body);
    expect(decoded(body.slice())).toBe(first);
    expect(first.readEveryBlock()).toBeUndefined();
    expect([...first.documents]).toEqual(documents);
  });

  it('decodes a record one block byte away on its own: its postings are its own', () => {
    const { documents, impacts } = postingsOf(8);
    const body = encodeImpactPostings(documents, impacts);
    const first = decoded(body);
    // One posting of the first block weighs one step more (still below its block's best): same length.
    const blockMax = Math.max(...impacts.slice(0, 128));
    const position = impacts.findIndex((impact, at) => at < 128 && impact < blockMax - 1);
    const changed = impacts.map((impact, at) => (at === position ? impact + 1 : impact));
    const otherBody = encodeImpactPostings(documents, changed);
    expect(otherBody.length).toBe(body.length);
    const other = decoded(otherBody);
    expect(other).not.toBe(first);
    expect(other.readEveryBlock()).toBeUndefined();
    expect(other.impacts![position]).toBe(impacts[position]! + 1);
    expect(first.readEveryBlock()).toBeUndefined();
    expect(first.impacts![position]).toBe(impacts[position]);
  });

  it('decodes a record whose block table differs on its own, and refuses the block it lies about', () => {
    const { documents, impacts } = postingsOf(9);
    const body = encodeImpactPostings(documents, impacts);
    const first = decoded(body);
    // The first block's largest impact in the table, raised by one: the blocks' bytes are the same.
    const lied = body.slice();
    const blockMax = Math.max(...impacts.slice(0, 128));
    let at = 0;
    // Past the count, the first block's last document and its length (varints): its largest impact.
    for (let varints = 0; varints < 3; varints += 1) while (lied[at++]! >= 0x80);
    expect(lied[at]).toBe(blockMax);
    lied[at] = blockMax + 1;
    const other = decodePostingsOnce(lied, corpus, 6);
    expect('problem' in other).toBe(false);
    expect(other).not.toBe(first);
    expect((other as PostingList).readEveryBlock()).toBe('a block does not end or weigh as its table says');
    expect(first.readEveryBlock()).toBeUndefined();
  });
});
