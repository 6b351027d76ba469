// `serve`'s first exchange, read and answered before Node's stream modules load
// (src/hosts/node/waiting-input.ts): what a client sees must not differ from the streams' path,
// whatever the first write holds, and the server falls back to the streams where a plain read or
// write would not do (non-blocking descriptors), ends at EOF, and ends on a signal before any request.
import { beforeAll, describe, expect, it } from 'vitest';
import { builtExample } from '../helpers/example.js';
import { CLI } from '../helpers/paths.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';

let example: string;

beforeAll(() => {
  example = builtExample();
});

const initialize = (id: number | string, name = 'test') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
});

describe('the first write of a client', () => {
  it('answers every request it holds exactly once, then what comes later', async () => {
    const bridge = new RawBridge([example]);
    bridge.sendLine(
      [
        initialize(1),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'math_multiply', arguments: { a: 6, b: 7 } } },
        // More than goes out before the streams exist (a page): the rest goes through the stream.
        ...[4, 5, 6, 7].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list' })),
      ]
        .map((message) => JSON.stringify(message))
        .join('\n'),
    );
    await bridge.responseTo(7);
    expect((await bridge.request('ping')).result).toEqual({});
    expect(await bridge.close()).toBe(0);
    // A live call's answer may come after quicker ones, as it does on the streams' path.
    const answers = new Map(bridge.frames.map((frame) => [(frame as JsonRpcMessage).id, frame as JsonRpcMessage]));
    expect(bridge.frames).toHaveLength(8);
    expect([...answers.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 'r1']);
    expect(answers.get(3)?.result).toEqual({ content: [{ type: 'text', text: '42\n' }] });
    const lists = [4, 5, 6, 7].map((id) => answers.get(id)?.result);
    expect(lists[0]?.tools).toContainEqual(expect.objectContaining({ name: 'math_multiply' }));
    for (const list of lists) expect(list).toEqual(lists[0]);
  });

  it('answers a first line longer than one read takes', async () => {
    const bridge = new RawBridge([example]);
    const name = 'n'.repeat(200_000);
    bridge.send(initialize(1, name));
    const answer = await bridge.responseTo(1);
    expect(answer.result?.serverInfo).toMatchObject({ name: 'example' });
    expect((await bridge.request('ping')).result).toEqual({});
    expect(await bridge.close()).toBe(0);
  });

  it('exits 0 with nothing on stdout when the client closes stdin without writing', async () => {
    const bridge = new RawBridge([example]);
    expect(await bridge.close()).toBe(0);
    expect(bridge.frames).toEqual([]);
    expect(bridge.stderr).toBe('');
  });

  it('exits 0, without an error, when the client stopped reading before the first answer', async () => {
    const bridge = new RawBridge([example]);
    bridge.child.stdout.destroy();
    bridge.send(initialize(1));
    expect(await bridge.exited).toBe(0);
    expect(bridge.stderr).toBe('');
  });

  it('ends on SIGTERM while it waits for the first request', async () => {
    const bridge = new RawBridge([example]);
    // Long enough to be waiting in the read.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    bridge.child.kill('SIGTERM');
    const ended = await Promise.race([
      bridge.exited.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 10_000)),
    ]);
    expect(ended).toBe(true);
  });
});

describe('a non-blocking stdin', () => {
  it('is read through the stream: a request written after the server started is answered', async () => {
    // perl makes the client's end of stdin non-blocking, then becomes the server (Node's own spawn
    // would make it blocking again): a plain read finds nothing yet and fails (EAGAIN).
    const bridge = new RawBridge([], {
      launcher: [
        'perl',
        '-MFcntl',
        '-e',
        'fcntl(STDIN, F_SETFL, fcntl(STDIN, F_GETFL, 0) | O_NONBLOCK) or die; exec @ARGV',
        process.execPath,
        CLI,
        'serve',
        example,
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const answer = await bridge.request('initialize', initialize(1).params);
    expect(answer.result?.serverInfo).toMatchObject({ name: 'example' });
    expect((await bridge.request('ping')).result).toEqual({});
    expect(await bridge.close()).toBe(0);
    expect(bridge.stderr).toBe('');
  });
});
