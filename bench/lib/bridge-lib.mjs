// Shared by the bridge benchmarks: a raw JSON-RPC line client over a child's stdio, a tree
// generator (ours, with N precomputed call files, written to a temp dir).
import { spawn } from 'node:child_process';
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
 * files (n = 0 … count-1), each answering "value <n>"; returns its folder.
 */
export function writeLookupTree(count) {
  const root = tempDir('staticmcp-bench-tree-');
  const folder = path.join(root, 'tools', 'lookup');
  mkdirSync(folder, { recursive: true });
  for (let n = 0; n < count; n += 1) {
    writeFileSync(
      path.join(folder, `${n}.json`),
      `${JSON.stringify({ content: [{ type: 'text', text: `value ${n}` }], _meta: { 'staticmcp/arguments': { n } } }, null, 2)}\n`,
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

/** Node's own start: spawning `node -e 0` until it exits. */
export function timeNodeStart() {
  const startedAt = performance.now();
  return new Promise((resolve) =>
    spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('exit', () => resolve(performance.now() - startedAt)),
  );
}

/** Spawn `node <args>` (a staticmcp serve) → its initialize answer over stdio, in ms. */
export async function timeInitialize(args) {
  const startedAt = performance.now();
  const client = new LineClient(process.execPath, args);
  const response = await client.initialize();
  const elapsed = performance.now() - startedAt;
  if (!response.result?.protocolVersion) throw new Error(`no initialize result: ${JSON.stringify(response)}`);
  await client.close();
  return elapsed;
}
