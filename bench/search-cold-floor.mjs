// What a cold search's reads alone cost in workerd (issue #40), beside the search itself: per
// query, the files a cold search reads (found by running the same reader in Node over the tree,
// caches empty, the table file included) are read again in a new workerd by a worker that does
// nothing else: arrayBuffer() of each through ASSETS, whole, and SHA-256 of each pack as the
// reader hashes the packs it keeps. Its first request reads mcp.json (as `initialize` loads the
// site), its second the query's files; the real worker's `initialize`, then the search, take turns
// with it in the same run. The floor is what the search would cost if the worker's own code cost
// nothing: the reads' count and bytes, and workerd's first run of its fetch and stream code.
// Search less floor is the worker's code: parsing, ranking, excerpts, the MCP answer.
// Run: npm run build && CORPUS=wiki COUNT=6000 node bench/search-cold-floor.mjs   (RUNS=8;
//   TREE=<built tree>; SERVERS=files,assets; WORKER=<a _worker.js> for the search's bundle)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { coldSearchCpuMs, searchSourceOf, twoWordQueries } from './lib/cold-search.mjs';
import { median, repoRoot } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { childPid, cpuNs } from './lib/process-cpu.mjs';
import { searchTree } from './lib/search-query-tree.mjs';

const dist = (file) => import(path.join(repoRoot, 'dist', file));
const { FolderPackFiles } = await dist('hosts/node/folder-pack-files.js');
const { SearchReader } = await dist('core/search/search-reader.js');

const CORPUS = process.env.CORPUS ?? 'wiki';
const COUNT = Number(process.env.COUNT ?? 6000);
const RUNS = Number(process.env.RUNS ?? 8);
const SERVERS = (process.env.SERVERS ?? 'files,assets').split(',');
const workerScript = process.env.WORKER ? readFileSync(process.env.WORKER, 'utf8') : undefined;

// POST a JSON list of tree paths: each is read whole; packs up to the reader's 512 KiB are hashed.
const FLOOR_WORKER = `export default {
  async fetch(request, env) {
    const paths = request.method === 'POST' ? await request.json() : ['mcp.json'];
    let bytes = 0;
    await Promise.all(paths.map(async (file) => {
      const response = await env.ASSETS.fetch(new Request(new URL('/' + file, request.url), { headers: { accept: 'application/octet-stream' } }));
      const body = new Uint8Array(await response.arrayBuffer());
      if (file.endsWith('.pack') && body.length <= 512 * 1024) await crypto.subtle.digest('SHA-256', body);
      bytes += body.length;
    }));
    return new Response(JSON.stringify({ bytes }), { headers: { 'content-type': 'application/json' } });
  },
};`;

const tree = process.env.TREE ?? (await searchTree(CORPUS, COUNT)).tree;
const { source } = searchSourceOf(tree);
const queries = twoWordQueries(CORPUS, COUNT, RUNS);

/** The distinct files a cold search of `query` reads, in the order it first asks for them. */
async function filesOf(query) {
  const folder = new FolderPackFiles(tree);
  const read = new Set();
  const logged = {
    readBytes(relativePath, range) {
      read.add(relativePath);
      return folder.readBytes(relativePath, range);
    },
  };
  const result = await new SearchReader(logged, source).search({ query });
  if (result.isError) throw new Error(`${query}: ${result.content[0].text}`);
  return [...read];
}

const f = (value) => value.toFixed(1);
console.log(`${process.env.TREE ?? `${CORPUS}, ${COUNT} documents`}: ${RUNS} cold two-word searches in workerd`);
for (const server of SERVERS) {
  const nativeFiles = server === 'files';
  const search = [];
  const floor = [];
  const reads = [];
  for (const query of queries) {
    const files = await filesOf(query);
    reads.push(files.length);
    search.push(await coldSearchCpuMs(tree, { nativeFiles, workerScript }, query));
    const bare = await startWorkerdSite(tree, { nativeFiles, workerScript: FLOOR_WORKER });
    try {
      const endpoint = new URL('mcp', bare.url).href;
      const pid = childPid(process.pid, 'workerd');
      await (await fetch(endpoint)).text();
      const before = cpuNs(pid);
      const response = await fetch(endpoint, { method: 'POST', body: JSON.stringify(files) });
      await response.text();
      floor.push((cpuNs(pid) - before) / 1e6);
    } finally {
      await bare.close();
    }
  }
  const name = nativeFiles ? 'native file service' : 'miniflare asset worker';
  console.log(
    `${name}: cold search CPU p50 ${f(median(search))} ms; its ${median(reads)} files alone p50 ${f(median(floor))} ms; ` +
      `the worker's own code p50 ${f(median(search.map((ms, run) => ms - floor[run])))} ms`,
  );
}
