// A search result's excerpt (issue #40): the EXCERPT_WORDS words of a document's text around the
// passage that holds the most distinct query terms (then the most matches), as plain text with
// runs of white space made one space, and where the matching words lie in it (UTF-16 offsets, as
// JavaScript strings count). Only the first EXCERPT_SCAN_CHARS of a text are looked at, so a
// result costs the same whatever its document's size. Portable.
import { foldText, MAX_TERM_LENGTH, tokenize, UNSPACED, UNSPACED_OR_OTHER } from './tokenize.js';

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

const RUNS = /[\p{L}\p{N}\p{M}]+/gu;
const ASCII_WORD = /^[A-Za-z0-9]+$/;
/** RUNS over ASCII text: a cold isolate need not compile RUNS (Unicode classes) for ASCII texts. */
const ASCII_RUNS = /[A-Za-z0-9]+/g;
const NON_ASCII = /[\u0080-\uffff]/;

interface Run {
  start: number;
  end: number;
  /** The query term it matches, or -1. */
  term: number;
}

/** The term a run of letters matches, folding it as tokenize does (ASCII the cheap way). */
function termOfRun(run: string, matchOf: (token: string) => number): number {
  if (run.length > MAX_TERM_LENGTH * 4) return -1;
  if (ASCII_WORD.test(run)) return run.length <= MAX_TERM_LENGTH ? matchOf(run.toLowerCase()) : -1;
  const folded = foldText(run);
  for (const token of tokenize(folded)) {
    const term = matchOf(token);
    if (term >= 0) return term;
  }
  return -1;
}

/** The words of `text` (as tokenize cuts them) and the query term each matches. */
function runsOf(text: string, matchOf: (token: string) => number): Run[] {
  const runs: Run[] = [];
  // ASCII alone (most texts): its runs are RUNS's, and a run longer than a term matches nothing.
  if (!NON_ASCII.test(text)) {
    for (const match of text.matchAll(ASCII_RUNS)) {
      const run = match[0];
      const term = run.length <= MAX_TERM_LENGTH ? matchOf(run.toLowerCase()) : -1;
      runs.push({ start: match.index, end: match.index + run.length, term });
    }
    return runs;
  }
  for (const match of text.matchAll(RUNS)) {
    const run = match[0];
    if (!UNSPACED.test(run)) {
      runs.push({ start: match.index, end: match.index + run.length, term: termOfRun(run, matchOf) });
      continue;
    }
    // Each ideograph or kana a word of its own, as tokenize cuts them.
    for (const piece of run.matchAll(UNSPACED_OR_OTHER)) {
      const start = match.index + piece.index;
      runs.push({ start, end: start + piece[0].length, term: termOfRun(piece[0], matchOf) });
    }
  }
  return runs;
}

/**
 * The excerpt of `text` for a query of `termCount` terms whose matcher is `matchOf`
 * (query-terms.ts); undefined when the text holds no word. `goesOn`: `text` is the start of a
 * longer one (an excerpt source), so an excerpt at its end ends in `…`.
 */
export function excerptOf(
  text: string,
  matchOf: (token: string) => number,
  termCount: number,
  goesOn = false,
): Excerpt | undefined {
  const scanned = text.length > EXCERPT_SCAN_CHARS ? text.slice(0, EXCERPT_SCAN_CHARS) : text;
  const runs = runsOf(scanned, matchOf);
  if (runs.length === 0) return undefined;
  // The window of EXCERPT_WORDS runs with the most distinct terms, then the most matches: slid once.
  const counts = new Uint32Array(termCount + 1);
  let distinct = 0;
  let matched = 0;
  let best = { start: 0, distinct: -1, matched: -1 };
  for (let end = 0; end < runs.length; end += 1) {
    const entering = runs[end]!.term;
    if (entering >= 0) {
      if (counts[entering]!++ === 0) distinct += 1;
      matched += 1;
    }
    const start = end - EXCERPT_WORDS + 1;
    if (start > 0) {
      const leaving = runs[start - 1]!.term;
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
  const windowEnd = Math.min(runs.length, first + EXCERPT_WORDS);
  let firstMatch = -1;
  for (let position = first; position < windowEnd && firstMatch < 0; position += 1)
    if (runs[position]!.term >= 0) firstMatch = position;
  if (firstMatch > first + LEAD_WORDS)
    first = Math.max(first, Math.min(firstMatch - LEAD_WORDS, runs.length - EXCERPT_WORDS));
  const last = Math.min(runs.length, first + EXCERPT_WORDS) - 1;
  let excerpt = first > 0 ? '… ' : '';
  const matches: [number, number][] = [];
  for (let position = first; position <= last; position += 1) {
    const run = runs[position]!;
    if (position > first) {
      const gap = scanned.slice(runs[position - 1]!.end, run.start).replace(/\s+/g, ' ');
      excerpt += gap.length > MAX_GAP_CHARS ? ' ' : gap;
    }
    let word = scanned.slice(run.start, run.end);
    if (word.length > MAX_TERM_LENGTH) word = `${Array.from(word).slice(0, MAX_TERM_LENGTH).join('')}…`;
    if (run.term >= 0) matches.push([excerpt.length, excerpt.length + word.length]);
    excerpt += word;
  }
  // The punctuation that ends the last word's sentence, if short.
  const tail = scanned
    .slice(runs[last]!.end, last < runs.length - 1 ? runs[last + 1]!.start : scanned.length)
    .trimEnd();
  if (tail.length <= MAX_GAP_CHARS && !/\s/.test(tail)) excerpt += tail;
  if (last < runs.length - 1 || scanned.length < text.length || goesOn) excerpt += ' …';
  return { text: excerpt, matches };
}
