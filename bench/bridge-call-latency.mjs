// Precomputed tools/call round trip over stdio: `staticmcp serve` answering from a tree vs a
// minimal server on the official SDK (McpServer, one tool returning the same text), measured in
// the same run, 4,000 sequential calls each over fresh pairs of servers. Target: ours/SDK median ≤ 0.5 (issue #43).
// CLI=/other/checkout/dist/cli/main.js measures that CLI instead (a before figure); run the bench
// with another Node binary to measure both servers on it.
// Run: npm run build && node bench/bridge-call-latency.mjs
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, LineClient, median, repoRoot, tempDir, writeLookupTree } from './lib/bridge-lib.mjs';

const CALLS = Number(process.env.CALLS ?? 4000);
const WARMUP = 200;
const BLOCK = 100;
const PAIRS = 10;

const tree = writeLookupTree(10);
const sdkServer = path.join(tempDir('staticmcp-bench-sdk-'), 'sdk-server.mjs');
writeFileSync(
  sdkServer,
  `
import { McpServer } from ${JSON.stringify(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js'))};
const server = new McpServer({ name: 'baseline', version: '1.0.0' });
server.tool('lookup', 'Look a number up', async () => ({ content: [{ type: 'text', text: 'value 7' }] }));
await server.connect(new StdioServerTransport());
`,
);

/** A started, initialized and warmed-up client whose `call` times one tools/call. */
async function startServer(label, command, args, params) {
  const client = new LineClient(command, args);
  await client.initialize();
  for (let index = 0; index < WARMUP; index += 1) await client.request('tools/call', params);
  const first = await client.request('tools/call', params);
  if (first.result?.content?.[0]?.text !== 'value 7') throw new Error(`${label} answered ${JSON.stringify(first)}`);
  const times = [];
  return {
    times,
    client,
    async call() {
      const startedAt = performance.now();
      await client.request('tools/call', params);
      times.push(performance.now() - startedAt);
    },
  };
}

// This machine hands a reply from one process to another either fast (~0.04 ms a call) or slow
// (~0.1 ms), depending on where the scheduler put the pair, and keeps that mode for the life of the
// processes: fresh pairs of servers, their calls interleaved in blocks, and the mean over pairs of
// each server's median (a median over all calls jumps between the modes).
const ourMedians = [];
const sdkMedians = [];
for (let pair = 0; pair < PAIRS; pair += 1) {
  const ours = await startServer('staticmcp', process.execPath, [process.env.CLI ?? cliPath, 'serve', tree], {
    name: 'lookup',
    arguments: { n: 7 },
  });
  const sdk = await startServer('sdk', process.execPath, [sdkServer], { name: 'lookup', arguments: {} });
  for (let block = 0; block < CALLS / PAIRS / BLOCK; block += 1) {
    for (const server of [ours, sdk]) for (let index = 0; index < BLOCK; index += 1) await server.call();
  }
  await Promise.all([ours.client.close(), sdk.client.close()]);
  ourMedians.push(median(ours.times));
  sdkMedians.push(median(sdk.times));
}
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log(
  `precomputed tools/call over stdio, ${CALLS} sequential calls each: mean over ${PAIRS} server pairs of the median`,
);
console.log(`  staticmcp serve: ${mean(ourMedians).toFixed(3)} ms`);
console.log(`  SDK McpServer:   ${mean(sdkMedians).toFixed(3)} ms`);
console.log(`  ratio ours/SDK:  ${(mean(ourMedians) / mean(sdkMedians)).toFixed(2)} (target ≤ 0.5)`);
