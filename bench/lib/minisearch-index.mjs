// MiniSearch (the in-memory engine the issue compares with) indexing a search corpus
// (search-corpora.mjs) in a process of its own, and its index serialised as JSON, as a static
// site would ship it; prints one JSON line: index time (the add calls only, not the corpus
// generation), peak RSS, the JSON's bytes, or where it failed (a heap or string too large).
//   node bench/lib/minisearch-index.mjs <debian|wiki> <documents>
import MiniSearch from 'minisearch';
import { searchCorpus } from './search-corpora.mjs';

const [name, countText] = process.argv.slice(2);
const corpus = searchCorpus(name, Number(countText));
// The same documents as the tree's: title and text searchable, the title kept for results.
const engine = new MiniSearch({ fields: ['title', 'text'], storeFields: ['title'] });
let indexMs = 0;
let indexCpuMs = 0;
let rawBytes = 0;
for (const title of corpus.titles) {
  const text = corpus.textOf(title);
  rawBytes += Buffer.byteLength(title) + Buffer.byteLength(text);
  const startedAt = performance.now();
  const cpuAt = process.cpuUsage();
  engine.add({ id: `tools/${corpus.tool}/${title}.json`, title, text });
  const used = process.cpuUsage(cpuAt);
  indexMs += performance.now() - startedAt;
  indexCpuMs += (used.user + used.system) / 1000;
}
const rssAfterIndexMb = process.resourceUsage().maxRSS / 1024;
let jsonBytes;
let jsonMs;
let failure;
try {
  const startedAt = performance.now();
  jsonBytes = Buffer.byteLength(JSON.stringify(engine));
  jsonMs = performance.now() - startedAt;
} catch (error) {
  failure = `JSON.stringify failed: ${error.message}`;
}
console.log(
  JSON.stringify({
    documents: corpus.titles.length,
    rawBytes,
    indexMs,
    indexCpuMs,
    rssAfterIndexMb,
    jsonBytes,
    jsonMs,
    failure,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
