// A precomputed tools/call over Streamable HTTP (POST → JSON), median per server, the three
// measured in the same run and interleaved (rounds of calls, servers in turn), so noise from the
// other engineers' jobs on this machine hits all three alike:
//   - the tree's _worker.js in workerd (miniflare, the tree as static assets, /mcp to the worker),
//   - `staticmcp serve --http` on Node (same tree),
//   - the official SDK's Streamable HTTP server (McpServer + StreamableHTTPServerTransport,
//     stateless, JSON responses, one tool returning the same text) on node:http: the baseline;
// plus the floor of the local runtime: a static GET of the same call file from workerd's assets
// (miniflare's loopback proxy costs milliseconds that a deployed worker does not pay).
// Each client initializes once (serve --http then hands out a session, the stateless servers do
// not), then every call is one POST on a kept-alive connection, as a remote client sends it.
// Run: npm run build && node bench/edge-call-latency.mjs
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir, writeLookupTree } from './lib/bridge-lib.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { initialize, timeToolCall } from './lib/mcp-http-client.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const CALLS_PER_ROUND = Number(process.env.CALLS ?? 50);
const WARMUP = 100;

const tree = writeLookupTree(10);
const sdkModule = (file) =>
  JSON.stringify(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm', file));
const sdkServer = path.join(tempDir('staticmcp-bench-sdk-http-'), 'sdk-http-server.mjs');
writeFileSync(
  sdkServer,
  `
import http from 'node:http';
import { McpServer } from ${sdkModule('server/mcp.js')};
import { StreamableHTTPServerTransport } from ${sdkModule('server/streamableHttp.js')};
// Stateless, as the SDK's examples do it: a server and a transport per request.
const server = http.createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const mcp = new McpServer({ name: 'baseline', version: '1.0.0' });
  mcp.tool('lookup', 'Look a number up', async () => ({ content: [{ type: 'text', text: 'value 7' }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => { void transport.close(); void mcp.close(); });
  await mcp.connect(transport);
  await transport.handleRequest(request, response, body);
});
server.listen(0, '127.0.0.1', () => process.stderr.write('listening on ' + server.address().port + '\\n'));
`,
);

/** Spawns a server and waits for the stderr line that names its port. */
function spawnServer(args, portPattern) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      stderr += text;
      const match = portPattern.exec(stderr);
      if (match)
        resolve({
          url: new URL(`http://127.0.0.1:${match[1]}/`),
          close: async () => {
            child.kill();
          },
        });
    });
    child.on('exit', () => reject(new Error(`server exited: ${stderr}`)));
  });
}

async function getStatic(url) {
  const startedAt = performance.now();
  const response = await fetch(url);
  const answer = await response.json();
  const elapsed = performance.now() - startedAt;
  if (answer.content?.[0]?.text !== 'value 7') throw new Error(`${url} answered ${JSON.stringify(answer)}`);
  return elapsed;
}

async function call(endpoint, headers, args) {
  const { answer, elapsedMs } = await timeToolCall(endpoint, headers, 'lookup', args);
  if (answer.result?.content?.[0]?.text !== 'value 7')
    throw new Error(`${endpoint} answered ${JSON.stringify(answer)}`);
  return elapsedMs;
}

const servers = [
  { label: 'worker in workerd', site: await startWorkerdSite(tree), args: { n: 7 } },
  {
    label: 'serve --http (Node)',
    site: await spawnServer(
      [cliPath, 'serve', tree, '--http', '--port', '0'],
      /MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
    ),
    args: { n: 7 },
  },
  { label: 'SDK Streamable HTTP', site: await spawnServer([sdkServer], /listening on (\d+)/), args: {} },
];
const staticFile = new URL('tools/lookup/7.json', servers[0].site.url);
const staticTimes = [];
try {
  for (let index = 0; index < WARMUP; index += 1) await getStatic(staticFile);
  for (const server of servers) {
    server.endpoint = new URL('mcp', server.site.url);
    server.times = [];
    server.headers = await initialize(server.endpoint);
    for (let index = 0; index < WARMUP; index += 1) await call(server.endpoint, server.headers, server.args);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const server of servers) {
      for (let index = 0; index < CALLS_PER_ROUND; index += 1)
        server.times.push(await call(server.endpoint, server.headers, server.args));
    }
    for (let index = 0; index < CALLS_PER_ROUND; index += 1) staticTimes.push(await getStatic(staticFile));
  }
} finally {
  for (const server of servers) await server.site.close();
}

const baseline = median(servers[2].times);
console.log(
  `precomputed tools/call over Streamable HTTP, median of ${ROUNDS * CALLS_PER_ROUND} calls each (${ROUNDS} interleaved rounds)`,
);
for (const server of servers) {
  const p50 = median(server.times);
  console.log(`  ${server.label.padEnd(22)} ${p50.toFixed(3)} ms   ratio to SDK ${(p50 / baseline).toFixed(2)}`);
}
const floor = median(staticTimes);
console.log(
  `  ${'workerd static GET'.padEnd(22)} ${floor.toFixed(3)} ms   ratio to SDK ${(floor / baseline).toFixed(2)}   (the local runtime's floor: the worker adds ${(median(servers[0].times) - floor).toFixed(3)} ms)`,
);
