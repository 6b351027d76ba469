// The tree switch in-process, against real folders swapped the way the tree writer swaps them
// (the new tree written beside, then two renames): a request that raced the swap is answered from
// the new tree, once; `mcp.json` is looked at no more often than the interval; a rewrite with the
// same content switches nothing; a new `mcp.json` that cannot be loaded keeps the tree served; a
// live run that failed is never run again.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import { answerOnCurrentTree } from '../../src/core/mcp/tree-switch-port.js';
import type { ServerContext } from '../../src/core/mcp/server-context.js';
import { resourceFilePath } from '../../src/core/tree/resource-key.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { attachTreeSwitch, readTreeIdentity } from '../../src/hosts/node/tree-switch.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const URI = 'file:///notes.md';

/** A foreign-style tree: one resource saying `text`, and `extra` listed too when given. */
async function writeTreeAt(root: string, text: string, extra?: string): Promise<void> {
  const resources = [URI, ...(extra ? [extra] : [])];
  await fs.mkdir(root, { recursive: true });
  await fs.writeFile(
    path.join(root, 'mcp.json'),
    JSON.stringify({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'switch-test', version: '1.0.0' },
      capabilities: { tools: [], resources: resources.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })) },
    }),
  );
  for (const uri of resources) {
    const file = path.join(root, resourceFilePath(uri));
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify({ uri, mimeType: 'text/plain', text }));
  }
}

interface Served {
  root: string;
  server: ServerContext;
  session: McpSession;
  sent: { method?: string }[];
  problems: string[];
  ask(method: string, params?: Record<string, unknown>): Promise<{ result?: unknown; error?: { message: string } }>;
  /** Writes a new tree beside the served one; `swap` then renames it in, as the tree writer does. */
  prepare(text: string, extra?: string): Promise<{ swapOut(): Promise<void>; swapIn(): Promise<void> }>;
}

async function serveTree(checkIntervalMs: number, live?: ServerContext['live'], nowMs?: () => number): Promise<Served> {
  const root = path.join(await temporaryFolder('staticmcp-switch-'), 'tree');
  await writeTreeAt(root, 'first text');
  const problems: string[] = [];
  const sent: { method?: string }[] = [];
  const source = new FolderSource(root, 'tree');
  const loadedIdentity = readTreeIdentity(root);
  const server = await createNodeServerContext({ source, logProblem: (text) => problems.push(text) });
  if (live) server.live = live;
  const session = new McpSession(server, (message) => sent.push(message as { method?: string }));
  attachTreeSwitch(server, {
    treeRoot: root,
    source,
    loadedIdentity,
    checkIntervalMs,
    ...(nowMs ? { nowMs } : {}),
    notify: (changes) => session.treeReloaded(changes),
    logProblem: (text) => problems.push(text),
  });
  let id = 0;
  const ask: Served['ask'] = async (method, params) =>
    (await session.handleParsed({ jsonrpc: '2.0', id: ++id, method, params }, () => {})) as {
      result?: unknown;
      error?: { message: string };
    };
  await ask('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  await session.handleParsed({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => {});
  const prepare: Served['prepare'] = async (text, extra) => {
    const next = `${root}.tmp`;
    await writeTreeAt(next, text, extra);
    return {
      swapOut: () => fs.rename(root, `${root}.old`),
      swapIn: async () => {
        await fs.rename(next, root);
        await fs.rm(`${root}.old`, { recursive: true, force: true });
      },
    };
  };
  return { root, server, session, sent, problems, ask, prepare };
}

const textOf = (answer: { result?: unknown }): string => JSON.stringify(answer.result ?? answer);

describe('switching a rebuilt tree in', () => {
  it('answers a read that raced the swap (the folder gone between the two renames) from the new tree', async () => {
    const served = await serveTree(60_000);
    expect(textOf(await served.ask('resources/read', { uri: URI }))).toMatch(/first text/);
    const next = await served.prepare('second text', 'file:///more.md');
    await next.swapOut();
    // The new tree lands while the read that failed waits for it.
    setTimeout(() => void next.swapIn(), 40);
    const read = await served.ask('resources/read', { uri: URI });
    expect(textOf(read)).toMatch(/second text/);
    expect(served.server.tree.resources).toHaveLength(2);
    expect(served.sent.map((message) => message.method)).toEqual(['notifications/resources/list_changed']);
  });

  it('looks at mcp.json at most once per interval, then switches on the next request', async () => {
    // A clock the test steps (the file system stays real) makes "within the interval" mean the
    // interval, however slow the machine is.
    let clockMs = 1_000_000;
    const served = await serveTree(300, undefined, () => clockMs);
    await served.ask('resources/list');
    const next = await served.prepare('second text', 'file:///more.md');
    await next.swapOut();
    await next.swapIn();
    // Within the interval: the loaded tree answers (its reads see the new files, its list is the old one).
    clockMs += 299;
    expect((await served.ask('resources/list')).result).toMatchObject({ resources: [{ uri: URI }] });
    expect(served.sent).toEqual([]);
    clockMs += 1;
    expect((await served.ask('resources/list')).result).toMatchObject({
      resources: [{ uri: URI }, { uri: 'file:///more.md' }],
    });
    expect(served.problems.join('\n')).toMatch(/switched to the rebuilt tree; resources list\(s\) changed/);
  });

  it('switches nothing when mcp.json was rewritten with the same content', async () => {
    const served = await serveTree(0);
    const before = served.server.tree;
    const next = await served.prepare('first text');
    await next.swapOut();
    await next.swapIn();
    await served.ask('resources/list');
    expect(served.server.tree).toBe(before);
    expect(served.sent).toEqual([]);
  });

  it('keeps serving the previous tree when the new mcp.json cannot be loaded, and says so once', async () => {
    const served = await serveTree(0);
    await fs.writeFile(path.join(served.root, 'mcp.json'), '{"broken":');
    expect(textOf(await served.ask('resources/read', { uri: URI }))).toMatch(/first text/);
    await served.ask('resources/list');
    expect(served.problems.filter((line) => /cannot be loaded/.test(line))).toHaveLength(1);
    expect(served.server.tree.resources).toHaveLength(1);
  });

  it('never runs a failed live call again, even when the tree switched while it ran; a search failure is retried', async () => {
    const served = await serveTree(60_000);
    const server: ServerContext = {
      ...served.server,
      live: { run: async () => ({ problem: 'unused' }) },
      treeSwitch: { checkIfDue: () => undefined, switchedSince: async () => true },
    };
    const failing = (counter: { runs: number }) => async () => {
      counter.runs += 1;
      return { content: [{ type: 'text', text: 'it failed' }], isError: true };
    };
    const liveCall = { runs: 0 };
    await answerOnCurrentTree(
      server,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
      failing(liveCall),
    );
    expect(liveCall.runs).toBe(1);
    server.tree = {
      ...server.tree,
      toolsByName: new Map([
        ['search', { definition: { name: 'search', inputSchema: {} }, declaredParameters: [], searchTool: 'search' }],
      ]),
    };
    const searchCall = { runs: 0 };
    await answerOnCurrentTree(
      server,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search' } },
      failing(searchCall),
    );
    expect(searchCall.runs).toBe(2);
  });
});
