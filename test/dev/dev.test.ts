// `staticmcp dev` as a user runs it: a real process on a temp project, driven over stdio (the
// official SDK client, and raw lines), while the test edits the project like an editor would.
// Each test checks what the client notices: list_changed notifications (once, for the right
// kind), new definitions, resources/updated for subscriptions, warnings for broken edits. The tests
// that need a project of their own (the SDK client, a slow build, a packed tree) each start their
// dev process and run concurrently (each with its own `expect`); the others share one dev process
// per project, one test after another, each counting what came after it started.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../helpers/paths.js';
import { type ProjectFile, writeProject } from '../helpers/projects.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const TOOL = (description: string, option = 'word'): string => `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "${description}"}'
  echo '{"${option}": {"description": "A word", "value_type": {"enum": ["a", "b"]}, "required": true}}' >&2
  exit 0
fi
echo "you said $${option}"
`;

/**
 * Two tools and two resources. Without a search index unless `indexed` (the tests that list the
 * tools show dev serving search and fetch): the index is the build's (test/build), and the rest of
 * these tests are about what dev notices and sends, which indexing only makes slower.
 */
function baseProject(extra: Record<string, ProjectFile> = {}, indexed = false): Promise<string> {
  return writeProject({
    'tools/echo': { script: TOOL('Echo a word') },
    'tools/other': { script: TOOL('Another tool') },
    'resources/notes.md': '# Notes\n\nFirst version.\n',
    'resources/data.json': '{"version": 1}\n',
    ...(indexed ? {} : { 'staticmcp.json': JSON.stringify({ search: false }) }),
    ...extra,
  });
}

/** Starts `staticmcp dev` on the project; it is closed when the test ends. */
function startDev(test: TestContext, project: string, extraArgs: string[] = []): RawBridge {
  const dev = new RawBridge([project, ...extraArgs], { command: 'dev' });
  test.onTestFinished(async () => {
    await dev.close();
  });
  return dev;
}

/** The notifications of `method` the client got, from its `since`th frame on. */
function notifications(dev: RawBridge, method: string, since = 0): JsonRpcMessage[] {
  return (dev.frames as JsonRpcMessage[]).slice(since).filter((frame) => frame.method === method);
}

function countIn(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** Waits until stderr has said `text` `count` times. */
async function stderrSays(dev: RawBridge, text: string, count = 1, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (dev.stderr.split(text).length - 1 < count) {
    if (Date.now() > deadline) throw new Error(`stderr never said "${text}" ${count} time(s): ${dev.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Edits happen after the tree is served and the watcher is up. */
async function initialized(dev: RawBridge): Promise<JsonRpcMessage> {
  const init = await dev.initialize();
  await stderrSays(dev, 'watching for changes');
  return init;
}

/**
 * Replaces a project file in one step, as editors that save atomically do: written beside the
 * project (the same file system, outside the watched folders), then renamed over it.
 */
async function replaceFile(project: string, relativePath: string, text: string): Promise<void> {
  const draft = path.join(path.dirname(project), `draft-${path.basename(relativePath)}`);
  await fs.writeFile(draft, text);
  await fs.rename(draft, path.join(project, relativePath));
}

const quietMs = 600;
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, quietMs));

/**
 * A tool of four calls (past a budget of 2, so packed) that says `version` and notes each run it
 * makes in `runsLog` (outside the project, so the note is no edit): a call answered from the tree
 * runs nothing.
 */
const COUNTED_TOOL = (version: string, runsLog: string): string => `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Say a word"}'
  echo '{"word": {"description": "A word", "value_type": {"enum": ["a", "b", "c", "d"]}, "required": true}}' >&2
  exit 0
fi
echo run >> '${runsLog}'
echo "${version} $word"
`;

