// Trees other generators wrote (every shape DESIGN.md lists), resources, and safety: nothing
// outside the tree is ever read, broken files are clean errors, paths of this machine never leak.
// Other generators' trees go through a real stdio process; our own trees' resources are asked of
// serve's own session in-process (test/helpers/in-process-bridge.ts: the same sources, the same
// live state script).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { buildFixtureProject, writeTree } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const schema = (...names: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
});

let treeRoot: string;
let bridge: RawBridge;

function resultText(message: { result?: Record<string, unknown> }): string {
  return ((message.result?.content ?? []) as { text: string }[]).map((item) => item.text).join('');
}

async function call(name: string, args: Record<string, unknown>) {
  return bridge.request('tools/call', { name, arguments: args });
}

beforeAll(async () => {
  const base64Key = Buffer.from('x=1&y=two&z=true').toString('base64').replace(/[/+=]/g, '_');
  treeRoot = await writeTree({
    'tree/mcp.json': {
      protocolVersion: '2025-03-26',
      serverInfo: { name: 'foreign', version: '0.1.0' },
      capabilities: {
        tools: [
          { name: 'zero', description: 'no arguments', inputSchema: { type: 'object', properties: {} } },
          { name: 'one', description: 'one', inputSchema: schema('q') },
          { name: 'two', description: 'value-sorted', inputSchema: schema('b', 'a') },
          { name: 'keysorted', description: 'key-sorted', inputSchema: schema('z', 'y') },
          {
            name: 'three',
            description: 'base64',
            inputSchema: {
              type: 'object',
              properties: { x: { type: 'integer' }, y: { type: 'string' }, z: { type: 'boolean' } },
            },
          },
        ],
        resources: [
          { uri: 'res://info', name: 'info', mimeType: 'text/plain' },
          { uri: 'res://contents', name: 'contents', mimeType: 'text/plain' },
          { uri: 'res://raw', name: 'raw' },
          { uri: 'res://Mixed Case/Path', name: 'encoded' },
          { uri: 'res://../outside', name: 'escape' },
          { uri: 'res://broken', name: 'broken' },
        ],
      },
    },
    'tree/tools/zero.json': text('zero answer'),
    'tree/tools/one/Hello World.json': text('raw segment'),
    'tree/tools/one/hello_world.json': text('encoded segment'),
    'tree/tools/one/broken.json': '{"content": [',
    'tree/tools/two/alpha/zeta.json': { answer: 42 },
    'tree/tools/keysorted/why/zed_one.json': {
      contents: [{ uri: 'x://y', mimeType: 'text/plain', text: 'key-sorted contents' }],
    },
    [`tree/tools/three/${base64Key}.json`]: text('base64 key'),
    'tree/resources/info.json': { uri: 'res://info', mimeType: 'text/plain', text: 'info text' },
    'tree/resources/contents.json': {
      contents: [{ uri: 'res://contents', mimeType: 'text/markdown', text: '# contents' }],
    },
    'tree/resources/raw.json': { planets: 8 },
    'tree/resources/mixed_case/path.json': {
      uri: 'res://Mixed Case/Path',
      mimeType: 'text/plain',
      text: 'encoded path',
    },
    'tree/resources/broken.json': 'not json at all',
    'outside.json': text('SECRET'),
    'tree/tools/one/outside.json': text('placeholder'),
  });
  await fs.mkdir(path.join(treeRoot, 'tree/tools/zero'), { recursive: true });
  // A symlink inside the tree that points outside it.
  await fs.rm(path.join(treeRoot, 'tree/tools/one/outside.json'));
  await fs.symlink(path.join(treeRoot, 'outside.json'), path.join(treeRoot, 'tree/tools/one/outside.json'));
  bridge = new RawBridge([path.join(treeRoot, 'tree')]);
  await bridge.initialize('2025-03-26');
});

afterAll(async () => {
  await bridge?.close();
});

