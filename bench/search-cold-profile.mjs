// Where a cold search's CPU goes in workerd (issue #40): per run a new workerd with its inspector
// open, V8's sampling profiler started on the worker's isolate (core:user:) before `initialize`,
// then one two-word search, the profile taken after each of them; prints the isolate's sampled
// time by kind (parse and compile of first-run code, GC, the program's own functions) and the
// functions with the most self time, summed over the runs. The samples are the isolate's thread
// only: the asset worker that serves the files and workerd's own I/O are outside them (the
// process's CPU, as search-cold-edge.mjs measures it, is printed beside).
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-profile.mjs
//   (RUNS=5, TOP=25, SERVER=files|assets, TREE=<built tree>)
import { repoRoot } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { initialize, timeToolCall } from './lib/mcp-http-client.mjs';
import { childPid, cpuNs } from './lib/process-cpu.mjs';
import { seededRandom } from './lib/search-query-corpus.mjs';
import { queryDocuments, searchTree } from './lib/search-query-tree.mjs';
import { connectWorkerInspector } from './lib/workerd-inspector.mjs';

const { tokenize } = await import(`${repoRoot}/dist/core/search/tokenize.js`);
const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 5);
const TOP = Number(process.env.TOP ?? 25);
const SERVER = process.env.SERVER ?? 'files';

const tree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const random = seededRandom(40);
const documents = queryDocuments(CORPUS, COUNT);

const byKind = new Map();
const byFunction = new Map();
const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);

/** Adds a profile's self time per node to the tallies. */
function tally(profile, phase) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map();
  for (let i = 0; i < profile.samples.length; i += 1)
    selfMs.set(profile.samples[i], (selfMs.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i] / 1000);
  for (const [id, ms] of selfMs) {
    const { functionName, url, lineNumber, columnNumber } = nodes.get(id).callFrame;
    const name = functionName || '(anonymous)';
    const kind = name.startsWith('(') ? name : 'program code';
    add(byKind, `${phase} ${kind}`, ms);
    if (name !== '(idle)')
      add(byFunction, `${phase} ${name} ${url.split('/').at(-1)}:${lineNumber}:${columnNumber}`, ms);
  }
}

const f = (value) => value.toFixed(1);
const processMs = { initialize: 0, search: 0 };
for (let run = 0; run < RUNS; run += 1) {
  const terms = [...new Set(tokenize(documents[Math.floor(random() * documents.length)].text))];
  const query = `${terms[Math.floor(random() * terms.length)]} ${terms[Math.floor(random() * terms.length)]}`;
  const inspectorPort = 9900 + ((process.pid + run) % 90);
  const site = await startWorkerdSite(tree, { nativeFiles: SERVER === 'files', inspectorPort });
  try {
    const endpoint = new URL('mcp', site.url).href;
    const pid = childPid(process.pid, 'workerd');
    const inspector = await connectWorkerInspector(inspectorPort);
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.setSamplingInterval', { interval: 50 });
    for (const phase of ['initialize', 'search']) {
      await inspector.send('Profiler.start');
      const before = cpuNs(pid);
      if (phase === 'initialize') globalThis.headers = await initialize(endpoint);
      else {
        const { answer } = await timeToolCall(endpoint, globalThis.headers, 'search', { query });
        if (answer.error || answer.result?.isError) throw new Error(JSON.stringify(answer).slice(0, 300));
      }
      processMs[phase] += (cpuNs(pid) - before) / 1e6 / RUNS;
      const { profile } = await inspector.send('Profiler.stop');
      tally(profile, phase);
    }
    inspector.close();
  } finally {
    await site.close();
  }
}
console.log(`${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}, ${SERVER}: ${RUNS} cold runs, ms per run`);
console.log(`process CPU: initialize ${f(processMs.initialize)}, search ${f(processMs.search)}`);
for (const [kind, ms] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`  ${kind}: ${f(ms / RUNS)}`);
console.log(`top ${TOP} functions by self time:`);
for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`  ${f(ms / RUNS).padStart(6)}  ${name}`);
