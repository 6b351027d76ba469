// A search result's excerpt (issue #40): the EXCERPT_WORDS words of a document's text around the
// passage that holds the most distinct query terms (then the most matches), as plain text with
// runs of white space made one space, and where the matching words lie in it (UTF-16 offsets, as
// JavaScript strings count). Only the first EXCERPT_SCAN_CHARS of a text are looked at, so a
// result costs the same whatever its document's size. Portable.
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
/** wordRuns over lowercased ASCII text: a cold isolate need not build wordRuns (Unicode classes) for ASCII texts. */
const LOWER_ASCII_RUNS = /[a-z0-9]+/g;

/**
 * The words of a text, as parallel lists: each word's [start, end) and the query term it matches
 * (-1: none). Lists of numbers rather than an object (and a regexp match) per word: a cold
 * isolate's excerpts walk ~6,000 words, and each object was garbage for its first collections.
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

/** The words of plain ASCII `text` (runs of letters and digits, as tokenize cuts them) and their terms. */
function asciiRunsOf(text: string, matchOf: TokenMatcher): Runs {
  const runs: Runs = { starts: [], ends: [], terms: [] };
  const firstUnits = matchOf.firstUnits;
  // ASCII lowercases unit for unit: a run of `lower` is its token, at the same offsets in `text`.
  for (const match of text.toLowerCase().matchAll(LOWER_ASCII_RUNS)) {
    const run = match[0];
    // A run longer than a term, or starting with a unit no query term starts with, matches
    // nothing: most words of a text are not looked up.
    const term =
      run.length <= MAX_TERM_LENGTH && (firstUnits === undefined || firstUnits.includes(run[0]!)) ? matchOf(run) : -1;
    runs.starts.push(match.index);
    runs.ends.push(match.index + run.length);
    runs.terms.push(term);
  }
  return runs;
}

/** The words of `text` (as tokenize cuts them) and the query term each matches. */
function runsOf(text: string, matchOf: TokenMatcher): Runs {
  // ASCII alone (most texts): its runs are wordRuns's, and a run longer than a term matches nothing.
  if (!NON_ASCII.test(text)) return asciiRunsOf(text, matchOf);
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

/**
 * The excerpt of `text` for a query of `termCount` terms whose matcher is `matchOf`
 * (query-terms.ts); undefined when the text holds no word. `goesOn`: `text` is the start of a
 * longer one (an excerpt source), so an excerpt at its end ends in `…`.
 */
export function excerptOf(text: string, matchOf: TokenMatcher, termCount: number, goesOn = false): Excerpt | undefined {
  const scanned = text.length > EXCERPT_SCAN_CHARS ? text.slice(0, EXCERPT_SCAN_CHARS) : text;
  const { starts, ends, terms } = runsOf(scanned, matchOf);
  const count = terms.length;
  if (count === 0) return undefined;
  // The window of EXCERPT_WORDS runs with the most distinct terms, then the most matches: slid once.
  const counts = new Uint32Array(termCount + 1);
  let distinct = 0;
  let matched = 0;
  let best = { start: 0, distinct: -1, matched: -1 };
  for (let end = 0; end < count; end += 1) {
    const entering = terms[end]!;
    if (entering >= 0) {
      if (counts[entering]!++ === 0) distinct += 1;
      matched += 1;
    }
    const start = end - EXCERPT_WORDS + 1;
    if (start > 0) {
      const leaving = terms[start - 1]!;
      if (leaving >= 0) {
        if (--counts[leaving]! === 0) distinct -= 1;
        matched -= 1;
      }
    }
    if (distinct > best.distinct || (distinct === best.distinct && matched > best.matched))
      best = { start: Math.max(0, start), distinct, matched };
  }
  // The window found ends at its last match: moved on to start LEAD_WORDS before its first one
  // (it keeps every match), so the matches read in their context.
  let first = best.start;
  const windowEnd = Math.min(count, first + EXCERPT_WORDS);
  let firstMatch = -1;
  for (let position = first; position < windowEnd && firstMatch < 0; position += 1)
    if (terms[position]! >= 0) firstMatch = position;
  if (firstMatch > first + LEAD_WORDS)
    first = Math.max(first, Math.min(firstMatch - LEAD_WORDS, count - EXCERPT_WORDS));
  const last = Math.min(count, first + EXCERPT_WORDS) - 1;
  let excerpt = first > 0 ? '… ' : '';
  const matches: [number, number][] = [];
  for (let position = first; position <= last; position += 1) {
    if (position > first) {
      const gap = scanned.slice(ends[position - 1]!, starts[position]!).replace(/\s+/g, ' ');
      excerpt += gap.length > MAX_GAP_CHARS ? ' ' : gap;
    }
    let word = scanned.slice(starts[position]!, ends[position]!);
    if (word.length > MAX_TERM_LENGTH) word = `${Array.from(word).slice(0, MAX_TERM_LENGTH).join('')}…`;
    if (terms[position]! >= 0) matches.push([excerpt.length, excerpt.length + word.length]);
    excerpt += word;
  }
  // The punctuation that ends the last word's sentence, if short.
  const tail = scanned.slice(ends[last]!, last < count - 1 ? starts[last + 1]! : scanned.length).trimEnd();
  if (tail.length <= MAX_GAP_CHARS && !/\s/.test(tail)) excerpt += tail;
  if (last < count - 1 || scanned.length < text.length || goesOn) excerpt += ' …';
  return { text: excerpt, matches };
}
