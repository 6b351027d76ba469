// Whether two worker bundles answer `search` the same on one built tree (issue #40): a change to
// how the worker ranks or counts (rank-and-count.ts) must keep each query's top 10 (ids, order)
// and `total`, and a change to how it cuts excerpts each result's excerpt and matches. Each bundle runs in its own workerd with the native file service, as the cold
// benches do, and answers the same queries: two-word queries drawn from the corpus's first
// documents (seeded), one-word, three-word and prefix queries from the same words, a word the
// index lacks, and words paired with the corpus's commonest (at FTS5's idf floor). Prints each
// query that differs and exits 1 when any does.
// Run: npm run build && OLD_WORKER=/work/old/dist/edge/_worker.js TREE=<built wiki tree> \
//   node bench/search-same-answers.mjs   (COUNT= the tree's documents, default 650000; QUERIES=60;
//   NEW_WORKER= default this checkout's dist/edge/_worker.js; OLD_TREE= the tree the old bundle
//   reads, when the index's layout changed: the same documents as TREE, written by the old writer)
import { readFileSync } from 'node:fs';
import { repoRoot } from './lib/common.mjs';
import { startWorkerdSite, workerBundle } from './lib/edge-lib.mjs';
import { initialize, timeToolCall } from './lib/mcp-http-client.mjs';
import { seededRandom, wikiDocumentStream } from './lib/search-query-corpus.mjs';

const { tokenize } = await import(`${repoRoot}/dist/core/search/tokenize.js`);
const TREE = process.env.TREE;
const OLD_WORKER = process.env.OLD_WORKER;
if (TREE === undefined || OLD_WORKER === undefined) {
  console.error('Set TREE (a built tree with a search index) and OLD_WORKER (the bundle to compare with).');
  process.exit(2);
}
const NEW_WORKER = process.env.NEW_WORKER ?? workerBundle;
const COUNT = Number(process.env.COUNT ?? 650_000);
const QUERIES = Number(process.env.QUERIES ?? 60);

/** The queries: the first documents of the stream the tree was built from hold its words. */
function queriesOf() {
  const documents = [];
  for (const document of wikiDocumentStream(COUNT)) if (documents.push(document) >= 2000) break;
  const random = seededRandom(40);
  const frequency = new Map();
  const wordsOf = documents.map((document) => {
    const words = [...new Set(tokenize(document.text))];
    for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + 1);
    return words;
  });
  const commonest = [...frequency].sort((left, right) => right[1] - left[1]).slice(0, 5);
  const pick = () => {
    const words = wordsOf[Math.floor(random() * wordsOf.length)];
    return words[Math.floor(random() * words.length)];
  };
  const queries = new Set();
  const twoWord = Math.floor(QUERIES * 0.6);
  while (queries.size < twoWord) {
    const [first, second] = [pick(), pick()];
    if (first !== second) queries.add(`${first} ${second}`);
  }
  while (queries.size < twoWord + 6) queries.add(pick());
  while (queries.size < twoWord + 12) queries.add(`${pick()} ${pick()} ${pick()}`);
  while (queries.size < twoWord + 16) queries.add(`${pick()} ${pick().slice(0, 3)}*`);
  for (const [word] of commonest.slice(0, 3)) queries.add(`${pick()} ${word}`);
  queries.add(`${commonest[0][0]} ${commonest[1][0]}`);
  queries.add('qqqqzzzzxxxx');
  queries.add(`qqqqzzzzxxxx ${pick()}`);
  return [...queries];
}

/** Each query's answer from one bundle: its result ids in order and total, or its error text. */
async function answersOf(workerScript, queries, tree = TREE) {
  const site = await startWorkerdSite(tree, { nativeFiles: true, workerScript });
  try {
    const endpoint = new URL('mcp', site.url).href;
    const headers = await initialize(endpoint);
    const answers = [];
    for (const query of queries) {
      const { answer } = await timeToolCall(endpoint, headers, 'search', { query });
      const result = answer.result;
      if (answer.error || result?.isError) answers.push(`error: ${JSON.stringify(answer).slice(0, 200)}`);
      else
        answers.push(
          JSON.stringify({
            ids: result.structuredContent.results.map((hit) => hit.id),
            total: result.structuredContent.total,
            // The excerpts too: how they are cut (excerpt.ts) must not change what they show.
            excerpts: result.structuredContent.results.map((hit) => [hit.excerpt, hit.matches]),
          }),
        );
    }
    return answers;
  } finally {
    await site.close();
  }
}

const queries = queriesOf();
const before = await answersOf(readFileSync(OLD_WORKER, 'utf8'), queries, process.env.OLD_TREE ?? TREE);
const after = await answersOf(readFileSync(NEW_WORKER, 'utf8'), queries);
let differing = 0;
queries.forEach((query, position) => {
  if (before[position] === after[position]) return;
  differing += 1;
  console.log(`differs: ${JSON.stringify(query)}\n  old ${before[position]}\n  new ${after[position]}`);
});
const matched = after.filter((answer) => !answer.startsWith('error')).length;
console.log(`${queries.length} queries, ${matched} answered with results, ${differing} differing`);
process.exit(differing === 0 ? 0 : 1);
