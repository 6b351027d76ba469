// The protocol core over stdio with raw JSON-RPC lines: version negotiation, what each version may
// see, batches, errors for bad input, and a clean exit when stdin closes. The version and batch
// decisions are asked of serve's own session in-process (InProcessBridge: the same sources and
// tree switch, fed the same lines); the lifecycle, the frame cap, piped input and back-pressure go
// through the real process, which also shows each of those exits 0 when stdin closes.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureProject } from '../helpers/projects.js';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';

let example: string;

beforeAll(() => {
  example = buildFixtureProject('fixtures/example');
});

describe('version negotiation', () => {
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`echoes ${version} and shows only the fields it knows`, async () => {
      const bridge = await InProcessBridge.open(example);
      const init = await bridge.initialize(version);
      expect(init.result?.protocolVersion).toBe(version);
      // The example has prompts and templates; the completions capability exists from 2025-03-26.
      // A served folder switches to a rebuilt tree, so its lists can change (docs/serving.md).
      expect(init.result?.capabilities).toEqual({
        logging: {},
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        ...(version >= '2025-03-26' ? { completions: {} } : {}),
      });
      const serverInfo = init.result?.serverInfo as Record<string, unknown>;
      expect(serverInfo.name).toBe('example');
      expect('title' in serverInfo).toBe(version >= '2025-06-18');
      expect('description' in serverInfo).toBe(version >= '2025-11-25');
      const tools = (await bridge.request('tools/list')).result?.tools as Record<string, unknown>[];
      const greet = tools.find((tool) => tool.name === 'greet')!;
      expect('title' in greet).toBe(version >= '2025-06-18');
      expect(greet.inputSchema).toMatchObject({
        type: 'object',
        properties: { language: { enum: ['en', 'fr', 'de'] } },
      });
      const resources = (await bridge.request('resources/list')).result?.resources as Record<string, unknown>[];
      const logo = resources.find((resource) => resource.uri === 'resource://logo.png')!;
      expect('size' in logo).toBe(version >= '2025-03-26');
      await bridge.close();
    });
  }

  it('accepts batches under 2025-03-26 only', async () => {
    const old = await InProcessBridge.open(example);
    await old.initialize('2025-03-26');
    old.sendLine(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'greet', arguments: { language: 'de' } } },
      ]),
    );
    const batch = await old.waitFor((frames) => frames.find(Array.isArray) as JsonRpcMessage[] | undefined);
    expect(batch.map((response) => response.id).sort()).toEqual(['a', 'b']);
    expect(batch.find((response) => response.id === 'b')?.result).toEqual({
      content: [{ type: 'text', text: 'Hallo!\n' }],
    });
    await old.close();

    const current = await InProcessBridge.open(example);
    await current.initialize('2025-06-18');
    current.sendLine(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'ping' }]));
    const refused = await current.responseTo(null);
    expect(refused.error?.code).toBe(-32600);
    expect(current.frames.some((frame) => (frame as JsonRpcMessage).id === 'a')).toBe(false);
    await current.close();
  });
});

describe('the lifecycle', () => {
  it('answers a request before initialize with -32600 and what to send, pings, then serves after initialize (an unknown version answered with the latest)', async () => {
    const bridge = new RawBridge([example]);
    for (const [id, method, params] of [
      [1, 'tools/list', undefined],
      [2, 'tools/call', { name: 'greet', arguments: {} }],
      [3, 'resources/read', { uri: 'resource://guide.md' }],
      [4, 'logging/setLevel', { level: 'debug' }],
    ] as const) {
      bridge.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      const refused = await bridge.responseTo(id);
      expect(refused.result, method).toBeUndefined();
      expect(refused.error?.code, method).toBe(-32600);
      expect(refused.error?.message, method).toMatch(/send initialize first/);
    }
    // An unknown method is still just unknown (a client probing server/discover falls back to initialize).
    expect((await bridge.request('server/discovery')).error?.code).toBe(-32601);
    expect((await bridge.request('ping')).result).toEqual({});
    expect((await bridge.initialize('1999-01-01')).result?.protocolVersion).toBe('2025-11-25');
    const tools = (await bridge.request('tools/list')).result?.tools as unknown[];
    expect(tools.length).toBeGreaterThan(0);
    expect(await bridge.close()).toBe(0);
  });

  it('needs no handshake for a 2026-07-28 request, which carries its version in _meta', async () => {
    const bridge = await InProcessBridge.open(example);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const answer = await bridge.request('tools/call', { name: 'greet', arguments: {}, _meta: meta });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.resultType).toBe('complete');
    await bridge.close();
  });
});