describe.concurrent('staticmcp dev', () => {
  it('sends exactly one tools/list_changed for a new sidecar description, and tools/list shows it (SDK client)', async (test) => {
    const { expect } = test;
    const project = await baseProject();
    const client = new Client({ name: 'dev-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'dev', project],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const seen: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push('tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void seen.push('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void seen.push('prompts'));
    await client.connect(transport);
    test.onTestFinished(async () => {
      await client.close();
    });
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
    while (!stderr.includes('watching for changes')) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await client.listTools()).tools.find((tool) => tool.name === 'echo')?.description).toBe('Echo a word');

    await fs.writeFile(
      path.join(project, 'tools/echo.meta.json'),
      JSON.stringify({ description: 'Echo a word, loudly' }),
    );
    const deadline = Date.now() + 20_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await settle();
    expect(seen).toEqual(['tools']);
    expect((await client.listTools()).tools.find((tool) => tool.name === 'echo')?.description).toBe(
      'Echo a word, loudly',
    );
  });

  it('rebuilds once more when a file changes while a rebuild runs', async (test) => {
    const { expect } = test;
    const project = await baseProject({
      // A value list command that takes a second: every build is slow enough to edit during it.
      'staticmcp.json': JSON.stringify({
        search: false,
        tools: { other: { values: { word: { command: 'sleep 1; echo a' } } } },
      }),
    });
    const dev = startDev(test, project);
    await initialized(dev);
    await fs.writeFile(path.join(project, 'resources/data.json'), '{"version": 2}\n');
    await stderrSays(dev, 'changed; rebuilding');
    // Whole or not at all (a rename): a rebuild that read the sidecar half-written would skip the
    // tool and announce a list of its own. With two states only, whichever rebuild sees the edit,
    // the tools list changes exactly once.
    await replaceFile(project, 'tools/echo.meta.json', JSON.stringify({ description: 'Edited during a rebuild' }));
    await stderrSays(dev, 'changed; rebuilding', 2);
    await stderrSays(dev, 'rebuilt:', 2);
    // The tree is swapped after "rebuilt:" is logged: wait until a client sees both edits.
    await vi.waitFor(
      async () => {
        const tools = (await dev.request('tools/list')).result?.tools as { name: string; description: string }[];
        expect(tools.find((tool) => tool.name === 'echo')?.description).toBe('Edited during a rebuild');
        const read = await dev.request('resources/read', { uri: 'resource://data.json' });
        expect((read.result!.contents as { text: string }[])[0]?.text).toContain('"version": 2');
      },
      { timeout: 20_000, interval: 100 },
    );
    // Then quiet: no third rebuild and no second notification come later.
    await settle();
    await settle();
    expect(dev.stderr.split('changed; rebuilding').length - 1).toBe(2);
    expect(notifications(dev, 'notifications/tools/list_changed')).toHaveLength(1);
  });

  it("serves a packed tree (--max-call-files 2) from its packs, and a rebuilt one from its new packs, rebuilding only the edited tool's packs (the other keeps its inodes)", async (test) => {
    const { expect } = test;
    const runsLog = path.join(await temporaryFolder(), 'runs.log');
    const project = await writeProject({
      'tools/say': { script: COUNTED_TOOL('v1', runsLog) },
      'tools/tell': { script: COUNTED_TOOL('t1', runsLog) },
    });
    const dev = startDev(test, project, ['--max-call-files', '2']);
    await initialized(dev);
    const inodes = async (tool: string): Promise<Map<string, number>> => {
      const folder = path.join(project, 'dist/packs', tool);
      const files = new Map<string, number>();
      for (const name of await fs.readdir(folder)) files.set(name, (await fs.stat(path.join(folder, name))).ino);
      return files;
    };
    const [sayBefore, tellBefore] = [await inodes('say'), await inodes('tell')];
    expect([...sayBefore.keys()].some((file) => file.endsWith('.pack'))).toBe(true);
    await expect(fs.stat(path.join(project, 'dist/tools/say/b.json'))).rejects.toThrow();
    const runs = async (): Promise<number> => (await fs.readFile(runsLog, 'utf8')).split('\n').length - 1;
    const builtRuns = await runs();
    expect((await dev.request('tools/call', { name: 'say', arguments: { word: 'b' } })).result).toEqual({
      content: [{ type: 'text', text: 'v1 b\n' }],
    });
    expect(await runs()).toBe(builtRuns);

    // The edit gives new packs under new names: the answers come from them, not the old indexes;
    // the tool that was not edited keeps its pack files.
    await replaceFile(project, 'tools/say', COUNTED_TOOL('v2', runsLog));
    await fs.chmod(path.join(project, 'tools/say'), 0o755);
    await stderrSays(dev, 'reloaded the tree');
    expect(await inodes('tell')).toEqual(tellBefore);
    expect([...(await inodes('say')).keys()].sort()).not.toEqual([...sayBefore.keys()].sort());
    const rebuiltRuns = await runs();
    for (const word of ['b', 'c', 'd']) {
      expect((await dev.request('tools/call', { name: 'say', arguments: { word } })).result).toEqual({
        content: [{ type: 'text', text: `v2 ${word}\n` }],
      });
    }
    expect((await dev.request('tools/call', { name: 'tell', arguments: { word: 'c' } })).result).toEqual({
      content: [{ type: 'text', text: 't1 c\n' }],
    });
    expect(await runs()).toBe(rebuiltRuns);
    expect(dev.stderr).not.toMatch(/not answered from the tree|not precomputed/);
  });
});

// The project without an index, one dev process for these tests, one after another: the first
// edits before the client initializes, the last closes stdin. Each test counts what came after it
// started (`since`).
describe.sequential('one staticmcp dev of a project, edited test after test', () => {
  let project: string;
  let dev: RawBridge;

  beforeAll(async () => {
    project = await baseProject();
    dev = new RawBridge([project], { command: 'dev' });
  });

  afterAll(async () => {
    await dev?.close();
  });

  it('sends nothing before the client has initialized, and serves what changed meanwhile', async () => {
    await stderrSays(dev, 'watching for changes');
    await fs.writeFile(
      path.join(project, 'tools/echo.meta.json'),
      JSON.stringify({ description: 'Changed before initialize' }),
    );
    await stderrSays(dev, 'reloaded the tree');
    await settle();
    expect(dev.frames).toEqual([]);
    await dev.initialize();
    const tools = (await dev.request('tools/list')).result?.tools as { name: string; description: string }[];
    expect(tools.find((tool) => tool.name === 'echo')?.description).toBe('Changed before initialize');
    expect(notifications(dev, 'notifications/tools/list_changed')).toHaveLength(0);
  });

  it('sends resources/updated for a subscribed resource that changed, and stops after unsubscribe', async () => {
    const reloads = countIn(dev.stderr, 'reloaded the tree');
    const uri = 'resource://data.json';
    expect((await dev.request('resources/subscribe', { uri })).result).toEqual({});
    await fs.writeFile(path.join(project, 'resources/data.json'), '{"version": 2}\n');
    const updated = await dev.waitFor((frames) =>
      (frames as JsonRpcMessage[]).find((frame) => frame.method === 'notifications/resources/updated'),
    );
    expect(updated.params).toEqual({ uri });
    const read = await dev.request('resources/read', { uri });
    expect((read.result!.contents as { text: string }[])[0]?.text).toContain('"version": 2');

    // Another resource changing is no update for this subscription.
    await fs.writeFile(path.join(project, 'resources/notes.md'), '# Notes\n\nFirst version.\n\nMore.\n');
    await stderrSays(dev, 'reloaded the tree', reloads + 2);
    expect(notifications(dev, 'notifications/resources/updated')).toHaveLength(1);

    expect((await dev.request('resources/unsubscribe', { uri })).result).toEqual({});
    await fs.writeFile(path.join(project, 'resources/data.json'), '{"version": 3}\n');
    await stderrSays(dev, 'reloaded the tree', reloads + 3);
    await settle();
    expect(notifications(dev, 'notifications/resources/updated')).toHaveLength(1);
  });

  it('sends prompts/list_changed (and nothing else) when a prompt is added', async () => {
    const since = dev.frames.length;
    expect((await dev.request('prompts/list')).result?.prompts).toEqual([]);
    await fs.mkdir(path.join(project, 'prompts'));
    await fs.writeFile(
      path.join(project, 'prompts/summarize.md.meta.json'),
      JSON.stringify({
        description: 'Summarize a topic',
        arguments: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
      }),
    );
    await fs.writeFile(path.join(project, 'prompts/summarize.md'), 'Summarize {{topic}} in three lines.');
    await dev.waitFor((frames) =>
      (frames as JsonRpcMessage[]).find((frame) => frame.method === 'notifications/prompts/list_changed'),
    );
    await settle();
    expect(notifications(dev, 'notifications/prompts/list_changed', since)).toHaveLength(1);
    expect(notifications(dev, 'notifications/tools/list_changed', since)).toHaveLength(0);
    expect(notifications(dev, 'notifications/resources/list_changed', since)).toHaveLength(0);
    const prompt = await dev.request('prompts/get', { name: 'summarize', arguments: { topic: 'tides' } });
    expect(prompt.result?.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarize tides in three lines.' } },
    ]);
  });

  it('ignores changes to the output tree and dot-files, and exits 0 when stdin closes', async () => {
    // What it writes itself and dot-files start no rebuild.
    const rebuilds = countIn(dev.stderr, 'rebuilding');
    await fs.writeFile(path.join(project, 'dist/extra.json'), '{}');
    await fs.writeFile(path.join(project, '.scratch'), 'x');
    await settle();
    expect(countIn(dev.stderr, 'rebuilding')).toBe(rebuilds);
    expect(await dev.close()).toBe(0);
  });
});

