// A generated corpus shaped like Wikipedia's tree, for the search benches (issue #25): `count`
// articles with titles of 1-6 words, texts of mostly 1-5 KB (log-uniform; one in ten shorter, a
// stub), words drawn from a Zipf-like vocabulary (rank r with weight 1/r^1.07 over 400,000
// pronounceable made-up words, the first few hundred short like "the", "of"), so a few terms sit in
// most documents and most terms in a handful. Deterministic: the same count gives the same
// documents, in the same order, on every machine (a seeded generator, no Math.random). Texts can
// be scaled down (textScale) where the writer's memory does not fit the full shape.

const VOCABULARY_SIZE = 400_000;
const ZIPF_EXPONENT = 1.07;
const CONSONANTS = 'bcdfghjklmnprstvwz';
const VOWELS = 'aeiou';

/** A small seeded generator (mulberry32): deterministic across runs and machines. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** The vocabulary, most frequent first: rank r's word has about 1 + log2(r)/3 syllables. */
function makeVocabulary(random) {
  const words = [];
  const seen = new Set();
  while (words.length < VOCABULARY_SIZE) {
    const rank = words.length + 1;
    const syllables = 1 + Math.floor(Math.log2(rank) / 3.2 + random() * 1.5);
    let word = '';
    for (let syllable = 0; syllable < syllables; syllable += 1) {
      word += CONSONANTS[Math.floor(random() * CONSONANTS.length)] + VOWELS[Math.floor(random() * VOWELS.length)];
      if (random() < 0.3) word += CONSONANTS[Math.floor(random() * CONSONANTS.length)];
    }
    if (seen.has(word)) continue;
    seen.add(word);
    words.push(word);
  }
  return words;
}

/** Cumulative Zipf weights, for drawing a rank by binary search. */
function makeCumulative() {
  const cumulative = new Float64Array(VOCABULARY_SIZE);
  let total = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank += 1) {
    total += 1 / (rank + 1) ** ZIPF_EXPONENT;
    cumulative[rank] = total;
  }
  for (let rank = 0; rank < VOCABULARY_SIZE; rank += 1) cumulative[rank] /= total;
  return cumulative;
}

function drawRank(cumulative, random) {
  const target = random();
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cumulative[middle] < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The `count` articles, {id, title, text, url}, one at a time in a fixed order (a 650,000-article
 * corpus never sits in memory at once); ids are `tools/wiki/<Title_With_Underscores>.json`
 * (unique: a repeated title gets " (2)" etc.).
 */
export function* wikiDocumentStream(count, seed = 650_000, textScale = 1) {
  const random = seededRandom(seed);
  const words = makeVocabulary(random);
  const cumulative = makeCumulative();
  const titles = new Map();
  const capitalize = (word) => word[0].toUpperCase() + word.slice(1);
  for (let number = 0; number < count; number += 1) {
    // Titles favour rarer words (rank drawn past the first 200), as article names are.
    const titleWords = 1 + Math.floor(random() ** 1.6 * 6);
    const parts = [];
    for (let part = 0; part < titleWords; part += 1) {
      parts.push(capitalize(words[Math.min(VOCABULARY_SIZE - 1, 200 + drawRank(cumulative, random) * 4)]));
    }
    let title = parts.join(' ');
    const repeats = titles.get(title) ?? 0;
    titles.set(title, repeats + 1);
    if (repeats > 0) title = `${title} (${repeats + 1})`;
    const targetBytes =
      textScale * (random() < 0.1 ? 300 + Math.floor(random() * 700) : Math.floor(1000 * 5 ** random()));
    // Words gathered in an array and joined once: a string grown word by word is a rope of
    // thousands of pieces per article, which held several GB at 650,000.
    const pieces = [`${title} is`];
    let length = pieces[0].length;
    let sentence = 0;
    while (length < targetBytes) {
      const rank = drawRank(cumulative, random);
      const word = words[rank];
      sentence += 1;
      const piece = sentence > 8 + random() * 14 ? `. ${capitalize(word)}` : ` ${word}`;
      if (piece.startsWith('.')) sentence = 0;
      pieces.push(piece);
      length += piece.length;
    }
    pieces.push('.');
    const text = pieces.join('');
    const slug = title.replaceAll(' ', '_');
    yield {
      id: `tools/wiki/${slug}.json`,
      title,
      text,
      url: `https://en.wikipedia.org/wiki/${encodeURIComponent(slug)}`,
    };
  }
}

/** Calls `visit(document)` for each of `count` articles of wikiDocumentStream, in its order. */
export function forEachWikiDocument(count, visit, seed = 650_000, textScale = 1) {
  for (const document of wikiDocumentStream(count, seed, textScale)) visit(document);
}

/**
 * The articles as an array (the in-memory writer takes one); `textScale` < 1 shortens every text
 * (the in-memory writer needs ~57 KB of memory per 1-5 KB article: 37 GB at 650,000).
 */
export function wikiDocuments(count, seed, textScale = 1) {
  const documents = [];
  forEachWikiDocument(count, (document) => documents.push(document), seed, textScale);
  return documents;
}