describe("lenient reading of other generators' trees", () => {
  it('serves tools/<name>.json for a zero-argument call even next to an empty folder', async () => {
    expect(resultText(await call('zero', {}))).toBe('zero answer');
  });

  it('tries the raw value before the encoded one', async () => {
    expect(resultText(await call('one', { q: 'Hello World' }))).toBe('raw segment');
    expect(resultText(await call('one', { q: 'HELLO WORLD' }))).toBe('encoded segment');
  });

  it('finds value-sorted keys and wraps raw JSON as text', async () => {
    const response = await call('two', { b: 'zeta', a: 'alpha' });
    expect(JSON.parse(resultText(response))).toEqual({ answer: 42 });
  });

  it('finds key-sorted encoded keys and reads `contents`', async () => {
    expect(resultText(await call('keysorted', { z: 'Zed One', y: 'Why' }))).toBe('key-sorted contents');
  });

  it('finds the base64 key of three or more arguments', async () => {
    expect(resultText(await call('three', { z: true, y: 'two', x: 1 }))).toBe('base64 key');
  });

  it('reads resources in {uri,mimeType,text}, {contents}, raw JSON, and at encoded paths', async () => {
    expect((await bridge.request('resources/read', { uri: 'res://info' })).result?.contents).toEqual([
      { uri: 'res://info', mimeType: 'text/plain', text: 'info text' },
    ]);
    expect((await bridge.request('resources/read', { uri: 'res://contents' })).result?.contents).toEqual([
      { uri: 'res://contents', mimeType: 'text/markdown', text: '# contents' },
    ]);
    const raw = (await bridge.request('resources/read', { uri: 'res://raw' })).result?.contents as [
      { text: string; mimeType: string },
    ];
    expect(JSON.parse(raw[0].text)).toEqual({ planets: 8 });
    expect(raw[0].mimeType).toBe('application/json');
    expect(
      (
        (await bridge.request('resources/read', { uri: 'res://Mixed Case/Path' })).result!.contents as [
          { text: string },
        ]
      )[0].text,
    ).toBe('encoded path');
  });

  it('matches resource URIs by the exact string', async () => {
    expect((await bridge.request('resources/read', { uri: 'res://INFO' })).error?.code).toBe(-32002);
    expect((await bridge.request('resources/read', { uri: 'res://info/' })).error?.code).toBe(-32002);
  });
});

describe('safety', () => {
  it('never reads outside the tree', async () => {
    for (const q of ['..', '../outside', '..%2foutside', '/etc/passwd', 'outside', '%2e%2e', '..\\outside']) {
      const response = await call('one', { q });
      expect(resultText(response)).not.toContain('SECRET');
    }
    expect((await bridge.request('resources/read', { uri: 'res://../outside' })).error?.code).toBe(-32002);
  });

  it('answers a broken file with a clean error that names no machine path, and keeps serving', async () => {
    const broken = await call('one', { q: 'broken' });
    expect(broken.result?.isError).toBe(true);
    expect(resultText(broken)).toMatch(/not valid JSON/);
    expect(resultText(broken)).not.toContain(treeRoot);
    const brokenResource = await bridge.request('resources/read', { uri: 'res://broken' });
    expect(brokenResource.error?.code).toBe(-32603);
    expect(brokenResource.error?.message).not.toContain(treeRoot);
    expect((await bridge.request('ping')).result).toEqual({});
  });
});

describe('resources of our own trees', () => {
  it('lists and reads text, blob and live state resources', async () => {
    const project = buildFixtureProject('fixtures/example');
    const ours = await InProcessBridge.open(project);
    await ours.initialize();
    const list = (await ours.request('resources/list')).result!;
    expect((list.resources as { uri: string }[]).map((resource) => resource.uri)).toContain('example://data/planets');
    expect(list.nextCursor).toBeUndefined();
    const logo = (await ours.request('resources/read', { uri: 'resource://logo.png' })).result?.contents as [
      { blob: string; mimeType: string },
    ];
    expect(logo[0].mimeType).toBe('image/png');
    expect(Buffer.from(logo[0].blob, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const planets = (await ours.request('resources/read', { uri: 'example://data/planets' })).result?.contents as {
      text: string;
    }[];
    expect(planets[0]?.text).toContain('Mercury');
    const state = (await ours.request('resources/read', { uri: 'mcpd://counter/state' })).result?.contents as [
      { text: string },
    ];
    expect(JSON.parse(state[0].text)).toHaveProperty('count');
    const manifest = JSON.parse(await fs.readFile(path.join(project, 'dist/mcp.json'), 'utf8'));
    expect((await ours.request('resources/templates/list')).result?.resourceTemplates).toEqual(
      manifest.capabilities.resourceTemplates ?? [],
    );
    expect((await ours.request('resources/read', { uri: 'resource://nope.md' })).error?.code).toBe(-32002);
    await ours.close();

    const treeOnly = await InProcessBridge.open(path.join(project, 'dist'));
    await treeOnly.initialize();
    const stateWithoutProject = await treeOnly.request('resources/read', { uri: 'mcpd://counter/state' });
    expect(stateWithoutProject.error?.message).toMatch(/--live/);
    await treeOnly.close();
  });
});
