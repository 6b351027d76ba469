// A search result's excerpt (issue #40): the EXCERPT_WORDS words of a document's text around the
// passage that holds the most distinct query terms (then the most matches), as plain text with
// runs of white space made one space, and where the matching words lie in it (UTF-16 offsets, as
// JavaScript strings count). Only the first EXCERPT_SCAN_CHARS of a text are looked at, so a
// result costs the same whatever its document's size. Portable.
import { asciiExcerptWordsOf, type ExcerptWords } from './ascii-excerpt-words.js';
import type { TokenMatcher } from './query-terms.js';
import { foldText, MAX_TERM_LENGTH, tokenize } from './tokenize.js';
import { unspaced, unspacedOrOther, wordRuns } from './unicode-patterns.js';

/** Words an excerpt shows: a few lines of text. */
export const EXCERPT_WORDS = 30;
/** Characters of a document's text an excerpt is looked for in. */
export const EXCERPT_SCAN_CHARS = 16 * 1024;
/** Words an excerpt shows before its first match, when it can. */
const LEAD_WORDS = 5;
/** Characters of punctuation kept between two words of an excerpt. */
const MAX_GAP_CHARS = 16;

export interface Excerpt {
  text: string;
  /** [start, end) of each matching word in `text`, in UTF-16 units. */
  matches: [number, number][];
}

const ASCII_WORD = /^[A-Za-z0-9]+$/;
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The words of a text that is not plain ASCII, as parallel lists: each word's [start, end) and
 * the query term it matches (-1: none). Lists of numbers rather than an object per word: each
 * object was garbage for a cold isolate's first collections.
 */
interface Runs {
  starts: number[];
  ends: number[];
  terms: number[];
}

/** The term a run of letters matches, folding it as tokenize does (ASCII the cheap way). */
function termOfRun(run: string, matchOf: TokenMatcher): number {
  if (run.length > MAX_TERM_LENGTH * 4) return -1;
  if (ASCII_WORD.test(run)) return run.length <= MAX_TERM_LENGTH ? matchOf(run.toLowerCase()) : -1;
  const folded = foldText(run);
  for (const token of tokenize(folded)) {
    const term = matchOf(token);
    if (term >= 0) return term;
  }
  return -1;
}

/** The words of `text`, not plain ASCII (as tokenize cuts them), and the query term each matches. */
function runsOf(text: string, matchOf: TokenMatcher): Runs {
  const runs: Runs = { starts: [], ends: [], terms: [] };
  const add = (start: number, end: number, term: number) => {
    runs.starts.push(start);
    runs.ends.push(end);
    runs.terms.push(term);
  };
  for (const match of text.matchAll(wordRuns())) {
    const run = match[0];
    if (!unspaced().test(run)) {
      add(match.index, match.index + run.length, termOfRun(run, matchOf));
      continue;
    }
    // Each ideograph or kana a word of its own, as tokenize cuts them.
    for (const piece of run.matchAll(unspacedOrOther())) {
      const start = match.index + piece.index;
      add(start, start + piece[0].length, termOfRun(piece[0], matchOf));
    }
  }
  return runs;
}

/** The words of `text` for an excerpt: ASCII's found by the regexp engine, others walked one by one. */
function wordsOf(text: string, matchOf: TokenMatcher): ExcerptWords {
  if (!NON_ASCII.test(text)) return asciiExcerptWordsOf(text, matchOf);
  const { starts, ends, terms } = runsOf(text, matchOf);
  const hitWords: number[] = [];
  const hitTerms: number[] = [];
  terms.forEach((term, word) => {
    if (term < 0) return;
    hitWords.push(word);
    hitTerms.push(term);
  });
  const spansOf = (first: number, end: number) => ({ starts: starts.slice(first, end), ends: ends.slice(first, end) });
  return { count: terms.length, hitWords, hitTerms, spansOf };
}

