// What one large answer costs `staticmcp serve --http` (issue 37, row 4 and the arguments item):
// a batch of 100 `resources/read` of a 6 MB resource, a single read of a resource larger than the
// answer cap, and a tools/call whose argument is a 2,000,000-element array, each timed with the
// server's peak RSS above rest (VmHWM, the peak reset before each attack through
// /proc/<pid>/clear_refs) and the wait of a ping sent meanwhile, against a ping and a one-entry
// read of the same resource measured in the same run.
// Run: npm run build && node bench/answer-bounds.mjs   (STATICMCP_CLI=… measures another build)
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, tempDir } from './lib/common.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const BIG_BYTES = 6 * 1024 * 1024;
const HUGE_BYTES = 40 * 1024 * 1024;
const BATCH = 100;
const ARRAY_LENGTH = 2_000_000;

function writeTree() {
  const root = tempDir('staticmcp-bench-answers-');
  mkdirSync(path.join(root, 'resources'), { recursive: true });
  const resource = (name, bytes) => {
    writeFileSync(
      path.join(root, 'resources', `${name}.json`),
      JSON.stringify({ uri: `big://${name}`, mimeType: 'text/plain', text: 'r'.repeat(bytes) }),
    );
    return { uri: `big://${name}`, name, mimeType: 'text/plain' };
  };
  const manifest = {
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'answers', version: '1.0.0' },
    capabilities: {
      tools: [
        {
          name: 'sum',
          description: 'Sum numbers',
          inputSchema: { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' } } } },
        },
      ],
      resources: [resource('six', BIG_BYTES), resource('huge', HUGE_BYTES)],
      resourceTemplates: [],
      prompts: [],
    },
  };
  writeFileSync(path.join(root, 'mcp.json'), JSON.stringify(manifest));
  return root;
}

async function startServe(tree) {
  const child = spawn(process.execPath, [cliPath, 'serve', tree, '--http', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderr += text;
    if (!text.includes('MCP endpoint')) process.stderr.write(`  serve: ${text}`);
  });
  child.on('exit', (code, signal) => process.stderr.write(`  serve exited (${code ?? signal})\n`));
  for (let waited = 0; waited < 20_000; waited += 50) {
    const port = /MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)?.[1];
    if (port) return { child, endpoint: `http://127.0.0.1:${port}/mcp` };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`serve did not start: ${stderr}`);
}

const statusKb = (pid, field) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

/** Resets the peak (VmHWM) to the current RSS; false where the kernel does not allow it. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

let nextId = 1;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-03-26',
};

async function post(endpoint, headers, body) {
  const response = await fetch(endpoint, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
}

async function openSession(endpoint) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  const response = await fetch(endpoint, { method: 'POST', headers: HEADERS, body });
  await response.text();
  const headers = { ...HEADERS, 'mcp-session-id': response.headers.get('mcp-session-id') };
  await post(endpoint, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return headers;
}

const request = (method, params) => ({ jsonrpc: '2.0', id: nextId++, method, params });

/** Wall of one request, the server's peak RSS above what it held before, and a ping's wait meanwhile. */
async function measure(serve, headers, body) {
  const pid = serve.child.pid;
  const restKb = statusKb(pid, 'VmRSS');
  const peakReset = resetPeak(pid);
  const startedAt = performance.now();
  // Caught at once: a server that blocks long enough drops keep-alive sockets, and a rejection
  // nobody listens to yet would end the bench.
  const answer = post(serve.endpoint, headers, body).catch((error) => ({
    status: `failed (${error.cause?.code ?? error.message})`,
    text: '',
  }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  const pingSentAt = performance.now();
  const ping = await post(serve.endpoint, headers, JSON.stringify(request('ping'))).catch((error) => ({
    status: `failed (${error.cause?.code ?? error.message})`,
  }));
  if (ping.status !== 200) process.stderr.write(`  the ping meanwhile: HTTP ${ping.status}\n`);
  const pingMs = performance.now() - pingSentAt;
  const { status, text } = await answer;
  const wallMs = performance.now() - startedAt;
  const peakKb = peakReset ? statusKb(pid, 'VmHWM') : Number.NaN;
  return { wallMs, pingMs, aboveRestMb: (peakKb - restKb) / 1024, status, bytes: text.length, text };
}

const tree = writeTree();
const serve = await startServe(tree);
const headers = await openSession(serve.endpoint);
const attacks = {
  ping: () => JSON.stringify(request('ping')),
  'read 6 MB once': () => JSON.stringify([request('resources/read', { uri: 'big://six' })]),
  'batch of 100 reads of 6 MB': () =>
    JSON.stringify(Array.from({ length: BATCH }, () => request('resources/read', { uri: 'big://six' }))),
  'read 40 MB (over the cap)': () => JSON.stringify(request('resources/read', { uri: 'big://huge' })),
  '2,000,000-element argument': () =>
    `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"sum","arguments":{"numbers":[${'0,'.repeat(ARRAY_LENGTH - 1)}0]}}}`,
};
const rows = [];
for (const [label, makeBody] of Object.entries(attacks)) {
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) {
    process.stderr.write(`${label} (run ${run + 1} of ${RUNS})…\n`);
    runs.push(await measure(serve, headers, makeBody()));
  }
  const last = runs.at(-1);
  let summary = `HTTP ${last.status}, ${(last.bytes / 1e6).toFixed(1)} MB`;
  try {
    const parsed = JSON.parse(last.text);
    const entries = Array.isArray(parsed) ? parsed : [parsed];
    const refused = entries.filter((entry) => entry.error).length;
    summary += `, ${entries.length - refused} answered, ${refused} refused`;
    const error = entries.find((entry) => entry.error)?.error;
    if (error) summary += ` (${error.code}: ${error.message.slice(0, 70)}…)`;
  } catch {}
  rows.push({
    label,
    wallMs: median(runs.map((run) => run.wallMs)),
    pingMs: Math.max(...runs.map((run) => run.pingMs)),
    aboveRestMb: Math.max(...runs.map((run) => run.aboveRestMb)),
    summary,
  });
}
serve.child.kill();

const base = rows[0].wallMs;
console.log(`answer bounds, ${cliPath}, median wall of ${RUNS} runs, worst ping wait and peak above rest`);
for (const row of rows) {
  console.log(
    `${row.label.padEnd(28)} wall ${row.wallMs.toFixed(0).padStart(6)} ms (${(row.wallMs / base).toFixed(0).padStart(5)}x ping)` +
      `  ping meanwhile ${row.pingMs.toFixed(0).padStart(6)} ms  peak +${row.aboveRestMb.toFixed(0).padStart(5)} MB  ${row.summary}`,
  );
}
