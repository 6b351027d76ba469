// What the cold-search benches share (search-cold-*.mjs): the seeded two-word queries drawn from a
// corpus's documents, a built tree's search manifest, and one cold search's CPU in a new workerd.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './common.mjs';
import { startWorkerdSite } from './edge-lib.mjs';
import { initialize, timeToolCall } from './mcp-http-client.mjs';
import { childPid, cpuNs } from './process-cpu.mjs';
import { seededRandom } from './search-query-corpus.mjs';
import { queryDocuments } from './search-query-tree.mjs';

const { tokenize } = await import(`${repoRoot}/dist/core/search/tokenize.js`);
const { parseSearchIndexManifest } = await import(`${repoRoot}/dist/core/search/search-index-format.js`);

/**
 * `wanted` queries of two different words of one document each, the same on every run (seed 40);
 * QUERY=<text> in the environment asks that one query `wanted` times instead (a word the index
 * lacks, say, whose cold cost is what a cold worker spends before it can answer anything);
 * QUERIES_FILE=<a JSON list of queries> asks those, in turn (sampling a 650,000-document corpus for
 * the seeded queries takes minutes: save them once).
 */
export function twoWordQueries(corpus, count, wanted) {
  if (process.env.QUERY !== undefined) return Array.from({ length: wanted }, () => process.env.QUERY);
  if (process.env.QUERIES_FILE !== undefined) {
    const listed = JSON.parse(readFileSync(process.env.QUERIES_FILE, 'utf8'));
    return Array.from({ length: wanted }, (_, position) => listed[position % listed.length]);
  }
  const random = seededRandom(40);
  const documents = queryDocuments(corpus, count);
  const queries = [];
  while (queries.length < wanted) {
    const terms = [...new Set(tokenize(documents[Math.floor(random() * documents.length)].text))];
    if (terms.length < 2) continue;
    const first = terms[Math.floor(random() * terms.length)];
    const second = terms[Math.floor(random() * terms.length)];
    if (first !== second) queries.push(`${first} ${second}`);
  }
  return queries;
}

/** The tree's search manifest as the reader takes it: `parsed` (a table file or rows) and its `source`. */
export function searchSourceOf(tree) {
  const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
  const parsed = parseSearchIndexManifest(manifest.staticmcp.search);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return { parsed, source: 'table' in parsed ? parsed.table : parsed };
}

/** The workerd process's CPU for one cold search of `query` after `initialize`, in ms; a new workerd each time. */
export async function coldSearchCpuMs(tree, { nativeFiles, workerScript }, query) {
  const site = await startWorkerdSite(tree, { nativeFiles, workerScript });
  try {
    const endpoint = new URL('mcp', site.url).href;
    const pid = childPid(process.pid, 'workerd');
    const headers = await initialize(endpoint);
    const before = cpuNs(pid);
    const { answer } = await timeToolCall(endpoint, headers, 'search', { query });
    const ms = (cpuNs(pid) - before) / 1e6;
    if (answer.error || answer.result?.isError) throw new Error(JSON.stringify(answer).slice(0, 300));
    return ms;
  } finally {
    await site.close();
  }
}