describe('bad input', () => {
  // One session for both: each part ends by showing the server still serves.
  it('refuses a frame over the size cap and reads the next line normally; treats names every object inherits (constructor, __proto__) as unknown methods; answers malformed and invalid messages, never notifications, and keeps serving', async () => {
    const bridge = new RawBridge([example]);
    bridge.sendLine(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'x'.repeat(9 * 1024 * 1024)}"}}`);
    const refused = await bridge.responseTo(null);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/larger than/);
    bridge.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await bridge.responseTo(2)).result).toEqual({});
    expect(bridge.frames.some((frame) => (frame as JsonRpcMessage).id === 1)).toBe(false);
    const oversized = bridge.frames.length;
    expect(oversized).toBe(2);

    bridge.send({ jsonrpc: '2.0', id: 101, method: 'constructor' });
    expect((await bridge.responseTo(101)).error?.code).toBe(-32601);
    bridge.send({ jsonrpc: '2.0', id: 102, method: '__proto__' });
    expect((await bridge.responseTo(102)).error?.code).toBe(-32601);
    bridge.send({ jsonrpc: '2.0', id: 103, method: 'ping' });
    expect((await bridge.responseTo(103)).result).toEqual({});
    const inherited = bridge.frames.length;
    expect(inherited).toBe(oversized + 3);

    bridge.sendLine('{"jsonrpc":"2.0","id":1,"method":');
    // Its answer has no id either: the first one after the frames above.
    const unparsed = await bridge.waitFor(
      (frames) =>
        frames.slice(inherited).find((frame) => (frame as JsonRpcMessage).id === null) as JsonRpcMessage | undefined,
    );
    expect(unparsed.error?.code).toBe(-32700);
    bridge.send({ jsonrpc: '1.0', id: 7, method: 'ping' });
    expect((await bridge.responseTo(7)).error?.code).toBe(-32600);
    bridge.send({ jsonrpc: '2.0', id: 8, method: 42 });
    expect((await bridge.responseTo(8)).error?.code).toBe(-32600);
    bridge.send({ jsonrpc: '2.0', id: 9, method: 'no/such/method' });
    expect((await bridge.responseTo(9)).error?.code).toBe(-32601);
    bridge.send({ jsonrpc: '2.0', method: 'no/such/notification' });
    bridge.send({ jsonrpc: '2.0', method: 'tools/list' });
    // ping works before initialize, and after all of the above.
    bridge.send({ jsonrpc: '2.0', id: 10, method: 'ping' });
    expect((await bridge.responseTo(10)).result).toEqual({});
    expect(bridge.frames).toHaveLength(inherited + 5);
    await bridge.initialize();
    expect((await bridge.request('tools/call', { name: 'nope' })).error?.code).toBe(-32602);
    expect((await bridge.request('tools/call', { name: 'greet', arguments: [1] })).error?.code).toBe(-32602);
    expect((await bridge.request('logging/setLevel', { level: 'loud' })).error?.code).toBe(-32602);
    expect(await bridge.close()).toBe(0);
  });

  it('answers requests piped in before stdin closes, then exits 0 with nothing but frames on stdout', async () => {
    const bridge = new RawBridge([example]);
    bridge.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    bridge.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'math_multiply', arguments: { a: 6, b: 7 } },
    });
    expect(await bridge.close()).toBe(0);
    expect((bridge.frames.find((frame) => (frame as JsonRpcMessage).id === 2) as JsonRpcMessage).result).toEqual({
      content: [{ type: 'text', text: '42\n' }],
    });
  });

  it('answers precomputed calls in the order asked to a client that reads none of them for a while', async () => {
    // Answered at once and written straight to stdout while it takes them; past a full pipe the
    // rest must queue behind what is left, never overtake it.
    const bridge = new RawBridge([example]);
    await bridge.initialize();
    bridge.child.stdout.pause();
    const languages = ['en', 'fr', 'de'];
    const calls = 10_000;
    let id = 100;
    await new Promise<void>((resolve) => {
      const pump = (): void => {
        while (id < 100 + calls) {
          const params = { name: 'greet', arguments: { language: languages[id % 3], shout: id % 2 === 0 } };
          if (
            !bridge.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params })}\n`)
          ) {
            bridge.child.stdin.once('drain', pump);
            return;
          }
        }
        resolve();
      };
      pump();
      setTimeout(() => bridge.child.stdout.resume(), 1_500);
    });
    const answers = await bridge.waitFor((frames) => {
      const calls = (frames as JsonRpcMessage[]).filter((frame) => typeof frame.id === 'number' && frame.id >= 100);
      return calls.length >= 10_000 ? calls : undefined;
    }, 60_000);
    expect(answers.map((frame) => frame.id)).toEqual(Array.from({ length: calls }, (_, index) => 100 + index));
    const greetings = { en: 'Hello!', fr: 'Bonjour !', de: 'Hallo!' } as Record<string, string>;
    for (const frame of answers) {
      const id = frame.id as number;
      const text = greetings[languages[id % 3]!]!;
      expect(frame.result).toEqual({
        content: [{ type: 'text', text: `${id % 2 === 0 ? text.toUpperCase() : text}\n` }],
      });
    }
    expect(await bridge.close()).toBe(0);
  });

  it('answers every request exactly once to a client that sends thousands before it reads any answer', async () => {
    const bridge = new RawBridge([example]);
    bridge.child.stdout.pause();
    await new Promise<void>((resolve) => {
      let id = 1;
      const pump = (): void => {
        while (id <= 5_000) {
          if (!bridge.child.stdin.write(`{"jsonrpc":"2.0","id":${id++},"method":"tools/list"}\n`)) {
            bridge.child.stdin.once('drain', pump);
            return;
          }
        }
        resolve();
      };
      pump();
      // The client reads nothing for a while: the server must stop reading rather than pile answers up.
      setTimeout(() => bridge.child.stdout.resume(), 1_500);
    });
    await bridge.waitFor((frames) => (frames.length >= 5_000 ? true : undefined), 60_000);
    const ids = (bridge.frames as JsonRpcMessage[]).map((frame) => frame.id);
    expect(new Set(ids).size).toBe(5_000);
    expect(ids).toHaveLength(5_000);
    expect(await bridge.close()).toBe(0);
  });
});
