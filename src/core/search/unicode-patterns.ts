// The Unicode-property patterns that cut text into terms (tokenize.ts, excerpt.ts), each built on
// its first use. V8 parses a `\p{…}` pattern, looking its properties up in Unicode's tables, when
// it compiles a function holding the literal, again when the literal is made and again when it
// first runs: made at module start, they cost a cold isolate's `initialize` (which loads the
// search modules) half its instructions, while plain ASCII text, most queries, never runs them.
// Built from strings, on the first text that needs one, each is parsed twice and only then.
// Each is shared, as a literal at module level was: a sticky or global one's lastIndex is set
// before every use. Portable.

/** The pattern `source` with `flags`, built once, when first asked for. */
function builtOnFirstUse(source: string, flags: string): () => RegExp {
  let pattern: RegExp | undefined;
  return () => {
    pattern ??= new RegExp(source, flags);
    return pattern;
  };
}

const UNSPACED_SCRIPTS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
const WORD_CHARACTERS = '\\p{L}\\p{N}\\p{M}';

/**
 * Nonspacing marks after a Latin, Greek or Cyrillic letter (after NFD: é → e + U+0301). Marks of
 * other scripts stay: Devanagari's vowel signs, for one, are marks and part of the word.
 */
export const foldableMarks = builtOnFirstUse(
  '([\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}])\\p{Mn}+',
  'gu',
);
/** Runs of letters, numbers and the marks that belong to them. */
export const wordRuns = builtOnFirstUse(`[${WORD_CHARACTERS}]+`, 'gu');
/** A run of word characters at lastIndex (sticky, for a test without a match array). */
export const wordRunAt = builtOnFirstUse(`[${WORD_CHARACTERS}]+`, 'uy');
/** A gap between runs at lastIndex (sticky). */
export const wordGapAt = builtOnFirstUse(`[^${WORD_CHARACTERS}]+`, 'uy');
/** An ideograph or kana: scripts that put no spaces between words. */
export const unspaced = builtOnFirstUse(`[${UNSPACED_SCRIPTS}]`, 'u');
/** Each ideograph or kana, and each run of anything else between them. */
export const unspacedOrOther = builtOnFirstUse(`[${UNSPACED_SCRIPTS}]|[^${UNSPACED_SCRIPTS}]+`, 'gu');
