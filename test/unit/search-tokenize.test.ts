// The search tokenizer and BM25 scorer (core/search): the terms a user's words become, whatever
// their script, width, case or accents, and scores equal to FTS5's bm25() formula.
import { describe, expect, it } from 'vitest';
import {
  inverseDocumentFrequency,
  type RankOutcome,
  rankBm25,
  type ScoredDocument,
} from '../../src/core/search/bm25.js';
import {
  decodePostings,
  encodeImpactPostings,
  encodePostings,
  impactOf,
  PostingList,
  termWeightOf,
} from '../../src/core/search/postings.js';
import { foldText, MAX_TERM_LENGTH, tokenize } from '../../src/core/search/tokenize.js';
import { unspaced, unspacedOrOther } from '../../src/core/search/unicode-patterns.js';

describe('search tokens', () => {
  it('folds width, ligatures, case and Latin, Greek and Cyrillic accents', () => {
    expect(tokenize('Ｃａｆé ﬁle STRASSE Straße Ἀθῆναι Ёлка naïve')).toEqual([
      'cafe',
      'file',
      'strasse',
      'strasse',
      'αθηναι',
      'елка',
      'naive',
    ]);
    // A word typed with a combining accent and the same word precomposed meet.
    expect(tokenize('re\u0301sume\u0301')).toEqual(tokenize('résumé'));
    expect(tokenize('ΣΟΦΟΣ σοφός')).toEqual(['σοφοσ', 'σοφοσ']);
  });

  it('keeps the marks other scripts spell with, and Hangul syllables whole', () => {
    expect(tokenize('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    expect(tokenize('한국어 문서')).toEqual(['한국어', '문서']);
  });

  it('cuts a 12 MB run of letters (a base64 resource) without overflowing the stack, and drops it', () => {
    expect(tokenize(`start ${'a'.repeat(12 * 1024 * 1024)} end`)).toEqual(['start', 'end']);
    expect(tokenize(`x東${'b'.repeat(100_000)}京y`)).toEqual(['x', '東', '京', 'y']);
  });

  it('cuts Han, Hiragana and Katakana into single characters, and skips punctuation and emoji', () => {
    expect(tokenize('東京タワーは高い')).toEqual(['東', '京', 'タ', 'ワ', 'ー', 'は', '高', 'い']);
    expect(tokenize('hello, world! 🙂 -- 42x … «ok»')).toEqual(['hello', 'world', '42x', 'ok']);
    expect(tokenize('?!… -- ... 🙂🙂')).toEqual([]);
  });

  it('cuts text with a few non-ASCII words into the same terms as folding it whole does', () => {
    // tokenize folds only the words that hold a non-ASCII character and lowercases the rest: random
    // text of ASCII and of characters that fold, compose, change case by context or are unspaced
    // must give the terms of the whole text folded at once.
    const whole = (text: string): string[] => {
      const terms: string[] = [];
      for (const [run] of foldText(`${text} \u00e9`).matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
        const pieces = unspaced().test(run) ? [...run.matchAll(unspacedOrOther())].map(([piece]) => piece) : [run];
        terms.push(...pieces.filter((piece) => piece.length <= MAX_TERM_LENGTH));
      }
      // The é appended as a word of its own takes the general path for the whole text.
      return terms.slice(0, -1);
    };
    const others = [
      '\u0301',
      'Σ',
      'ΑΣ',
      'ß',
      'ﬁ',
      '\u00a0',
      '\u00a8',
      'é',
      'Ё',
      '漢字',
      'カナ',
      '한',
      '😀',
      'Ｗ',
      '\u2002',
      'İ',
      // Prose punctuation the ASCII loop cuts at, and two that NFKC gives a mark (tokenize.ts MAY_FOLD).
      '—',
      '•',
      '’',
      '«',
      '\u00b7',
      '\u2017',
      '\u203e',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let sample = 0; sample < 300; sample += 1) {
      let text = '';
      while (text.length < 600) {
        const roll = random();
        if (roll < 0.04) text += others[Math.floor(random() * others.length)];
        else if (roll < 0.06) text += 'Ab9'.repeat(20 + Math.floor(random() * 5));
        else if (roll < 0.2) text += ' \n\t'[Math.floor(random() * 3)];
        else text += String.fromCharCode(Math.floor(random() * 128));
      }
      expect(tokenize(text)).toEqual(whole(text));
    }
  });

  it('cuts words at prose punctuation as at ASCII punctuation, whatever its neighbours', () => {
    // Every unit the ASCII loop treats as punctuation (tokenize.ts MAY_FOLD) folds into no letter,
    // number or mark, and a word on either side keeps its letters.
    const prose = [0xa0, 0xa9, 0xab, 0xae, 0xb0, 0xb7, 0xbb, 0xd7];
    for (let unit = 0x2010; unit <= 0x205e; unit += 1) if (unit !== 0x2017 && unit !== 0x203e) prose.push(unit);
    for (const unit of prose) {
      const mark = String.fromCharCode(unit);
      expect(foldText(mark)).not.toMatch(/[\p{L}\p{N}\p{M}]/u);
      expect(tokenize(`Don${mark}T x${mark}${mark}Y9`)).toEqual(['don', 't', 'x', 'y9']);
      expect(tokenize(`Ça${mark}va`)).toEqual(['ca', 'va']);
    }
    expect(tokenize('a\u2017b')).toEqual(['a', '\u0333b']);
  });

  it('leaves out runs longer than a word', () => {
    expect(tokenize(`short ${'a'.repeat(MAX_TERM_LENGTH + 1)} ${'b'.repeat(MAX_TERM_LENGTH)}`)).toEqual([
      'short',
      'b'.repeat(MAX_TERM_LENGTH),
    ]);
  });
});

describe('BM25 as FTS5 computes it', () => {
  /** A posting list with each posting's exact weight, as a format-2 index decodes. */
  const list = (documents: number[], frequencies: number[], lengths: number[], averageLength: number) =>
    PostingList.ofDecoded(
      documents,
      documents.map((_, at) => termWeightOf(frequencies[at]!, lengths[at]!, averageLength)),
    );
  const ranking = (outcome: RankOutcome): ScoredDocument[] => {
    if ('problem' in outcome) throw new Error(outcome.problem);
    return outcome;
  };

  it('scores with k1 = 1.2, b = 0.75 and FTS5 idf, its floor included', () => {
    const corpus = { documentCount: 10, tokenCount: 100 };
    const ranked = ranking(rankBm25([list([2, 5], [3, 1], [20, 5], 10), list([5], [1], [5], 10)], corpus, 10));
    const idf1 = Math.log((10 - 2 + 0.5) / 2.5);
    const idf2 = Math.log((10 - 1 + 0.5) / 1.5);
    const part = (idf: number, tf: number, length: number) =>
      (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * length) / 10));
    expect(ranked.map((scored) => scored.document)).toEqual([5, 2]);
    expect(ranked[0]!.score).toBeCloseTo(part(idf1, 1, 5) + part(idf2, 1, 5), 12);
    expect(ranked[1]!.score).toBeCloseTo(part(idf1, 3, 20), 12);
    expect(inverseDocumentFrequency(10, 6)).toBe(1e-6);
  });

  it('keeps the best `limit`, ties to the lower document number', () => {
    const documents = Array.from({ length: 50 }, (_, position) => position);
    const ones = documents.map(() => 1);
    const ranked = ranking(rankBm25([list(documents, ones, ones, 1)], { documentCount: 100, tokenCount: 100 }, 3));
    expect(ranked.map((scored) => scored.document)).toEqual([0, 1, 2]);
  });

  it('ranks overlapping lists exactly as scoring every document one by one does, scores to the bit', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const corpus = { documentCount: 20_000, tokenCount: 1_600_000 };
    const sortedDocuments = (size: number) =>
      [...new Set(Array.from({ length: size }, () => Math.floor(random() * corpus.documentCount)))].sort(
        (a, b) => a - b,
      );
    let blocks = 0;
    let decodedBlocks = 0;
    for (let round = 0; round < 60; round += 1) {
      // Rare and common terms together (up to 12,000 postings: ~94 blocks), some at FTS5's idf
      // floor; exact weights (formats 1 and 2) or impacts in blocks decoded on demand (format 4),
      // whose blocks the ranking skips: the page must not change.
      const blocked = round % 2 === 1;
      const made = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
        const documents = sortedDocuments(Math.floor(random() ** 3 * 16_000) + 1);
        if (!blocked)
          return {
            reference: PostingList.ofDecoded(
              documents,
              documents.map(() => random() * 2.2),
            ),
          };
        // Impacts mostly low with a few high ones (round 3, 7, …): block maxima differ, blocks are skipped.
        const skew = round % 4 === 3 ? 8 : 2;
        const bytes = encodeImpactPostings(
          documents,
          documents.map(() => 1 + Math.floor(random() ** skew * 254)),
        );
        const reference = decodePostings(bytes, corpus, 4) as PostingList;
        expect(reference.readEveryBlock()).toBeUndefined();
        return { reference, lazy: decodePostings(bytes, corpus, 4) as PostingList };
      });
      // The reference: every document's score summed term by term in list order, all sorted.
      const scores = new Map<number, number>();
      for (const { reference } of made) {
        const idf = inverseDocumentFrequency(corpus.documentCount, reference.count);
        reference.documents.forEach((document, position) => {
          scores.set(document, (scores.get(document) ?? 0) + idf * reference.weightAt(position));
        });
      }
      const expected = [...scores]
        .map(([document, score]) => ({ document, score }))
        .sort((a, b) => b.score - a.score || a.document - b.document)
        .slice(0, 10);
      const lists = made.map((lists) => lists.lazy ?? lists.reference);
      expect(ranking(rankBm25(lists, corpus, 10))).toEqual(expected);
      for (const list of blocked ? lists : []) {
        blocks += list.blockCount;
        decodedBlocks += list.decoded.reduce((sum, flag) => sum + flag, 0);
      }
    }
    // Blocks were skipped: the pages above were made with skipping.
    expect(decodedBlocks).toBeLessThan(blocks * 0.9);
  });

  it('skips the blocks of a long list that cannot change the page, and decodes the ones that can', () => {
    const corpus = { documentCount: 100_000, tokenCount: 8_000_000 };
    // A rare term in 20 documents, a common one in every fourth (25,000 postings, 196 blocks).
    const rare = Array.from({ length: 20 }, (_, at) => 100 + at * 400);
    const common = Array.from({ length: 25_000 }, (_, at) => at * 4);
    const blocked = (documents: number[], impact: number) =>
      decodePostings(
        encodeImpactPostings(
          documents,
          documents.map(() => impact),
        ),
        corpus,
        4,
      ) as PostingList;
    const rareList = blocked(rare, 200);
    const commonList = blocked(common, 100);
    const ranked = ranking(rankBm25([commonList, rareList], corpus, 10));
    expect(ranked.map((scored) => scored.document)).toEqual(rare.slice(0, 10));
    // Every rare document is in the common list too: the first ten score both terms.
    const both =
      inverseDocumentFrequency(100_000, 20) * rareList.weightAt(0) +
      inverseDocumentFrequency(100_000, 25_000) * commonList.weightAt(commonList.documents.indexOf(100));
    expect(ranked[0]!.score).toBe(both);
    // Walked until the page holds ten rare documents (doc 3,700: 8 blocks), then probed once per
    // rare document left (10 blocks at most): not the other 178.
    const decodedBlocks = commonList.decoded.reduce((sum, flag) => sum + flag, 0);
    expect(decodedBlocks).toBeLessThanOrEqual(18);
  });

  it('reports a block whose bytes lie about it, and which list it is', () => {
    const corpus = { documentCount: 1_000, tokenCount: 10_000 };
    const documents = Array.from({ length: 300 }, (_, at) => at * 3);
    const bytes = encodeImpactPostings(
      documents,
      documents.map(() => 7),
    );
    // The second block's first impact (past df, the 3-entry table and block 0) raised over its table's max.
    const tampered = bytes.slice();
    const tableEnd = bytes.length - documents.length * 2;
    tampered[tableEnd + 128 * 2 + 1] = 9;
    const list = decodePostings(tampered, corpus, 4) as PostingList;
    const outcome = rankBm25([PostingList.ofDecoded([5], [1]), list], corpus, 1_000);
    expect(outcome).toEqual({ problem: 'a posting weighs more than its block says', list: 1 });
  });
});

