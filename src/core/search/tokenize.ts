// Text → search terms, the one definition the index writer and every reader share (a term the
// writer made differently from the query's would never match). Language-neutral: NFKC, case
// folded, diacritics of Latin, Greek and Cyrillic letters dropped, runs of letters, numbers and
// marks; each Han, Hiragana and Katakana character a term of its own (those scripts put no spaces
// between words). No stop words and no stemming, so the ranking stays comparable with SQLite
// FTS5's bm25() fed the same terms. Portable.
import { foldableMarks, unspaced, unspacedOrOther, wordGapAt, wordRunAt, wordRuns } from './unicode-patterns.js';

/** Longer runs (hashes, base64, minified code) are not words anyone types: left out of the index. */
export const MAX_TERM_LENGTH = 64;

const NON_ASCII = /[\u0080-\uffff]/;

/** The text as terms are cut from it: NFKC, case folded, foldable diacritics dropped, NFC. */
export function foldText(text: string): string {
  // Plain ASCII is its own NFKC, NFD and NFC, holds no mark, and folds by lowercasing alone: most
  // documents are, and the three normalizations cost more than cutting the terms.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  // toUpperCase().toLowerCase() folds what lowercasing alone keeps apart (ß → ss, ﬁ → fi); the
  // final sigma comes back from lowercasing a word-final Σ, so it is folded by hand.
  const folded = text.normalize('NFKC').toUpperCase().toLowerCase().replaceAll('ς', 'σ');
  // NFC at the end puts back what NFD split and no mark was dropped from (Hangul syllables).
  return folded.normalize('NFD').replace(foldableMarks(), '$1').normalize('NFC');
}

/**
 * Plain ASCII between two non-ASCII words shorter than this is cut with them, in one general
 * pass: cutting each non-ASCII word alone costs more per character than the general pass.
 */
const ASCII_GAP_TO_JOIN = 256;
/**
 * A non-ASCII unit that may fold into a word or change one: every unit past ASCII but the common
 * punctuation of prose (no-break space, « » © ® ° · ×, dashes, curly quotes, bullets, ellipsis …),
 * which is neither a letter, number nor mark, folds into none (nor combines with its neighbours)
 * and so only ends a word, as ASCII punctuation does: plain ASCII with only those between its words
 * is cut by the ASCII loop. Folding a piece for each of them was most of what cutting man pages
 * cost (their bullets and em dashes). U+2017 and U+203E are left out: NFKC gives them a mark.
 */
const MAY_FOLD =
  /[\u0080-\u009f\u00a1-\u00a8\u00aa\u00ac\u00ad\u00af\u00b1-\u00b6\u00b8-\u00ba\u00bc-\u00d6\u00d8-\u200f\u2017\u203e\u205f-\uffff]/g;

/** Whether the UTF-16 unit is ASCII white space, where no normalization or case rule reaches across. */
function isAsciiSpace(unit: number): boolean {
  return unit === 32 || (unit >= 9 && unit <= 13);
}

/**
 * Where the terms of a text are handed: `span` gets a run of plain ASCII letters and digits as
 * `text`'s units `start`..`end` (the term is that slice lowercased: A-Z are its only units that
 * lowercasing changes), `term` every other term as a string. A caller that looks terms up can do
 * so without making a string per token (the index writer's key counter).
 */
export interface TermVisitor {
  span(text: string, start: number, end: number): void;
  term(term: string): void;
}

/** The terms of `text`'s units `from`..`to`, plain ASCII but for units MAY_FOLD leaves out: runs of its letters and digits. */
function cutAscii(text: string, from: number, to: number, visitor: TermVisitor): void {
  // A loop over the units, not matchAll: a match array per word was most of the garbage a build
  // made cutting its documents. Lowercased unit by unit, not copied.
  let start = -1;
  for (let at = from; at < to; at += 1) {
    const unit = text.charCodeAt(at);
    if ((unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57) || (unit >= 65 && unit <= 90)) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      if (at - start <= MAX_TERM_LENGTH) visitor.span(text, start, at);
      start = -1;
    }
  }
  if (start >= 0 && to - start <= MAX_TERM_LENGTH) visitor.span(text, start, to);
}

