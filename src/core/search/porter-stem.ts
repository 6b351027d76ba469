// The Porter stem of a word of ASCII lowercase letters, by string tests instead of regular
// expressions (issue #40): the same stems as npm `stemmer` 2.x (the algorithm of SQLite FTS5's
// `porter` tokenizer), whose ~20 patterns a cold worker compiled on its first query. A test compares
// the two over a word list and generated words (test/unit/search-porter-stem.test.ts). Portable.

const STEP2_SUFFIXES: ReadonlyMap<string, string> = new Map([
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
]);

const STEP3_SUFFIXES: ReadonlyMap<string, string> = new Map([
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
]);

const STEP4_SUFFIXES: ReadonlySet<string> = new Set([
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
]);

/** The longest suffix of every list, so a lookup tries no longer ending. */
const LONGEST_SUFFIX = 7;

const isVowelLetter = (code: number): boolean =>
  code === 97 || code === 101 || code === 105 || code === 111 || code === 117; // a e i o u
const LOWER_Y = 121;

/**
 * Whether each letter of `word[0, end)` is a consonant as Porter counts: not a, e, i, o, u, and a
 * `y` only after a vowel (a leading `y` is written `Y` by then, always a consonant).
 */
function consonantsOf(word: string, end: number): boolean[] {
  const consonants: boolean[] = new Array(end);
  for (let index = 0; index < end; index += 1) {
    const code = word.charCodeAt(index);
    consonants[index] = isVowelLetter(code) ? false : code === LOWER_Y && index > 0 ? !consonants[index - 1] : true;
  }
  return consonants;
}

/** Porter's m of `word[0, end)`: how many vowel runs a consonant follows. */
function measureOf(word: string, end: number): number {
  const consonants = consonantsOf(word, end);
  let measure = 0;
  for (let index = 1; index < end; index += 1) if (consonants[index] && !consonants[index - 1]) measure += 1;
  return measure;
}

function hasVowel(word: string, end: number): boolean {
  const consonants = consonantsOf(word, end);
  for (let index = 0; index < end; index += 1) if (!consonants[index]) return true;
  return false;
}

/**
 * `stemmer`'s "consonant-like" word, the whole of `word[0, end)`: consonants, one vowel, then one
 * last letter that is not a vowel, w, x or y.
 */
function isShortSyllableWord(word: string, end: number): boolean {
  if (end < 3) return false;
  const last = word.charCodeAt(end - 1);
  if (isVowelLetter(last) || last === 119 || last === 120 || last === LOWER_Y) return false;
  const consonants = consonantsOf(word, end - 1);
  if (!consonants[0]) return false;
  for (let index = 1; index < end - 2; index += 1) if (!consonants[index]) return false;
  return !consonants[end - 2];
}

/** Ends in a doubled letter that is not a vowel, y, l, s or z. */
function endsInDoubleConsonant(word: string): boolean {
  const end = word.length;
  if (end < 2) return false;
  const last = word.charCodeAt(end - 1);
  if (last !== word.charCodeAt(end - 2)) return false;
  return !(isVowelLetter(last) || last === LOWER_Y || last === 108 || last === 115 || last === 122);
}

/** The longest suffix of `word` in `suffixes` that leaves at least one letter before it. */
function longestSuffixIn(word: string, suffixes: { has(suffix: string): boolean }): string | undefined {
  for (let length = Math.min(LONGEST_SUFFIX, word.length - 1); length > 0; length -= 1) {
    const suffix = word.slice(word.length - length);
    if (suffixes.has(suffix)) return suffix;
  }
  return undefined;
}

/** Porter's stem of `word`, ASCII lowercase letters (`stemmer(word)` for such a word). */
export function porterStemOf(word: string): string {
  if (word.length < 3) return word;
  const leadingY = word.charCodeAt(0) === LOWER_Y;
  let result = leadingY ? `Y${word.slice(1)}` : word;

  // Step 1a.
  if ((result.endsWith('sses') && result.length >= 5) || (result.endsWith('ies') && result.length >= 4)) {
    result = result.slice(0, -2);
  } else if (result.length >= 3 && result.endsWith('s') && result.charCodeAt(result.length - 2) !== 115) {
    result = result.slice(0, -1);
  }

  // Step 1b.
  if (result.endsWith('eed') && result.length >= 4) {
    if (measureOf(result, result.length - 3) > 0) result = result.slice(0, -1);
  } else {
    const ending =
      result.endsWith('ing') && result.length >= 4 ? 3 : result.endsWith('ed') && result.length >= 3 ? 2 : 0;
    if (ending > 0 && hasVowel(result, result.length - ending)) {
      result = result.slice(0, -ending);
      if (result.endsWith('at') || result.endsWith('bl') || result.endsWith('iz')) result += 'e';
      else if (endsInDoubleConsonant(result)) result = result.slice(0, -1);
      else if (isShortSyllableWord(result, result.length)) result += 'e';
    }
  }

  // Step 1c.
  if (result.endsWith('y') && result.length >= 2 && hasVowel(result, result.length - 1)) {
    result = `${result.slice(0, -1)}i`;
  }

  // Steps 2 and 3.
  for (const suffixes of [STEP2_SUFFIXES, STEP3_SUFFIXES]) {
    const suffix = longestSuffixIn(result, suffixes);
    if (suffix !== undefined && measureOf(result, result.length - suffix.length) > 0)
      result = result.slice(0, -suffix.length) + suffixes.get(suffix)!;
  }

  // Step 4.
  const suffix = longestSuffixIn(result, STEP4_SUFFIXES);
  if (suffix !== undefined) {
    if (measureOf(result, result.length - suffix.length) > 1) result = result.slice(0, -suffix.length);
  } else if (result.length >= 5 && result.endsWith('ion')) {
    const before = result.charCodeAt(result.length - 4);
    if ((before === 115 || before === 116) && measureOf(result, result.length - 3) > 1) result = result.slice(0, -3);
  }

  // Step 5.
  if (result.endsWith('e') && result.length >= 2) {
    const end = result.length - 1;
    const measure = measureOf(result, end);
    if (measure > 1 || (measure === 1 && !isShortSyllableWord(result, end))) result = result.slice(0, -1);
  }
  if (result.endsWith('ll') && measureOf(result, result.length) > 1) result = result.slice(0, -1);

  return leadingY ? `y${result.slice(1)}` : result;
}
