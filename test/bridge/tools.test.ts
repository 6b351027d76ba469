// tools/list and tools/call end to end, with the official SDK client and raw lines: precomputed
// hits that never spawn, live misses, failures, cancellation, logs, progress, big answers. A tree
// served without its project, with --live, and the pagination walk are asked of serve's own session
// in-process (connectInProcess: the same sources and tree switch, the SDK client on the frames);
// the rest through the real process.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectInProcess } from '../helpers/in-process-bridge.js';
import { START_TICK_VARIABLE } from '../../src/core/mcp/progress-reporter.js';
import { CLI } from '../helpers/paths.js';
import { writeTree } from '../helpers/projects.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';
import { buildFixtureInProcess } from '../helpers/in-process-build.js';

let project: string;
let client: Client;
const logs: { level: string; data: unknown }[] = [];

/**
 * The bridge's start tick comes after ten minutes here (a test hook), not one second: a quick
 * script slowed by a busy machine still gets none (script-conventions.test.ts covers the tick).
 */
const NO_START_TICK = { ...getDefaultEnvironment(), [START_TICK_VARIABLE]: String(600_000) };

async function connect(args: string[]): Promise<Client> {
  const connected = new Client({ name: 'bridge-test', version: '1.0.0' });
  await connected.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', ...args],
      env: NO_START_TICK,
      stderr: 'pipe',
    }),
  );
  return connected;
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((item) => item.text).join('');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  project = await buildFixtureInProcess('bridge-project');
  writeFileSync(path.join(project, 'marker.log'), '');
  client = await connect([project]);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push({ level: notification.params.level, data: notification.params.data });
  });
});

afterAll(async () => {
  await client?.close();
});

describe('with the project (serve my-server)', () => {
  it('lists the tools verbatim', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['big', 'env', 'fail', 'marked', 'slow']);
    expect(tools.find((tool) => tool.name === 'marked')?.inputSchema).toMatchObject({
      properties: { word: { type: 'string' } },
      required: ['word'],
    });
  });

  it('answers a precomputed call from the tree without running the script', async () => {
    const result = await client.callTool({ name: 'marked', arguments: { word: 'beta' } });
    expect(textOf(result)).toBe('word=beta\n');
    expect(result._meta).toBeUndefined();
    expect(readFileSync(path.join(project, 'marker.log'), 'utf8')).toBe('');
  });

  it('runs a miss live', async () => {
    await client.setLoggingLevel('debug');
    // A script that reports nothing and ends before the start tick gets no made-up progress: no
    // tick at its end (script-conventions.test.ts covers the start tick and PROGRESS lines).
    const progress: number[] = [];
    const result = await client.callTool({ name: 'marked', arguments: { word: 'gamma' } }, undefined, {
      onprogress: (event) => progress.push(event.progress),
    });
    expect(textOf(result)).toBe('word=gamma\n');
    expect(readFileSync(path.join(project, 'marker.log'), 'utf8')).toBe('gamma\n');
    expect(progress).toEqual([]);
  });

  it('returns a failing script as isError with what it said, and forwards its log lines', async () => {
    const result = await client.callTool({ name: 'fail', arguments: { reason: 'no disk' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('could not do it: no disk');
    expect(logs).toContainEqual({ level: 'error', data: 'giving up' });
  });

  it('reports invalid arguments as isError naming the parameter', async () => {
    const result = await client.callTool({ name: 'marked', arguments: { word: 3 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/word/);
    const missing = await client.callTool({ name: 'marked', arguments: {} });
    expect(textOf(missing)).toMatch(/missing required argument "word"/);
  });

  it('passes only declared arguments to a live script', async () => {
    const result = await client.callTool({
      name: 'env',
      arguments: { name: 'x', secret: 'leak', LD_PRELOAD: '/tmp/evil.so' },
    });
    const text = textOf(result);
    expect(text).toContain('stdin={"name":"x"}');
    expect(text.split('\n')).toContain('name');
    expect(text).not.toMatch(/secret|LD_PRELOAD|evil/);
  });

  it('serves a 1 MB answer', async () => {
    const result = await client.callTool({ name: 'big' });
    const text = textOf(result);
    expect(text.length).toBe(8192 * 128);
    expect(text.startsWith('0000')).toBe(true);
  });
});

describe('cancellation', () => {
  it('kills the live script and sends no response', async () => {
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const pidFile = path.join(project, 'slow-cancel.pid');
    bridge.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'slow', arguments: { label: 'cancel' } },
    });
    await bridge.waitFor(() => (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() ? true : undefined));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);
    bridge.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'user' } });
    await bridge.waitFor(() => (isAlive(pid) ? undefined : true), 10_000);
    expect((await bridge.request('ping')).result).toEqual({});
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bridge.frames.some((frame) => (frame as JsonRpcMessage).id === 'slow')).toBe(false);
    await bridge.close();
  });

  it('kills live scripts when stdin closes and exits 0', async () => {
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const pidFile = path.join(project, 'slow-eof.pid');
    bridge.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'slow', arguments: { label: 'eof' } },
    });
    await bridge.waitFor(() => (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() ? true : undefined));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await bridge.close()).toBe(0);
    await bridge.waitFor(() => (isAlive(pid) ? undefined : true), 5_000);
  });
});

