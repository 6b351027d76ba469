// Where a precomputed stdio call's time goes, as CPU rather than wall time: on a busy machine the
// round trip of bridge-call-latency.mjs varies several-fold from run to run, the server's CPU per
// call much less. Three servers answer the same tools/call, in rounds of fresh processes: a floor
// (a dozen lines that parse a line and write a fixed answer: what Node's stdin, stdout and event
// loop cost), the official SDK's McpServer, and `staticmcp serve`. For each, per call: the CPU of
// the whole process and of its main thread (Linux /proc; the difference is V8's helper threads,
// mostly garbage collection), and the round trip's median. CLI=/other/dist/cli/main.js measures
// that CLI too (a before figure). DISTINCT=1: every call has new arguments (n = 0, 1, 2, …, each a
// precomputed file of its own), so no answer a session kept from an earlier call serves it: what a
// client asking different questions pays; the default repeats one call. PACKED=1: the same calls
// from a packed tree (packs/, as a build writes past 19,000 calls) instead of one file per call.
// Run: npm run build && node bench/bridge-call-cpu.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  cliPath,
  LineClient,
  median,
  repoRoot,
  tempDir,
  writeLookupTree,
  writePackedLookupTree,
} from './lib/bridge-lib.mjs';

const CALLS = Number(process.env.CALLS ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WARMUP = 300;
const TICK_MS = 10;

const DISTINCT = process.env.DISTINCT === '1';
const PACKED = process.env.PACKED === '1';
const treeCalls = DISTINCT ? WARMUP + CALLS : 10;
const tree = PACKED ? await writePackedLookupTree(treeCalls) : writeLookupTree(treeCalls);
const folder = tempDir('staticmcp-bench-cpu-');
const sdkServer = path.join(folder, 'sdk-server.mjs');
writeFileSync(
  sdkServer,
  `import { McpServer } from ${JSON.stringify(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js'))};
const server = new McpServer({ name: 'baseline', version: '1.0.0' });
server.tool('lookup', 'Look a number up', async () => ({ content: [{ type: 'text', text: 'value 7' }] }));
await server.connect(new StdioServerTransport());
`,
);
const floorServer = path.join(folder, 'floor-server.mjs');
writeFileSync(
  floorServer,
  `let buffered = '';
process.stdin.setEncoding('utf8').on('data', (text) => {
  buffered += text;
  for (let newline = buffered.indexOf('\\n'); newline >= 0; newline = buffered.indexOf('\\n')) {
    const message = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (message.id === undefined) continue;
    const result = message.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'floor', version: '1' } } : { content: [{ type: 'text', text: 'value 7' }] };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
  }
});
`,
);

/** utime + stime of every thread of the process, in ms. */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU time of the main thread, in ms. */
function mainThreadCpuMs(pid) {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

async function measure(args) {
  const client = new LineClient(process.execPath, args);
  await client.initialize();
  // The floor and the SDK answer "value 7" whatever n is; staticmcp answers "value <n>".
  const paramsOf = (n) => ({ name: 'lookup', arguments: { n: DISTINCT ? n : 7 } });
  for (let index = 0; index < WARMUP; index += 1) await client.request('tools/call', paramsOf(CALLS + index));
  const pid = client.child.pid;
  const [cpuBefore, mainBefore] = [processCpuMs(pid), mainThreadCpuMs(pid)];
  const walls = [];
  for (let index = 0; index < CALLS; index += 1) {
    const startedAt = performance.now();
    const response = await client.request('tools/call', paramsOf(index));
    walls.push(performance.now() - startedAt);
    const text = response.result?.content?.[0]?.text;
    if (index === 0 && text !== 'value 7' && text !== `value ${paramsOf(index).arguments.n}`)
      throw new Error(`${args.join(' ')} answered ${JSON.stringify(response)}`);
  }
  const figures = {
    cpu: (processCpuMs(pid) - cpuBefore) / CALLS,
    main: (mainThreadCpuMs(pid) - mainBefore) / CALLS,
    wall: median(walls),
  };
  await client.close();
  return figures;
}

const servers = [
  ['floor (parse, write)', [floorServer]],
  ['SDK McpServer', [sdkServer]],
  ...(process.env.CLI ? [['staticmcp, CLI=', [path.resolve(process.env.CLI), 'serve', tree]]] : []),
  ['staticmcp serve', [cliPath, 'serve', tree]],
];
const results = new Map(servers.map(([label]) => [label, []]));
for (let round = 0; round < ROUNDS; round += 1)
  for (const [label, args] of servers) results.get(label).push(await measure(args));

const sdk = results.get('SDK McpServer');
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log(
  `precomputed tools/call over stdio on Node ${process.version}, ${CALLS} ${DISTINCT ? 'distinct' : 'identical'} calls${PACKED ? ' (packed tree)' : ''} × ${ROUNDS} fresh servers: ms per call (mean of rounds)`,
);
for (const [label, runs] of results) {
  const cpu = mean(runs.map((run) => run.cpu));
  const main = mean(runs.map((run) => run.main));
  const wall = mean(runs.map((run) => run.wall));
  console.log(
    `  ${label.padEnd(21)} CPU ${cpu.toFixed(3)} (main thread ${main.toFixed(3)}, helpers ${(cpu - main).toFixed(3)})   round trip p50 ${wall.toFixed(3)}   ÷ SDK: main thread ${(main / mean(sdk.map((run) => run.main))).toFixed(2)}, p50 ${(wall / mean(sdk.map((run) => run.wall))).toFixed(2)} (target ≤ 0.5)`,
  );
}
