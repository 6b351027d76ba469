// The live origin (issue 27), measured on this machine, each figure against a baseline taken in
// the same run:
//   1. a miss through edge → origin (the tree's _worker.js in workerd, forwarding a signed run to
//      `staticmcp serve --origin`) vs the same run sent to the origin directly (signed by the
//      bench), interleaved rounds, medians and their ratio;
//   2. for the example project (fixtures/example), the share of calls that reach the origin when a
//      client calls each tool with each precomputed value once and three free values (the
//      origin's log counts what it got);
//   3. the origin's start-up as the Dockerfile's CMD runs it (`staticmcp serve . --origin`, until
//      /healthz answers 200), against Node's own start (`node -e 0`);
//   4. the installed CLI's size: the package (npm pack) plus its production dependencies.
// Run: npm run build && node bench/live-origin.mjs
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { signOriginRequest } from '../dist/core/origin/origin-signature.js';
import { timeNodeStart } from './lib/bridge-lib.mjs';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { startWorkerdSite } from './lib/edge-lib.mjs';
import { initialize, timeToolCall } from './lib/mcp-http-client.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const CALLS_PER_ROUND = Number(process.env.CALLS ?? 10);
const STARTS = Number(process.env.STARTS ?? 5);
const KEY = 'bench-origin-key-0123456789abcdef0123456789';

/** Spawns `node <args>` and resolves once `pattern` matches its stderr (group 1: the port). */
function spawnUntil(args, pattern, options = {}) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  let stderr = '';
  const log = () => stderr;
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      stderr += text;
      const match = pattern.exec(stderr);
      if (match) resolve({ child, port: Number(match[1]), log });
    });
    child.on('exit', () => reject(new Error(`exited: ${stderr}`)));
  });
}

const project = path.join(tempDir('staticmcp-bench-origin-'), 'example');
cpSync(path.join(repoRoot, 'fixtures', 'example'), project, {
  recursive: true,
  filter: (source) => !/[/\\](dist|\.staticmcp)([/\\]|$)/.test(path.relative(repoRoot, source)),
});
const env = { ...process.env, STATICMCP_ORIGIN_KEY: KEY };
const origin = await spawnUntil(
  [cliPath, 'serve', project, '--origin', '--host', '127.0.0.1', '--port', '0'],
  /Live origin: http:\/\/127\.0\.0\.1:(\d+)\//,
  { env },
);
const originUrl = `http://127.0.0.1:${origin.port}`;
const configFile = path.join(project, 'staticmcp.json');
const config = JSON.parse(readFileSync(configFile, 'utf8'));
// The same project without an origin first: its narrowed lists name the precomputed values.
const plainTree = path.join(tempDir('staticmcp-bench-origin-tree-'), 'plain');
execFileSync(process.execPath, [cliPath, 'build', project, '--out', plainTree], { stdio: 'ignore' });
writeFileSync(configFile, JSON.stringify({ ...config, liveOrigin: originUrl }));
// In the project's own output folder: the origin runs only what the project's built tree declares.
const tree = path.join(project, 'dist');
execFileSync(process.execPath, [cliPath, 'build', project], { stdio: 'ignore' });
const site = await startWorkerdSite(tree, { bindings: { STATICMCP_ORIGIN_KEY: KEY } });
const edge = new URL('mcp', site.url);
const plain = await spawnUntil(
  [cliPath, 'serve', plainTree, '--http', '--port', '0'],
  /MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
);
const plainEndpoint = `http://127.0.0.1:${plain.port}/mcp`;

async function list(endpoint, headers) {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return (await response.json()).result.tools;
}

function runsSoFar() {
  return (origin.log().match(/live run of /g) ?? []).length;
}