/**
 * The excerpt of `text` for a query of `termCount` terms whose matcher is `matchOf`
 * (query-terms.ts); undefined when the text holds no word. `goesOn`: `text` is the start of a
 * longer one (an excerpt source), so an excerpt at its end ends in `…`.
 */
export function excerptOf(text: string, matchOf: TokenMatcher, termCount: number, goesOn = false): Excerpt | undefined {
  const scanned = text.length > EXCERPT_SCAN_CHARS ? text.slice(0, EXCERPT_SCAN_CHARS) : text;
  const { count, hitWords, hitTerms, spansOf } = wordsOf(scanned, matchOf);
  if (count === 0) return undefined;
  // The window of EXCERPT_WORDS words with the most distinct terms, then the most matches, ending
  // at each word in turn: it changes only where a hit enters (its word) or leaves (EXCERPT_WORDS
  // words on), so only those ends (and the first) are weighed, in order, the first best kept.
  const counts = new Uint32Array(termCount + 1);
  let distinct = 0;
  let matched = 0;
  let best = { start: 0, distinct: -1, matched: -1 };
  let entering = 0;
  let leaving = 0;
  for (let end = 0; end < count; ) {
    if (entering < hitWords.length && hitWords[entering] === end) {
      if (counts[hitTerms[entering]!]!++ === 0) distinct += 1;
      matched += 1;
      entering += 1;
    }
    if (leaving < hitWords.length && hitWords[leaving]! + EXCERPT_WORDS === end) {
      if (--counts[hitTerms[leaving]!]! === 0) distinct -= 1;
      matched -= 1;
      leaving += 1;
    }
    if (distinct > best.distinct || (distinct === best.distinct && matched > best.matched))
      best = { start: Math.max(0, end - EXCERPT_WORDS + 1), distinct, matched };
    end = Math.min(
      entering < hitWords.length ? hitWords[entering]! : count,
      leaving < hitWords.length ? hitWords[leaving]! + EXCERPT_WORDS : count,
    );
  }
  // The window found ends at its last match: moved on to start LEAD_WORDS before its first one
  // (it keeps every match), so the matches read in their context.
  let first = best.start;
  const firstMatch = hitWords.find((word) => word >= first && word < Math.min(count, first + EXCERPT_WORDS)) ?? -1;
  if (firstMatch > first + LEAD_WORDS)
    first = Math.max(first, Math.min(firstMatch - LEAD_WORDS, count - EXCERPT_WORDS));
  const last = Math.min(count, first + EXCERPT_WORDS) - 1;
  // The excerpt's words, and the start of the word after it (where its last word's punctuation ends).
  const { starts, ends } = spansOf(first, Math.min(count, last + 2));
  let hit = hitWords.findIndex((word) => word >= first);
  let excerpt = first > 0 ? '… ' : '';
  const matches: [number, number][] = [];
  for (let position = first; position <= last; position += 1) {
    const at = position - first;
    if (position > first) {
      const gap = scanned.slice(ends[at - 1]!, starts[at]!).replace(/\s+/g, ' ');
      excerpt += gap.length > MAX_GAP_CHARS ? ' ' : gap;
    }
    let word = scanned.slice(starts[at]!, ends[at]!);
    if (word.length > MAX_TERM_LENGTH) word = `${Array.from(word).slice(0, MAX_TERM_LENGTH).join('')}…`;
    if (hit >= 0 && hitWords[hit] === position) {
      matches.push([excerpt.length, excerpt.length + word.length]);
      hit += 1;
    }
    excerpt += word;
  }
  // The punctuation that ends the last word's sentence, if short.
  const lastAt = last - first;
  const tail = scanned.slice(ends[lastAt]!, last < count - 1 ? starts[lastAt + 1]! : scanned.length).trimEnd();
  if (tail.length <= MAX_GAP_CHARS && !/\s/.test(tail)) excerpt += tail;
  if (last < count - 1 || scanned.length < text.length || goesOn) excerpt += ' …';
  return { text: excerpt, matches };
}