/** Whether `text`'s units `start`..`end` are all ASCII. */
function isAsciiSpan(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at += 1) if (text.charCodeAt(at) >= 0x80) return false;
  return true;
}

/**
 * The terms of any text: folded whole, then cut into runs, ideographs and kana one each. Cut in
 * two steps, runs first, each with a plain character-class loop: one pattern with a lookahead
 * inside its repeat (`(?:(?!…)[…])+`) made V8 recurse per character, and a 12 MB run of letters
 * (a base64 resource) overflowed the stack.
 */
function cutFolded(text: string, visitor: TermVisitor): void {
  const folded = foldText(text);
  if (!unspaced().test(folded)) {
    // The runs of wordRuns, found in place (sticky, tested without a match array): a run of
    // letters and digits is mostly plain ASCII, handed on as a span.
    const WORD_RUN = wordRunAt();
    const WORD_GAP = wordGapAt();
    let at = 0;
    while (at < folded.length) {
      WORD_GAP.lastIndex = at;
      if (WORD_GAP.test(folded)) at = WORD_GAP.lastIndex;
      WORD_RUN.lastIndex = at;
      if (!WORD_RUN.test(folded)) break;
      const end = WORD_RUN.lastIndex;
      // Folded plain ASCII is lowercase already: a span is its term.
      if (end - at <= MAX_TERM_LENGTH)
        if (isAsciiSpan(folded, at, end)) visitor.span(folded, at, end);
        else visitor.term(folded.slice(at, end));
      at = end;
    }
    return;
  }
  for (const match of folded.matchAll(wordRuns())) {
    const run = match[0];
    if (!unspaced().test(run)) {
      if (run.length <= MAX_TERM_LENGTH) visitor.term(run);
      continue;
    }
    // Each ideograph or kana a term of its own, the letters between them a term each.
    for (const piece of run.matchAll(unspacedOrOther())) {
      const term = piece[0];
      if (term.length <= MAX_TERM_LENGTH) visitor.term(term);
    }
  }
}

/**
 * Every term of `text`, in order, repeats included (a document's term frequencies and length).
 * Folding is the same whether a text is folded whole or in pieces cut at ASCII white space (no
 * composition, compatibility mapping or case context reaches across it), so the words holding a
 * non-ASCII character are folded and the plain ASCII around them only lowercased: most text is.
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  forEachTerm(text, (term) => {
    terms.push(term);
  });
  return terms;
}

/** `tokenize`'s terms handed to `visit` one by one, in order (no list of a document's terms is made). */
export function forEachTerm(text: string, visit: (term: string) => void): void {
  visitTerms(text, {
    span: (source, start, end) => visit(source.slice(start, end).toLowerCase()),
    term: visit,
  });
}

/** `tokenize`'s terms handed to `visitor` one by one, in order, plain ASCII ones as spans of `text`. */
export function visitTerms(text: string, visitor: TermVisitor): void {
  let done = 0;
  let pieceStart = -1;
  let pieceEnd = -1;
  // Each unit past the current piece that may fold (MAY_FOLD), found by `test` (no match array per unit).
  for (let at = 0; at < text.length; at += 1) {
    MAY_FOLD.lastIndex = Math.max(at, pieceEnd);
    if (!MAY_FOLD.test(text)) break;
    at = MAY_FOLD.lastIndex - 1;
    let start = at;
    while (start > Math.max(done, pieceEnd) && !isAsciiSpace(text.charCodeAt(start - 1))) start -= 1;
    let end = at + 1;
    while (end < text.length && !isAsciiSpace(text.charCodeAt(end))) end += 1;
    if (pieceStart >= 0 && start - pieceEnd < ASCII_GAP_TO_JOIN) {
      pieceEnd = end;
      continue;
    }
    if (pieceStart >= 0) {
      cutAscii(text, done, pieceStart, visitor);
      cutFolded(text.slice(pieceStart, pieceEnd), visitor);
      done = pieceEnd;
    }
    pieceStart = start;
    pieceEnd = end;
  }
  if (pieceStart >= 0) {
    cutAscii(text, done, pieceStart, visitor);
    cutFolded(text.slice(pieceStart, pieceEnd), visitor);
    done = pieceEnd;
  }
  cutAscii(text, done, text.length, visitor);
}
