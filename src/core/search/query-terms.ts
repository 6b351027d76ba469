// A search query as the index is asked it (issue #40): its words, and its prefixes (a word ending
// in `*`, FTS5's syntax: the playground's search box sends the word being typed that way); the
// keys each word is looked up under, by how the index stemmed (stem.ts); and which query word a
// word of a document's text matches, for its excerpt (excerpt.ts). Portable.
import { MAX_QUERY_TERMS } from './search-index-format.js';
import { type Stemming, stemKeyOf, stemOf } from './stem.js';
import { tokenize } from './tokenize.js';

/**
 * A word's own list counts this much beside its stem's (which holds the word too): of two documents
 * holding a word about as often, the one holding it as typed ranks first; more would move the ranking
 * away from FTS5's porter, which knows no exact form (0.2: 0.85 of its top 10, bench/search-overlap.mjs).
 */
export const EXACT_WORD_WEIGHT = 0.02;
/** Words a prefix stands for at most: the ones with the longest postings among those walked. */
export const MAX_PREFIX_TERMS = 16;
/** Term indexes a prefix walks at most (a one-letter prefix spans many), and entries in them. */
export const MAX_PREFIX_INDEXES = 2;
export const MAX_PREFIX_KEYS = 20_000;

export interface ParsedQuery {
  /** Whole words, folded (tokenize.ts), distinct. */
  words: string[];
  /** Prefixes (a word typed with `*` after it), folded, distinct. */
  prefixes: string[];
}

/** The words and prefixes of `query`, MAX_QUERY_TERMS of them at most, in the order given. */
export function parseQuery(query: string): ParsedQuery {
  const words = new Set<string>();
  const prefixes = new Set<string>();
  for (const chunk of query.split(/\s+/)) {
    const tokens = tokenize(chunk);
    if (tokens.length === 0) continue;
    const last = chunk.endsWith('*') ? tokens.pop()! : undefined;
    for (const token of tokens) if (words.size + prefixes.size < MAX_QUERY_TERMS) words.add(token);
    if (last !== undefined && words.size + prefixes.size < MAX_QUERY_TERMS) prefixes.add(last);
  }
  return { words: [...words], prefixes: [...prefixes] };
}

/** A key a query looks up, and its share of the score. */
export interface KeyLookup {
  key: string;
  weight: number;
}

/** The keys of the query's whole words: stemming, each word's stem list and (less) its own. */
export function wordLookupsOf(words: readonly string[], stemming: Stemming): KeyLookup[] {
  const lookups = new Map<string, number>();
  const add = (key: string, weight: number) => lookups.set(key, Math.max(weight, lookups.get(key) ?? 0));
  for (const word of words) {
    if (stemming === 'none') add(word, 1);
    else {
      add(stemKeyOf(word), 1);
      add(word, EXACT_WORD_WEIGHT);
    }
  }
  return [...lookups].map(([key, weight]) => ({ key, weight }));
}

/** Which query term (its position: words, then prefixes) a folded token matches, or -1. */
export interface TokenMatcher {
  (token: string): number;
  /**
   * The first two units (or the whole term, when shorter) of every term a token can match, the
   * ASCII ones: an ASCII token matching a term starts with one, so an excerpt looks for these
   * starts alone and leaves every other word of an ASCII text unread (ascii-excerpt-words.ts).
   */
  readonly asciiStarts: readonly string[];
}

/** A term start that an ASCII token can begin with: folded tokens are lowercase. */
const ASCII_START = /^[a-z0-9]+$/;

/**
 * Which query term (its position: words, then prefixes) a folded token of a document matches, or
 * -1: the word itself, a word of the same stem, or a word a prefix starts.
 */
export function tokenMatcherOf(query: ParsedQuery, stemming: Stemming): TokenMatcher {
  const exact = new Map(query.words.map((word, position) => [word, position]));
  const stems = new Map<string, number>();
  if (stemming !== 'none')
    query.words.forEach((word, position) => {
      stems.set(stemOf(word), position);
    });
  // Porter changes only a word's ending: a token whose first two letters start no stem asked for
  // cannot stem to one, and is not stemmed (most of a text's words, for an excerpt).
  const stemStarts = new Set([...stems.keys()].map((stem) => stem.slice(0, 2)));
  const { prefixes } = query;
  const prefixBase = query.words.length;
  const matcher = (token: string): number => {
    const found = exact.get(token) ?? (stemStarts.has(token.slice(0, 2)) ? stems.get(stemOf(token)) : undefined);
    if (found !== undefined) return found;
    for (let position = 0; position < prefixes.length; position += 1)
      if (token.startsWith(prefixes[position]!)) return prefixBase + position;
    return -1;
  };
  // A match is the word, a token whose first two units start a stem, or one a prefix starts.
  const asciiStarts = [
    ...new Set([...query.words, ...stems.keys(), ...prefixes].map((term) => term.slice(0, 2))),
  ].filter((start) => ASCII_START.test(start));
  return Object.assign(matcher, { asciiStarts });
}
