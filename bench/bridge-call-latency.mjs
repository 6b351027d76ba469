// Precomputed tools/call round trip over stdio: `staticmcp serve` answering from a tree vs a
// minimal server on the official SDK (McpServer, one tool returning the same text), measured in
// the same run, 2,000 sequential calls each. Target: ours/SDK median ≤ 1.0.
// Run: npm run build && node bench/bridge-call-latency.mjs
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, LineClient, median, repoRoot, tempDir, writeLookupTree } from './lib/bridge-lib.mjs';

const CALLS = Number(process.env.CALLS ?? 2000);
const WARMUP = 200;

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

async function measure(label, command, args, params) {
  const client = new LineClient(command, args);
  await client.initialize();
  for (let index = 0; index < WARMUP; index += 1) await client.request('tools/call', params);
  const times = [];
  let checked = false;
  for (let index = 0; index < CALLS; index += 1) {
    const startedAt = performance.now();
    const response = await client.request('tools/call', params);
    times.push(performance.now() - startedAt);
    if (!checked) {
      if (response.result?.content?.[0]?.text !== 'value 7')
        throw new Error(`${label} answered ${JSON.stringify(response)}`);
      checked = true;
    }
  }
  await client.close();
  return median(times);
}

const ours = await measure('staticmcp', process.execPath, [cliPath, 'serve', tree], {
  name: 'lookup',
  arguments: { n: 7 },
});
const sdk = await measure('sdk', process.execPath, [sdkServer], { name: 'lookup', arguments: {} });
console.log(`precomputed tools/call, median of ${CALLS} sequential calls over stdio`);
console.log(`  staticmcp serve: ${ours.toFixed(3)} ms`);
console.log(`  SDK McpServer:   ${sdk.toFixed(3)} ms`);
console.log(`  ratio ours/SDK:  ${(ours / sdk).toFixed(2)} (target ≤ 1.0)`);
