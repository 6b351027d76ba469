// A generated corpus shaped like Wikipedia's StaticMCP tree (issue #25): `count` articles, each
// the precomputed result of one tool (`tools/wiki/<Title>.json`), titles of 1 to 6 words, text
// drawn from a Zipf-like vocabulary (rank r about as likely as 1/r, over VOCABULARY words made of
// syllables, so frequent words are short), lengths skewed like articles: log-normal around 2 KB
// (mostly 1-5 KB) plus 2% long ones of 20-60 KB. Deterministic: the titles come from one seeded
// generator, each article's text from a generator seeded by its number, so any article can be made
// alone, in any order (the tree writer asks for them by title).
import { seededRandom } from './packed-tree-projects.mjs';

const VOCABULARY = 500_000;
const SYLLABLES = [
  ...'bcdfghklmnprstvz'.split('').flatMap((consonant) => ['a', 'e', 'i', 'o', 'u'].map((vowel) => consonant + vowel)),
  'an',
  'er',
  'is',
  'on',
];
const TITLE_WORDS = [0.15, 0.35, 0.25, 0.12, 0.08, 0.05];

let words;
/** The word of rank `rank` (0 the most frequent): its digits in base SYLLABLES.length, as syllables. */
function wordOf(rank) {
  if (!words) {
    words = new Array(VOCABULARY);
    for (let index = 0; index < VOCABULARY; index += 1) {
      let rest = index;
      let word = '';
      do {
        word += SYLLABLES[rest % SYLLABLES.length];
        rest = Math.floor(rest / SYLLABLES.length);
      } while (rest > 0);
      words[index] = word;
    }
  }
  return words[rank];
}

/** A rank with P(r) ≈ 1/r (log-uniform over 1 … VOCABULARY), from `above` up when given. */
function zipfRank(random, above = 0) {
  const low = Math.log(above + 1);
  return Math.min(VOCABULARY - 1, Math.floor(Math.exp(low + random() * (Math.log(VOCABULARY + 1) - low))) - 1);
}

const capitalize = (word) => word[0].toUpperCase() + word.slice(1);

/** The `count` titles, distinct, in the order of their article numbers. */
export function wikiTitles(count, seed = 25) {
  const random = seededRandom(seed);
  const seen = new Set();
  const titles = [];
  while (titles.length < count) {
    let length = 1;
    for (let pick = random(), at = 0; at < TITLE_WORDS.length; at += 1) {
      pick -= TITLE_WORDS[at];
      if (pick < 0) {
        length = at + 1;
        break;
      }
    }
    // Titles are names: rarer words than the text's (ranks above 100).
    const title = Array.from({ length }, () => capitalize(wordOf(zipfRank(random, 100)))).join(' ');
    if (seen.has(title)) continue;
    seen.add(title);
    titles.push(title);
  }
  return titles;
}

/** How many bytes article `number` has: log-normal around 2 KB, 2% of 20-60 KB. */
function articleBytes(random) {
  if (random() < 0.02) return Math.round(20_000 * 3 ** random());
  // Box-Muller: a standard normal.
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.min(15_000, Math.max(300, Math.round(2000 * Math.exp(0.6 * normal))));
}

/** The text of article `number` titled `title`: a heading, then paragraphs of sentences. */
export function wikiArticle(number, title, seed = 25) {
  const random = seededRandom((Math.imul(number + 1, 0x9e3779b1) ^ seed) >>> 0);
  const target = articleBytes(random);
  const parts = [`# ${title}\n\n`];
  let length = parts[0].length;
  let sentencesLeft = 3 + Math.floor(random() * 6);
  while (length < target) {
    const sentenceWords = 5 + Math.floor(random() * 20);
    const sentence = [];
    for (let index = 0; index < sentenceWords; index += 1) sentence.push(wordOf(zipfRank(random)));
    // Some sentences name the article, as real ones do.
    if (random() < 0.2) sentence.splice(1 + Math.floor(random() * (sentenceWords - 1)), 0, title);
    sentence[0] = capitalize(sentence[0]);
    sentencesLeft -= 1;
    const text = `${sentence.join(' ')}.${sentencesLeft === 0 ? '\n\n' : ' '}`;
    if (sentencesLeft === 0) sentencesLeft = 3 + Math.floor(random() * 6);
    parts.push(text);
    length += text.length;
  }
  return parts.join('').trimEnd();
}
