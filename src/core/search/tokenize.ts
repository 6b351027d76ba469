// Text → search terms, the one definition the index writer and every reader share (a term the
// writer made differently from the query's would never match). Language-neutral: NFKC, case
// folded, diacritics of Latin, Greek and Cyrillic letters dropped, runs of letters, numbers and
// marks; each Han, Hiragana and Katakana character a term of its own (those scripts put no spaces
// between words). No stop words and no stemming, so the ranking stays comparable with SQLite
// FTS5's bm25() fed the same terms. Portable.

/** Longer runs (hashes, base64, minified code) are not words anyone types: left out of the index. */
export const MAX_TERM_LENGTH = 64;

// Nonspacing marks after a Latin, Greek or Cyrillic letter (after NFD: é → e + U+0301). Marks of
// other scripts stay: Devanagari's vowel signs, for one, are marks and part of the word.
const FOLDABLE_MARKS = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{Mn}+/gu;
// A word: letters, numbers and the marks that belong to them; or a single ideograph or kana. Cut
// in two steps, runs first, each with a plain character-class loop: one pattern with a lookahead
// inside its repeat (`(?:(?!…)[…])+`) made V8 recurse per character, and a 12 MB run of letters
// (a base64 resource) overflowed the stack.
const RUNS = /[\p{L}\p{N}\p{M}]+/gu;
export const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
export const UNSPACED_OR_OTHER =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

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
  return folded.normalize('NFD').replace(FOLDABLE_MARKS, '$1').normalize('NFC');
}

/**
 * Plain ASCII between two non-ASCII words shorter than this is cut with them, in one general
 * pass: cutting each non-ASCII word alone costs more per character than the general pass.
 */
const ASCII_GAP_TO_JOIN = 256;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;

/** Whether the UTF-16 unit is ASCII white space, where no normalization or case rule reaches across. */
function isAsciiSpace(unit: number): boolean {
  return unit === 32 || (unit >= 9 && unit <= 13);
}

/** The terms of plain ASCII: lowercased, its letters, numbers and marks are a-z and 0-9 (runs of them). */
function cutAscii(text: string, visit: (term: string) => void): void {
  // A loop over the units, not matchAll: a match array per word was most of the garbage a build
  // made cutting its documents.
  const lower = text.toLowerCase();
  let start = -1;
  for (let at = 0; at < lower.length; at += 1) {
    const unit = lower.charCodeAt(at);
    if ((unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57)) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      if (at - start <= MAX_TERM_LENGTH) visit(lower.slice(start, at));
      start = -1;
    }
  }
  if (start >= 0 && lower.length - start <= MAX_TERM_LENGTH) visit(lower.slice(start));
}

/** The terms of any text: folded whole, then cut into runs, ideographs and kana one each. */
function cutFolded(text: string, visit: (term: string) => void): void {
  for (const match of foldText(text).matchAll(RUNS)) {
    const run = match[0];
    if (!UNSPACED.test(run)) {
      if (run.length <= MAX_TERM_LENGTH) visit(run);
      continue;
    }
    // Each ideograph or kana a term of its own, the letters between them a term each.
    for (const piece of run.matchAll(UNSPACED_OR_OTHER)) {
      const term = piece[0];
      if (term.length <= MAX_TERM_LENGTH) visit(term);
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
  let done = 0;
  let pieceStart = -1;
  let pieceEnd = -1;
  for (const match of text.matchAll(NON_ASCII_ALL)) {
    const at = match.index;
    if (at < pieceEnd) continue;
    let start = at;
    while (start > Math.max(done, pieceEnd) && !isAsciiSpace(text.charCodeAt(start - 1))) start -= 1;
    let end = at + 1;
    while (end < text.length && !isAsciiSpace(text.charCodeAt(end))) end += 1;
    if (pieceStart >= 0 && start - pieceEnd < ASCII_GAP_TO_JOIN) {
      pieceEnd = end;
      continue;
    }
    if (pieceStart >= 0) {
      cutAscii(text.slice(done, pieceStart), visit);
      cutFolded(text.slice(pieceStart, pieceEnd), visit);
      done = pieceEnd;
    }
    pieceStart = start;
    pieceEnd = end;
  }
  if (pieceStart >= 0) {
    cutAscii(text.slice(done, pieceStart), visit);
    cutFolded(text.slice(pieceStart, pieceEnd), visit);
    done = pieceEnd;
  }
  cutAscii(done === 0 ? text : text.slice(done), visit);
}