try {
  const edgeHeaders = await initialize(edge);
  // 1. A miss: a country nobody enumerated (the script answers it with an error of its own), through the edge and straight to the origin.
  const missArgs = { country: 'Peru' };
  const runBody = new TextEncoder().encode(
    JSON.stringify({
      scriptPath: 'tools/capital',
      toolName: 'capital',
      phase: 'live',
      args: missArgs,
      declaredOptions: ['country'],
      timeoutMs: 30_000,
    }),
  );
  async function direct() {
    const headers = await signOriginRequest(KEY, { method: 'POST', path: '/live-run', body: runBody, client: 'bench' });
    const startedAt = performance.now();
    const response = await fetch(`${originUrl}/live-run`, { method: 'POST', headers, body: runBody });
    const text = await response.text();
    if (!text.includes('"outcome"')) throw new Error(`the origin answered ${response.status} ${text}`);
    return performance.now() - startedAt;
  }
  async function throughEdge() {
    const { answer, elapsedMs } = await timeToolCall(edge, edgeHeaders, 'capital', missArgs);
    // The script's own answer to a country it does not know (exit 4): the origin ran it.
    if (!JSON.stringify(answer.result).includes('Unknown country: Peru'))
      throw new Error(`the edge answered ${JSON.stringify(answer)}`);
    return elapsedMs;
  }
  for (let index = 0; index < 5; index += 1) {
    await direct();
    await throughEdge();
  }
  const directTimes = [];
  const edgeTimes = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let index = 0; index < CALLS_PER_ROUND; index += 1) directTimes.push(await direct());
    for (let index = 0; index < CALLS_PER_ROUND; index += 1) edgeTimes.push(await throughEdge());
  }
  const directMs = median(directTimes);
  const edgeMs = median(edgeTimes);
  console.log(`1. a miss (capital, country "Peru"), median of ${ROUNDS * CALLS_PER_ROUND} each, interleaved rounds:`);
  console.log(`   origin directly (signed run)   ${directMs.toFixed(2)} ms`);
  console.log(
    `   through the edge (workerd)     ${edgeMs.toFixed(2)} ms   ratio ${(edgeMs / directMs).toFixed(2)} (the edge adds ${(edgeMs - directMs).toFixed(2)} ms)`,
  );

  // 2. Each precomputed value once, and three free values a tool, per tool of the example.
  const plainHeaders = await initialize(plainEndpoint);
  const narrowed = new Map((await list(plainEndpoint, plainHeaders)).map((tool) => [tool.name, tool]));
  const full = await list(edge, edgeHeaders);
  const calls = [];
  for (const tool of full) {
    const properties = tool.inputSchema.properties ?? {};
    const held = narrowed.get(tool.name)?.inputSchema.properties ?? {};
    // A tool the narrowed lists hide has nothing precomputed. Of one they show, a parameter's
    // precomputed values are its narrowed enum, both booleans, or its whole integer range
    // (which the lists never narrow); every other parameter held its default.
    const precomputed = narrowed.has(tool.name);
    const precomputedValues = (name, schema) => {
      if (!precomputed) return [];
      if (held[name]?.enum) return held[name].enum;
      if (schema.type === 'boolean') return [false, true];
      if (schema.type === 'integer' && schema.minimum !== undefined && schema.maximum !== undefined) {
        const values = [];
        for (let value = schema.minimum; value <= schema.maximum; value += 1) values.push(value);
        return values;
      }
      return [];
    };
    const base = {};
    for (const [name, schema] of Object.entries(properties)) {
      const values = precomputedValues(name, schema);
      if (values.length > 0) base[name] = values[0];
      else if ('default' in schema) base[name] = schema.default;
    }
    for (const [name, schema] of Object.entries(properties)) {
      for (const value of precomputedValues(name, schema))
        calls.push({ name: tool.name, arguments: { ...base, [name]: value } });
    }
    // Free values: values of one parameter that nobody precomputed (text for a string, a number
    // outside the precomputed ones), when the parameter takes any; a tool whose every value is
    // precomputed (greet, math_multiply) has none.
    const freeValues = (name, schema) => {
      const taken = new Set(precomputedValues(name, schema).map(String));
      if (schema.enum || schema.type === 'boolean') return [];
      if (schema.type === 'string') return ['free text 1', 'free text 2', 'free text 3'];
      const low = schema.minimum ?? -1000;
      const high = schema.maximum ?? 1000;
      const values = [];
      for (let value = high; value >= low && values.length < 3; value -= 1)
        if (!taken.has(String(value))) values.push(schema.type === 'integer' ? value : value + 0.5);
      return values;
    };
    const free = Object.entries(properties)
      .map(([name, schema]) => [name, freeValues(name, schema)])
      .find(([, values]) => values.length > 0);
    for (const value of free?.[1] ?? []) {
      const name = free[0];
      const filled = { ...base, [name]: value };
      for (const [other, otherSchema] of Object.entries(properties))
        if (!(other in filled)) filled[other] = otherSchema.type === 'string' ? 'x' : 2;
      calls.push({ name: tool.name, arguments: filled });
    }
  }
  const before = runsSoFar();
  const reached = new Set();
  for (const [index, call] of calls.entries()) {
    const count = runsSoFar();
    await timeToolCall(edge, edgeHeaders, call.name, call.arguments);
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (runsSoFar() > count) reached.add(index);
  }
  const reachedCount = runsSoFar() - before;
  console.log(
    `2. example project: ${calls.length} calls (${full.length} tools, each precomputed value once + 3 free values where a parameter takes any), ${reachedCount} reached the origin: ${((100 * reachedCount) / calls.length).toFixed(1)}%`,
  );
  const perTool = {};
  for (const [index, call] of calls.entries()) {
    perTool[call.name] ??= [0, 0];
    perTool[call.name][0] += 1;
    if (reached.has(index)) perTool[call.name][1] += 1;
  }
  console.log(
    `   per tool (calls, at the origin): ${Object.entries(perTool)
      .map(([name, [all, hit]]) => `${name} ${all}/${hit}`)
      .join(', ')}`,
  );

  // 3. Start-up as the Dockerfile's CMD runs it: `staticmcp serve . --origin`, $PORT, until /healthz is 200.
  const starts = [];
  const nodeStarts = [];
  for (let index = 0; index < STARTS; index += 1) {
    nodeStarts.push(await timeNodeStart());
    const startedAt = performance.now();
    const child = spawn(process.execPath, [cliPath, 'serve', '.', '--origin', '--host', '127.0.0.1'], {
      cwd: project,
      env: { ...env, PORT: String(origin.port + 1 + index) },
      stdio: 'ignore',
    });
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${origin.port + 1 + index}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    starts.push(performance.now() - startedAt);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
  }
  const startMs = median(starts);
  const nodeMs = median(nodeStarts);
  console.log(
    `3. origin start-up to a healthy /healthz, median of ${STARTS}: ${startMs.toFixed(0)} ms; node -e 0: ${nodeMs.toFixed(0)} ms; ratio ${(startMs / nodeMs).toFixed(2)}`,
  );
} finally {
  await site.close();
  origin.child.kill('SIGTERM');
  plain.child.kill('SIGTERM');
}

