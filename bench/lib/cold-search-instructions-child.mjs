// The process search-cold-instructions.mjs runs under callgrind: the edge worker's bundle in Node,
// its ASSETS a read of the tree's files (whole, as the Workers binding sends them), `initialize`,
// then one search. os.getPriority() marks the phases (callgrind dumps its counts before each
// call): Node's start and its own first reads, the worker's module, `initialize`, the search, and
// a search of other words after it. Run by the bench only: node <this> <worker.mjs> <tree> <query>
// <later query>.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [workerPath, tree, query, laterQuery] = process.argv.slice(2);
const mark = () => os.getPriority();

const ASSETS = {
  async fetch(request) {
    const file = decodeURIComponent(new URL(request.url).pathname);
    try {
      const bytes = await readFile(path.join(tree, file));
      const type = file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
      return new Response(bytes, { headers: { 'content-type': type, 'content-length': String(bytes.length) } });
    } catch {
      return new Response('not found', { status: 404 });
    }
  },
};
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

// Node's first-run code for what the worker uses (its fetch, Request and Response, streams, Web
// Crypto, TextDecoder, DecompressionStream), run once outside the worker before it starts, so it
// counts in no phase of the worker's.
const response = await ASSETS.fetch(
  new Request('http://tree.test/mcp.json', { headers: { accept: 'application/json' } }),
);
const bytes = new Uint8Array(await response.arrayBuffer());
await new Response(JSON.stringify({ warm: true }), { headers: HEADERS }).text();
await new Request('http://tree.test/mcp', { method: 'POST', headers: HEADERS, body: '{}' }).text();
await crypto.subtle.digest('SHA-256', bytes);
new TextDecoder('utf-8', { fatal: true }).decode(bytes);
const inflater = new DecompressionStream('deflate-raw');
const writer = inflater.writable.getWriter();
writer.write(new Uint8Array([3, 0])).catch(() => {});
writer.close().catch(() => {});
const reader = inflater.readable.getReader();
while (!(await reader.read()).done);
mark();
const worker = (await import(pathToFileURL(workerPath).href)).default;
mark();
const post = async (body) => {
  const request = new Request('http://tree.test/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  return (await worker.fetch(request, { ASSETS })).text();
};
const clientInfo = { name: 'bench', version: '1' };
await post({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
});
mark();
const search = (text, id) =>
  post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search', arguments: { query: text } } });
const answer = await search(query, 2);
mark();
// Other words: their reads are cold too, the code that answers them is not.
const laterAnswer = await search(laterQuery, 3);
mark();
for (const [text, found] of [
  [query, answer],
  [laterQuery, laterAnswer],
]) {
  if (!found.includes('"results"')) {
    console.error(`search "${text}" failed: ${found.slice(0, 300)}`);
    process.exitCode = 1;
  }
}
