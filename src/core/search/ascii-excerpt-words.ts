// The words of a plain ASCII text as an excerpt needs them (excerpt.ts, issue #40): how many there
// are, which of them match a query term (by word number), and where the few words an excerpt shows
// lie. A loop over every word of a page's texts was first-run code a cold isolate ran thousands of
// times; here the regexp engine finds the words starting as a query term can
// (TokenMatcher.asciiStarts) and counts the words between them, and only those and the excerpt's
// own words are read one by one in JavaScript. Portable.
import type { TokenMatcher } from './query-terms.js';
import { MAX_TERM_LENGTH } from './tokenize.js';

/** A text's words for an excerpt: their count, the matching ones, and where a run of them lies. */
export interface ExcerptWords {
  count: number;
  /** Word numbers of the words that match a query term, ascending; `hitTerms` says which term. */
  hitWords: number[];
  hitTerms: number[];
  /** [start, end) in the text of words `first` to `end - 1`. */
  spansOf(first: number, end: number): { starts: number[]; ends: number[] };
}

/** Runs of ASCII letters and digits in lowercased text: tokenize's terms of ASCII text. */
const RUNS = /[a-z0-9]+/g;
/** The runs and the gaps between them, as String.prototype.split gives them (gap, run, gap, ...). */
const RUNS_AND_GAPS = /([a-z0-9]+)/;

/** The pattern of the last matcher's starts: a page's ten excerpts share one matcher. */
let candidatesOf: { starts: readonly string[]; pattern: RegExp } | undefined;

/** Whole runs that start as a query term can: the runs RUNS finds, fewer of them. */
function candidatePattern(starts: readonly string[]): RegExp {
  if (candidatesOf?.starts !== starts) {
    // The starts are letters and digits: nothing to escape.
    const alternatives = starts.join('|');
    // The unit before the run (none at the text's start) is matched rather than looked behind
    // at: the page's search runs in browsers too, some without lookbehind.
    candidatesOf = { starts, pattern: new RegExp(`(?:^|[^a-z0-9])((?:${alternatives})[a-z0-9]*)`, 'g') };
  }
  return candidatesOf.pattern;
}

/** Runs in `text` from `from` (0 or a run's start) to `to` (a run's start, or the end). */
function countRuns(text: string, from: number, to: number): number {
  return from === to ? 0 : (text.slice(from, to).match(RUNS)?.length ?? 0);
}

/** The words of plain ASCII `text` for an excerpt, the words it matches found by `matchOf`'s asciiStarts. */
export function asciiExcerptWordsOf(text: string, matchOf: TokenMatcher): ExcerptWords {
  const starts = matchOf.asciiStarts;
  // ASCII lowercases unit for unit: a run of `lower` is its token, at the same offsets in `text`.
  const lower = text.toLowerCase();
  const hitWords: number[] = [];
  const hitTerms: number[] = [];
  const hitStarts: number[] = [];
  let counted = 0;
  let countedTo = 0;
  if (starts.length > 0) {
    const candidates = candidatePattern(starts);
    candidates.lastIndex = 0;
    for (let found = candidates.exec(lower); found !== null; found = candidates.exec(lower)) {
      const run = found[1]!;
      const term = run.length <= MAX_TERM_LENGTH ? matchOf(run) : -1;
      if (term < 0) continue;
      const start = found.index + found[0].length - run.length;
      counted += countRuns(lower, countedTo, start);
      countedTo = start;
      hitWords.push(counted);
      hitTerms.push(term);
      hitStarts.push(start);
    }
  }
  const count = counted + countRuns(lower, countedTo, lower.length);
  const spansOf = (first: number, end: number) => {
    // From the first hit at or after `first`, back over the words before it (at most an
    // excerpt's), not forward from the text's start.
    let next = 0;
    while (next < hitWords.length && hitWords[next]! < first) next += 1;
    let at = 0;
    if (next < hitWords.length && hitWords[next] === first) at = hitStarts[next]!;
    else if (next < hitWords.length) {
      const from = next > 0 ? hitStarts[next - 1]! : 0;
      const pieces = lower.slice(from, hitStarts[next]!).split(RUNS_AND_GAPS);
      at = hitStarts[next]!;
      // The pieces end with the gap before the hit; each word back is a run and the gap before it.
      const back = 2 * (hitWords[next]! - first);
      for (let piece = pieces.length - 1; piece >= pieces.length - back; piece -= 1) at -= pieces[piece]!.length;
    } else if (hitWords.length > 0) {
      // After the last hit: forward from it.
      const last = hitWords.length - 1;
      RUNS.lastIndex = hitStarts[last]!;
      for (let word = hitWords[last]!; word < first; word += 1) RUNS.exec(lower);
      at = RUNS.lastIndex;
    } else {
      RUNS.lastIndex = 0;
      for (let word = 0; word < first; word += 1) RUNS.exec(lower);
      at = RUNS.lastIndex;
    }
    const spans = { starts: [] as number[], ends: [] as number[] };
    RUNS.lastIndex = at;
    for (let word = first; word < end; word += 1) {
      const found = RUNS.exec(lower)!;
      spans.starts.push(found.index);
      spans.ends.push(found.index + found[0].length);
    }
    return spans;
  };
  return { count, hitWords, hitTerms, spansOf };
}