// 4. The installed CLI: the package as npm packs it, plus its production dependencies as installed.
const [packed] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
);
// The production dependency tree as npm installs it (flat: node_modules/<name>, nested copies
// under a package's own node_modules), walked from package.json's dependencies.
const productionPaths = [];
const pending = Object.keys(
  JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).dependencies ?? {},
).map((name) => [repoRoot, name]);
while (pending.length > 0) {
  const [from, name] = pending.pop();
  let folder = from;
  let found;
  for (;;) {
    const candidate = path.join(folder, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) {
      found = candidate;
      break;
    }
    if (folder === repoRoot || folder === path.dirname(folder)) break;
    folder = path.dirname(folder);
  }
  if (!found || productionPaths.includes(found)) continue;
  productionPaths.push(found);
  const manifest = JSON.parse(readFileSync(path.join(found, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) pending.push([found, dependency]);
}
let dependencyBytes = 0;
for (const folder of new Set(productionPaths)) {
  const out = execFileSync('du', ['-sb', '--exclude=node_modules', folder], { encoding: 'utf8' });
  dependencyBytes += Number(out.split('\t')[0]);
}
const megabytes = (bytes) => (bytes / 1024 / 1024).toFixed(2);
console.log(
  `4. installed CLI: package ${megabytes(packed.unpackedSize)} MB unpacked (${megabytes(packed.size)} MB tarball, ${packed.entryCount} files) + ${new Set(productionPaths).size} production dependencies ${megabytes(dependencyBytes)} MB = ${megabytes(packed.unpackedSize + dependencyBytes)} MB; ratio to the package alone ${((packed.unpackedSize + dependencyBytes) / packed.unpackedSize).toFixed(2)}`,
);