describe('postings bytes', () => {
  const postings = [
    { document: 0, termFrequency: 1, documentLength: 3 },
    { document: 200, termFrequency: 7, documentLength: 70_000 },
    { document: 1_000_000, termFrequency: 2, documentLength: 2 },
  ];
  const corpus = { documentCount: 1_000_001, tokenCount: 10_000_010 };

  it('read back what was written, each weight within half a step of the exact one, in 2 bytes a posting or so', () => {
    const bytes = encodePostings(postings, 10);
    // df, the table's one entry (last document 1,000,000, 9 bytes, max impact): 3 + 1 + 1, then
    // (delta varint, impact): 1 + (1 + 1) + (2 + 1) + (3 + 1).
    expect(bytes.length).toBe(15);
    const decoded = decodePostings(bytes, corpus, 4);
    if ('problem' in decoded) throw new Error(decoded.problem);
    expect(decoded.readEveryBlock()).toBeUndefined();
    expect([...decoded.documents]).toEqual([0, 200, 1_000_000]);
    // Within half a step of the exact weight; a weight under one step (tf 7 in 70,000 terms) is one step.
    for (const [at, posting] of postings.entries()) {
      const exact = termWeightOf(posting.termFrequency, posting.documentLength, 10);
      expect(Math.abs(decoded.weightAt(at) - Math.max(exact, 2.2 / 255))).toBeLessThanOrEqual(2.2 / 255 / 2 + 1e-12);
    }
    // A posting that barely matches (tf 1 in a huge document) still weighs one step, never 0.
    expect(impactOf(1, 10_000_000, 10)).toBe(1);
  });

  it('refuse bytes that do not hold what they claim, in every encoding', () => {
    const bytes = encodePostings(postings, 10);
    expect(decodePostings(bytes, { documentCount: 1_000, tokenCount: 10_000 }, 4)).toEqual({
      problem: 'it names document 1000000 of 1000',
    });
    expect(decodePostings(bytes.subarray(0, bytes.length - 1), corpus, 4)).toEqual({
      problem: 'its blocks do not take the bytes its table says',
    });
    expect(decodePostings(Uint8Array.from([...bytes, 0]), corpus, 4)).toHaveProperty('problem');
    // A count of 2^34 postings in a 6-byte body: refused, nothing allocated.
    expect(decodePostings(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x7f, 0]), corpus, 4)).toHaveProperty('problem');
    expect(decodePostings(new Uint8Array(0), corpus, 4)).toHaveProperty('problem');
    // df 1, its table entry (last document, block bytes, max impact), its block (delta, impact).
    expect(decodePostings(Uint8Array.from([1, 0, 2, 0, 0, 1]), corpus, 4)).toEqual({
      problem: 'a posting has no weight',
    });
    const blockProblem = (body: number[]) =>
      (decodePostings(Uint8Array.from(body), corpus, 4) as PostingList).readEveryBlock();
    expect(blockProblem([1, 0, 2, 5, 0, 0])).toBe('a posting has no weight');
    expect(blockProblem([1, 3, 2, 5, 0, 5])).toBe('a block does not end or weigh as its table says');
    expect(blockProblem([1, 0, 2, 5, 0, 4])).toBe('a block does not end or weigh as its table says');
    expect(blockProblem([1, 0, 2, 5, 0, 6])).toBe('a posting weighs more than its block says');
    expect(blockProblem([1, 0, 2, 5, 0x80, 0x80])).toBe('a block ends inside a posting');
    // Format 3's (delta, impact) without a table, and format 2's (delta, tf, length).
    expect(decodePostings(Uint8Array.from([1, 0, 0]), corpus, 3)).toEqual({ problem: 'a posting has no weight' });
    expect(decodePostings(Uint8Array.from([1, 0, 5, 4]), corpus, 2)).toEqual({
      problem: 'a posting counts more terms than its document has',
    });
  });

  it('read a format-3 body (trees built before) as it was written', () => {
    const decoded = decodePostings(Uint8Array.from([2, 3, 10, 4, 255]), corpus, 3);
    if ('problem' in decoded) throw new Error(decoded.problem);
    expect([...decoded.documents]).toEqual([3, 7]);
    expect(Array.from({ length: decoded.count }, (_, at) => decoded.weightAt(at))).toEqual([
      10 * (2.2 / 255),
      255 * (2.2 / 255),
    ]);
  });

  it('read a format-2 body (trees built before) with exact weights', () => {
    // df 2: (delta 3, tf 2, length 9), (delta 4, tf 1, length 20).
    const decoded = decodePostings(Uint8Array.from([2, 3, 2, 9, 4, 1, 20]), corpus, 2);
    if ('problem' in decoded) throw new Error(decoded.problem);
    expect([...decoded.documents]).toEqual([3, 7]);
    expect(Array.from({ length: decoded.count }, (_, at) => decoded.weightAt(at))).toEqual([
      termWeightOf(2, 9, 10),
      termWeightOf(1, 20, 10),
    ]);
  });
});
