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
const ASCII_RUNS = /[a-z0-9]+/g;

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

/** Every term of `text`, in order, repeats included (a document's term frequencies and length). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  if (!NON_ASCII.test(text)) {
    // In lowercased ASCII the letters, numbers and marks are a-z and 0-9, and nothing is unspaced.
    for (const match of text.toLowerCase().matchAll(ASCII_RUNS)) {
      if (match[0].length <= MAX_TERM_LENGTH) terms.push(match[0]);
    }
    return terms;
  }
  for (const match of foldText(text).matchAll(RUNS)) {
    const run = match[0];
    if (!UNSPACED.test(run)) {
      if (run.length <= MAX_TERM_LENGTH) terms.push(run);
      continue;
    }
    // Each ideograph or kana a term of its own, the letters between them a term each.
    for (const piece of run.matchAll(UNSPACED_OR_OTHER)) {
      const term = piece[0];
      if (term.length <= MAX_TERM_LENGTH) terms.push(term);
    }
  }
  return terms;
}
