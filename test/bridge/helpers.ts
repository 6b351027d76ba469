// Shared by the bridge tests: a compiled CLI (built once across test files), temp copies of
// fixture projects built into trees, hand-written trees, and a raw JSON-RPC line client that
// speaks to a real `staticmcp serve` process over stdio.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, promises as fs, readdirSync, rmdirSync, statSync, existsSync, cpSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_CLI = path.join(REPO_ROOT, 'dist/cli/main.js');
/** The compiled CLI: the one the shared global setup provides, else dist/ (see ensureBuilt). */
export let CLI = DIST_CLI;

function newestMtimeMs(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Compiles src/ to dist/ when dist is missing or older than a source file; one test file at a time. */
export function ensureBuilt(): void {
  const provided = (inject as (key: string) => unknown)('cli');
  if (typeof provided === 'string' && existsSync(provided)) {
    CLI = provided;
    return;
  }
  const lock = path.join(
    os.tmpdir(),
    `staticmcp-bridge-build-${Buffer.from(REPO_ROOT).toString('base64url').slice(-24)}.lock`,
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`could not take the build lock ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    const stale = !existsSync(DIST_CLI) || statSync(DIST_CLI).mtimeMs < newestMtimeMs(path.join(REPO_ROOT, 'src'));
    if (stale) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'ignore' });
  } finally {
    rmdirSync(lock);
  }
}

export function makeTempDir(prefix = 'staticmcp-bridge-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Copies a fixture project to a temp folder and builds its tree there (dist/). */
export function buildFixtureProject(fixture: string): string {
  const project = path.join(makeTempDir(), path.basename(fixture));
  cpSync(path.join(REPO_ROOT, fixture.startsWith('fixtures/') ? '' : 'test/fixtures', fixture), project, {
    recursive: true,
  });
  execFileSync(process.execPath, [CLI, 'build', project], { stdio: 'ignore' });
  return project;
}

/** Writes `files` (tree-relative path → JSON value or raw text) under a new temp folder. */
export async function writeTree(files: Record<string, unknown>): Promise<string> {
  const root = makeTempDir('staticmcp-tree-');
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A `staticmcp serve` (or `dev`) process driven by raw lines; collects every frame it prints. */
export class RawBridge {
  readonly child: ChildProcessWithoutNullStreams;
  readonly frames: unknown[] = [];
  stderr = '';
  private buffered = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;
  private nextId = 1;

  constructor(args: string[], options: { cwd?: string; command?: 'serve' | 'dev' } = {}) {
    this.child = spawn(process.execPath, [CLI, options.command ?? 'serve', ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text: string) => {
      this.buffered += text;
      const lines = this.buffered.split('\n');
      this.buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        // A frame that is not JSON would fail the test that reads it.
        this.frames.push(JSON.parse(line));
      }
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => {
      this.stderr += text;
    });
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  sendLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  send(message: unknown): void {
    this.sendLine(JSON.stringify(message));
  }

  /** Waits until `predicate` holds for the frames received so far. */
  async waitFor<T>(find: (frames: unknown[]) => T | undefined, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find(this.frames);
      if (found !== undefined) return found;
      if (Date.now() > deadline)
        throw new Error(
          `timed out; frames so far: ${JSON.stringify(this.frames).slice(0, 2000)}; stderr: ${this.stderr.slice(0, 2000)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  responseTo(id: string | number | null): Promise<JsonRpcMessage> {
    return this.waitFor(
      (frames) =>
        frames.find((frame) => (frame as JsonRpcMessage).id === id && (frame as JsonRpcMessage).method === undefined) as
          | JsonRpcMessage
          | undefined,
    );
  }

  async request(method: string, params?: Record<string, unknown>): Promise<JsonRpcMessage> {
    const id = `r${this.nextId++}`;
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.responseTo(id);
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<JsonRpcMessage> {
    const response = await this.request('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

/** A file of a test project: text, or an executable script. */
export type ProjectFile = string | { script: string };

/** Writes a project (project-relative path → content) under a new temp folder; returns its real path. */
export async function writeProject(files: Record<string, ProjectFile>): Promise<string> {
  const root = await fs.realpath(path.join(makeTempDir('staticmcp-project-')));
  const project = path.join(root, 'project');
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(project, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    if (typeof content === 'string') {
      await fs.writeFile(file, content);
    } else {
      await fs.writeFile(file, content.script, { mode: 0o755 });
    }
  }
  return project;
}

/** Builds a project with the compiled CLI; throws with its stderr when the build fails. */
export function buildProjectTree(project: string): void {
  execFileSync(process.execPath, [CLI, 'build', project], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** mulberry32: a small seeded generator, so a fuzz failure can be replayed from its seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every tool name of a server, page by page as a client walks them, and how many pages it took. */
export async function listEveryTool(client: {
  listTools(params: { cursor?: string }): Promise<{ tools: { name: string }[]; nextCursor?: string }>;
}): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages += 1;
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
  } while (cursor);
  return { names, pages };
}
