// The first tools/call a new server answers, against the calls after it: over stdio (initialize,
// then a pause as a client's model thinks, then the call) and over `serve --http` (a 2026-07-28
// POST a second after the server listens). What a process loads on first use (handlers, the schema
// compiler, fetch's Request class) shows up here as a first call many times slower than the rest.
// Target (issue #43): first ÷ later ≤ 5. A flat input schema is checked without ajv, and the preload
// compiles each tool's validator, so the first call waits for neither (a stdio call takes ~0.2 ms,
// which makes 5× a tight bound on a busy machine). The later calls come back to back; one more new
// call after a second pause shows what a pause alone costs (caches gone cold, the once-a-second look
// for a rebuilt tree): first ÷ paused is what is left of first use. Run with another Node binary to
// measure it.
// Run: npm run build && node bench/first-call.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { cliPath, LineClient, median, writeLookupTree } from './lib/bridge-lib.mjs';

const RUNS = Number(process.env.RUNS ?? 7);
const LATER = 20;
const PAUSE_MS = 1000;
/** The later calls ask for n = 0 … 9; the call after a second pause asks for this one. */
const PAUSED_N = 10;
const tree = writeLookupTree(PAUSED_N + 1);
const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/** CPU time the main thread of process `pid` has run (Linux /proc), in ms; undefined elsewhere. */
function mainThreadCpuMs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Times the first call and the median of the next LATER, given one call as a function; with the
 * server's `pid`, also the CPU its main thread spent on each (a busy machine stretches wall times
 * several-fold, the CPU much less).
 */
async function timeCalls(call, pid) {
  const measureOne = async (n) => {
    const cpuBefore = pid === undefined ? undefined : mainThreadCpuMs(pid);
    const startedAt = performance.now();
    await call(n);
    const elapsed = performance.now() - startedAt;
    const cpuAfter = pid === undefined ? undefined : mainThreadCpuMs(pid);
    return { elapsed, cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
  };
  const first = await measureOne(0);
  const later = [];
  for (let index = 1; index <= LATER; index += 1) later.push(await measureOne(index % 10));
  const laterCpus = later.map((one) => one.cpu).filter((cpu) => cpu !== undefined);
  // A call no earlier one asked for, after the same pause as the first: what a pause alone costs.
  await pause();
  const paused = await measureOne(PAUSED_N);
  return {
    first: first.elapsed,
    later: median(later.map((one) => one.elapsed)),
    paused: paused.elapsed,
    ...(first.cpu !== undefined && laterCpus.length > 0
      ? { firstCpu: first.cpu, laterCpu: median(laterCpus), pausedCpu: paused.cpu }
      : {}),
  };
}

/** POSTs `body` to `url` through `agent` (node:http's client) and parses the JSON answer. */
function postJson(url, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => resolve(JSON.parse(text)));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** One exchange with a node:http server of this process, which is then closed: the client's own first use. */
async function warmClient() {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true });
  await postJson(`http://127.0.0.1:${server.address().port}/`, { 'content-type': 'application/json' }, '{}', agent);
  agent.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

async function overStdio() {
  const client = new LineClient(process.execPath, [cliPath, 'serve', tree]);
  await client.initialize();
  await pause();
  const times = await timeCalls(async (n) => {
    const response = await client.request('tools/call', { name: 'lookup', arguments: { n } });
    if (response.result?.content?.[0]?.text !== `value ${n}`)
      throw new Error(`stdio answered ${JSON.stringify(response)}`);
  }, client.child.pid);
  await client.close();
  return times;
}

async function overHttp() {
  const child = spawn(process.execPath, [cliPath, 'serve', tree, '--http', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const endpoint = await new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr += text;
      const found = /MCP endpoint: (\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.on('exit', () => reject(new Error(`serve --http ended: ${stderr}`)));
  });
  await pause();
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  // One connection kept for every call, as a client's fetch keeps one.
  const agent = new http.Agent({ keepAlive: true });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'lookup',
  };
  const times = await timeCalls(async (n) => {
    const body = await postJson(
      endpoint,
      headers,
      JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: { name: 'lookup', arguments: { n }, _meta: meta },
      }),
      agent,
    );
    if (body.result?.content?.[0]?.text !== `value ${n}`) throw new Error(`http answered ${JSON.stringify(body)}`);
  }, child.pid);
  agent.destroy();
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  return times;
}

// The client's own first request compiles node:http's client side: it happens against a server of
// this process first, so only the server's first call is timed. (fetch is not used: its first
// request to each new origin cost the client tens of ms more on Node 24.)
await warmClient();
for (const [label, measure] of [
  ['stdio', overStdio],
  ['serve --http', overHttp],
]) {
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(await measure());
  const first = median(runs.map((times) => times.first));
  const later = median(runs.map((times) => times.later));
  const paused = median(runs.map((times) => times.paused));
  const cpuRuns = runs.filter((times) => times.firstCpu !== undefined);
  const cpu =
    cpuRuns.length === 0
      ? ''
      : (() => {
          const firstCpu = median(cpuRuns.map((times) => times.firstCpu));
          const laterCpu = median(cpuRuns.map((times) => times.laterCpu));
          const pausedCpu = median(cpuRuns.map((times) => times.pausedCpu));
          return `; server main thread CPU ${firstCpu.toFixed(2)} ms, later ${laterCpu.toFixed(3)} ms: ratio ${(firstCpu / laterCpu).toFixed(1)}; after a pause ${pausedCpu.toFixed(2)} ms: first ÷ paused ${(firstCpu / pausedCpu).toFixed(1)}`;
        })();
  console.log(
    `${label.padEnd(13)} first call ${first.toFixed(1)} ms, later calls ${later.toFixed(2)} ms: ratio ${(first / later).toFixed(1)} (target ≤ 5; median of ${RUNS} servers); a new call after a pause ${paused.toFixed(2)} ms${cpu}`,
  );
}