// The indexed project (search and fetch listed), one dev process for both tests, one after the other.
describe.sequential('one staticmcp dev of an indexed project, edited test after test', () => {
  let project: string;
  let dev: RawBridge;

  beforeAll(async () => {
    project = await baseProject({}, true);
    dev = new RawBridge([project], { command: 'dev' });
    await initialized(dev);
  });

  afterAll(async () => {
    await dev?.close();
  });

  it('keeps serving the previous tree after a broken edit, warns the client, and recovers', async () => {
    await fs.mkdir(path.join(project, 'server.d'));
    await fs.writeFile(path.join(project, 'server.d/register.json'), '{"version": 1, "tools": [}');
    const warning = await dev.waitFor((frames) =>
      (frames as JsonRpcMessage[]).find((frame) => frame.method === 'notifications/message'),
    );
    expect(warning.params).toMatchObject({ level: 'warning', logger: 'staticmcp' });
    expect(String(warning.params?.data)).toContain('register.json');
    expect(String(warning.params?.data)).toContain('previous tree');
    expect(dev.stderr).toContain('rebuild failed');
    const tools = (await dev.request('tools/list')).result?.tools as { name: string }[];
    // search and fetch: the project's text resources are indexed (on by default).
    expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'fetch', 'other', 'search']);
    expect((await dev.request('tools/call', { name: 'echo', arguments: { word: 'b' } })).result).toEqual({
      content: [{ type: 'text', text: 'you said b\n' }],
    });

    // Fixed: the rebuilt tree equals the one being served, so no list changed.
    await fs.rm(path.join(project, 'server.d/register.json'));
    await stderrSays(dev, 'rebuilt:');
    await settle();
    expect(notifications(dev, 'notifications/tools/list_changed')).toHaveLength(0);
    expect(dev.frames.some((frame) => JSON.stringify(frame).includes('list_changed'))).toBe(false);
  });

  it('keeps serving the previous tools when tools/ is deleted, and says why', async () => {
    const since = dev.frames.length;
    await fs.rm(path.join(project, 'tools'), { recursive: true });
    await stderrSays(dev, 'is gone, so a rebuild would serve no tools');
    const warning = await dev.waitFor((frames) =>
      (frames as JsonRpcMessage[]).slice(since).find((frame) => frame.method === 'notifications/message'),
    );
    expect(String(warning.params?.data)).toMatch(/^tools\/ is gone.*still serving the previous tree \(2 tools\)/);
    const tools = (await dev.request('tools/list')).result?.tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'other', 'search', 'fetch']);
    expect(notifications(dev, 'notifications/tools/list_changed')).toHaveLength(0);
  });
});
