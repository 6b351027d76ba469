// One `staticmcp serve` process over stdio answering both eras: a legacy client's handshake and a
// 2026-07-28 client's stateless requests interleaved on the same connection, each answered in its
// own era; the owner's cache.ttlSeconds reaching ttlMs and the tree's _headers; log messages only
// for a modern request that names a level; bad input answered with the spec's code while the
// connection keeps serving.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawBridge } from '../helpers/raw-bridge.js';
import { buildFixtureInProcess } from '../helpers/in-process-build.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1' },
};

const LOGGING_SCRIPT = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Say a word after logging it", "precompute": false}'
  echo '{"word": {"description": "Word", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "INFO saying $word" >&2
printf 'said %s\\n' "$word"
`;

let project: string;
let bridge: RawBridge;

beforeAll(async () => {
  project = await buildFixtureInProcess('bridge-project', (copy) => {
    const config = JSON.parse(readFileSync(path.join(copy, 'staticmcp.json'), 'utf8'));
    writeFileSync(path.join(copy, 'staticmcp.json'), JSON.stringify({ ...config, cache: { ttlSeconds: 42 } }));
    writeFileSync(path.join(copy, 'tools', 'say'), LOGGING_SCRIPT, { mode: 0o755 });
  });
  bridge = new RawBridge([project]);
});

afterAll(async () => {
  await bridge?.close();
});

describe('one stdio process, both eras', () => {
  it('answers a legacy handshake and modern requests side by side, each in its own era', async () => {
    const discovered = await bridge.request('server/discover', { _meta: META });
    expect(discovered.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      ttlMs: 42_000,
      cacheScope: 'public',
    });

    const init = await bridge.initialize('2025-06-18');
    expect((init.result as { protocolVersion: string }).protocolVersion).toBe('2025-06-18');

    const [legacyList, modernList] = await Promise.all([
      bridge.request('tools/list'),
      bridge.request('tools/list', { _meta: META }),
    ]);
    expect(legacyList.result).not.toHaveProperty('resultType');
    expect(modernList.result).toMatchObject({ resultType: 'complete', ttlMs: 42_000, cacheScope: 'public' });
    expect((await bridge.request('ping')).result).toEqual({});
    expect((await bridge.request('ping', { _meta: META })).error?.code).toBe(-32601);
  });

  it('the owner TTL is in the tree too: the manifest extension and the _headers file', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'dist', 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.cache).toEqual({ ttlSeconds: 42 });
    const headers = readFileSync(path.join(project, 'dist', '_headers'), 'utf8');
    expect(headers).toContain('Cache-Control: public, max-age=42, must-revalidate');
  });

  it('sends notifications/message for a modern request only when its _meta names a level', async () => {
    const before = bridge.frames.length;
    const quiet = await bridge.request('tools/call', { name: 'say', arguments: { word: 'hush' }, _meta: META });
    expect(quiet.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'said hush\n' }] });
    expect(
      bridge.frames.slice(before).some((frame) => (frame as { method?: string }).method === 'notifications/message'),
    ).toBe(false);

    const loud = await bridge.request('tools/call', {
      name: 'say',
      arguments: { word: 'hi' },
      _meta: { ...META, 'io.modelcontextprotocol/logLevel': 'info' },
    });
    expect(loud.result?.resultType).toBe('complete');
    const messages = bridge.frames.filter((frame) => (frame as { method?: string }).method === 'notifications/message');
    expect(JSON.stringify(messages)).toContain('saying hi');
  });

  it('answers bad input with the code the spec names and keeps serving', async () => {
    expect(
      (
        await bridge.request('tools/list', {
          _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        })
      ).error,
    ).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2099-01-01' } });
    expect((await bridge.request('server/discover')).error?.code).toBe(-32602);
    expect((await bridge.request('subscriptions/listen', { notifications: {} })).error?.code).toBe(-32602);
    expect(
      (
        await bridge.request('tools/list', {
          _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' } },
        })
      ).error?.code,
    ).toBe(-32602);
    expect(
      (
        await bridge.request('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
          _meta: META,
        })
      ).error?.code,
    ).toBe(-32601);
    expect((await bridge.request('resources/subscribe', { uri: 'x://y', _meta: META })).error?.code).toBe(-32601);
    expect((await bridge.request('subscriptions/listen', { notifications: 'all', _meta: META })).error?.code).toBe(
      -32602,
    );
    // Still serving both eras.
    expect((await bridge.request('tools/list')).result).toHaveProperty('tools');
    expect((await bridge.request('tools/list', { _meta: META })).result?.resultType).toBe('complete');
  });

  it('refuses a subscription whose id or URIs would be copied, too long, into each of its notifications', async () => {
    const longId = 'i'.repeat(300);
    bridge.send({
      jsonrpc: '2.0',
      id: longId,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: META },
    });
    const byId = (await bridge.responseTo(longId)) as { error?: { code: number; message: string } };
    expect(byId.error?.code).toBe(-32602);
    expect(byId.error?.message).toContain('the request id is 300 characters long');
    const byUri = await bridge.request('subscriptions/listen', {
      notifications: { resourceSubscriptions: [`file:///${'u'.repeat(9000)}`] },
      _meta: META,
    });
    expect(byUri.error?.code).toBe(-32602);
    expect((await bridge.request('tools/list', { _meta: META })).result?.resultType).toBe('complete');
  });

  it('answers a burst of 2026-07-28 requests that are the first a process sees (their dispatch loads on the first one), one cancelled at once', async () => {
    const fresh = new RawBridge([project]);
    const ids = Array.from({ length: 40 }, (_, index) => `m${index}`);
    // One write: the requests and the cancellation arrive before the 2026-07-28 code has loaded.
    fresh.sendLine(
      [
        ...ids.map((id, index) =>
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: index % 2 === 0 ? 'tools/list' : 'server/discover',
            params: { _meta: META },
          }),
        ),
        JSON.stringify({ jsonrpc: '2.0', id: 'gone', method: 'tools/list', params: { _meta: META } }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'gone' } }),
      ].join('\n'),
    );
    const answers = await Promise.all(ids.map((id) => fresh.responseTo(id)));
    expect(answers.map((answer) => answer.result?.resultType)).toEqual(ids.map(() => 'complete'));
    expect(answers.filter((answer) => answer.result && 'tools' in answer.result)).toHaveLength(20);
    // The same connection then does a legacy handshake; the cancelled request was never answered.
    expect((await fresh.initialize('2025-06-18')).result).toHaveProperty('protocolVersion', '2025-06-18');
    expect((await fresh.request('tools/list')).result).toHaveProperty('tools');
    expect(fresh.frames.some((frame) => (frame as { id?: unknown }).id === 'gone')).toBe(false);
    expect(await fresh.close()).toBe(0);
  });
});
