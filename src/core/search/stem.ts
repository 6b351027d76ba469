// Stemming for search (issue #40): English words cut to their Porter stem (npm `stemmer`, the
// algorithm of SQLite FTS5's `porter` tokenizer, so the ranking stays comparable with it), the
// one module that uses that package. An index of format 6 holds, besides each word's own postings,
// a list per stem under stem + STEM_KEY_SUFFIX: a query word looks up its stem's list (every form
// of the word) and its own (an exact match ranks above a stemmed one). Portable.
import { stemmer } from 'stemmer';
import { detachedString } from './detached-string.js';

/** How an index's words were stemmed: `porter` (search.language "en", the default) or not at all. */
export type Stemming = 'porter' | 'none';
export const STEMMINGS: readonly Stemming[] = ['porter', 'none'];

/**
 * Ends the key of a stem's list. Terms are runs of letters, numbers and marks (tokenize.ts), so no
 * word's key holds it, and a prefix query (which expands over words) skips the keys that end in it.
 * A control character sorts before every letter and digit: a stem's key lies right after the word
 * that is the stem, next to the words it stems (Porter changes only endings), so a query word's
 * key and its stem's nearly always share an index, and often a pack: a cold query reads one index
 * per word, not two (bench/search-cold-reads.mjs).
 */
export const STEM_KEY_SUFFIX = '\u0001';
const STEM_KEY_SUFFIX_BYTE = 1;

/** Whether an index key (UTF-8) is a stem's: it ends in STEM_KEY_SUFFIX. */
export function isStemKey(key: Uint8Array): boolean {
  return key.length > 0 && key[key.length - 1] === STEM_KEY_SUFFIX_BYTE;
}

/** A key as messages show it: a stem's as `~stem`. */
export function shownKeyOf(key: string): string {
  return key.endsWith(STEM_KEY_SUFFIX) ? `~${key.slice(0, -1)}` : key;
}

// Porter is defined over ASCII letters; FTS5's porter tokenizer leaves other tokens as they are.
const STEMMABLE = /^[a-z]+$/;
/** Stems remembered, so a build stems each distinct word about once; cleared when full. */
const STEM_CACHE_LIMIT = 65_536;
const stems = new Map<string, string>();

/** The Porter stem of a folded term (tokenize.ts); the term itself when it is not ASCII letters. */
export function stemOf(term: string): string {
  if (term.length <= 2 || !STEMMABLE.test(term)) return term;
  let stem = stems.get(term);
  if (stem === undefined) {
    // The term is a view into its document's text, and its stem often the term itself: both are
    // made from a copy, so the cache holds no document.
    const own = detachedString(term);
    stem = stemmer(own);
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stems.set(own, stem);
  }
  return stem;
}

/**
 * The key of the list of every word whose stem is `stemOf(term)`. Not remembered: the build's key
 * counter (search-key-counter.ts) asks once per word its dictionary holds, and a map of every word
 * asked, most of them a document's own numbers and names, grew with the documents to its limit
 * through the index step, where a large build peaks.
 */
export function stemKeyOf(term: string): string {
  return stemOf(detachedString(term)) + STEM_KEY_SUFFIX;
}

/**
 * The keys a document's terms are indexed under: the terms themselves, then (stemming) each
 * one's stem key. Its length as BM25 counts it stays `terms.length`.
 */
export function indexKeysOf(terms: readonly string[], stemming: Stemming): string[] {
  if (stemming === 'none') return [...terms];
  const keys = terms.slice();
  for (const term of terms) keys.push(stemKeyOf(term));
  return keys;
}

/**
 * The word whose own list stands for the list of stem key `key` when the index holds none under
 * it: the stem itself, when it is its own stem. A writer leaves out such a stem's list when it is
 * byte for byte that word's (the stem's only word is the stem: "the", most numbers, every rare
 * word), and only then, so a reader that finds no list under `key` reads the word's; undefined for
 * a key that is not a stem key, or whose stem is not its own stem (no list: no such word).
 */
export function wordOfStemKey(key: string): string | undefined {
  if (!key.endsWith(STEM_KEY_SUFFIX)) return undefined;
  const word = key.slice(0, -STEM_KEY_SUFFIX.length);
  return word !== '' && stemOf(word) === word ? word : undefined;
}

/** The stemming `search.language` asks for: Porter for English, none for any other language. */
export function stemmingOfLanguage(language: string | undefined, stemming: boolean | undefined): Stemming {
  if (stemming === false) return 'none';
  return (language ?? 'en').toLowerCase() === 'en' ? 'porter' : 'none';
}