describe('without a project (serve a tree folder)', () => {
  it('answers hits and says a miss was not precomputed', async () => {
    const treeOnly = await connectInProcess(path.join(project, 'dist'));
    expect(textOf(await treeOnly.callTool({ name: 'marked', arguments: { word: 'alpha' } }))).toBe('word=alpha\n');
    const miss = await treeOnly.callTool({ name: 'marked', arguments: { word: 'delta' } });
    expect(miss.isError).toBe(true);
    expect(textOf(miss)).toMatch(/not precomputed.*--live/);
    expect(textOf(miss)).not.toContain(project);
    await treeOnly.close();
  });

  it('runs misses live with --live', async () => {
    const live = await connectInProcess(path.join(project, 'dist'), { live: project });
    expect(textOf(await live.callTool({ name: 'marked', arguments: { word: 'epsilon' } }))).toBe('word=epsilon\n');
    await live.close();
  });
});

describe('pagination', () => {
  it('walks every page with opaque cursors and refuses bad or stale ones', async () => {
    const tools = Array.from({ length: 250 }, (_, index) => ({
      name: `tool_${String(index).padStart(3, '0')}`,
      description: 'd',
      inputSchema: { type: 'object' },
    }));
    const treeA = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'a', version: '1' },
        capabilities: { tools, resources: [] },
      },
    });
    const treeB = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'b', version: '1' },
        capabilities: { tools: tools.slice(1), resources: [] },
      },
    });
    const walker = await connectInProcess(treeA);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let firstCursor: string | undefined;
    do {
      const page = await walker.listTools(cursor ? { cursor } : {});
      pages += 1;
      expect(page._meta?.['staticmcp/total']).toBe(250);
      seen.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
      firstCursor ??= cursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(tools.map((tool) => tool.name));
    await expect(walker.listTools({ cursor: 'garbage!' })).rejects.toMatchObject({ code: -32602 });
    await walker.close();

    const other = await connectInProcess(treeB);
    await expect(other.listTools({ cursor: firstCursor })).rejects.toMatchObject({ code: -32602 });
    await other.close();
  });
});

describe('input validation', () => {
  it("checks a new server's first calls with the same messages, then answers", async () => {
    const tree = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-11-25',
        serverInfo: { name: 'lookup', version: '1' },
        capabilities: {
          tools: [
            {
              name: 'lookup',
              description: 'Look a number up',
              inputSchema: {
                type: 'object',
                properties: { n: { type: 'integer', minimum: 0 } },
                required: ['n'],
                additionalProperties: false,
              },
            },
          ],
          resources: [],
        },
        staticmcp: {
          profileVersion: 1,
          generator: 'test',
          tools: { lookup: { parameterOrder: ['n'], enumerated: ['n'], live: false, precomputed: 1 } },
        },
      },
      'tools/lookup/3.json': { content: [{ type: 'text', text: 'value 3' }] },
    });
    const fresh = await connect([tree]);
    // Asked at once, before the server's preload: the validator is made for this call.
    const bad = await fresh.callTool({ name: 'lookup', arguments: { n: -1.5, extra: true } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe(
      'Invalid arguments for tool lookup: arguments: unknown argument "extra"; arguments.n must be integer; arguments.n must be >= 0',
    );
    expect(textOf(await fresh.callTool({ name: 'lookup', arguments: {} }))).toBe(
      'Invalid arguments for tool lookup: missing required argument "n"',
    );
    expect(textOf(await fresh.callTool({ name: 'lookup', arguments: { n: 3 } }))).toBe('value 3');
    await fresh.close();
  });
});
