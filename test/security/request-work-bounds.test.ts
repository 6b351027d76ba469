// One request cannot hold the server's event loop (issue 21, items 4, 5 and 9), each shown on a
// real `staticmcp serve` with a probe `ping` sent right behind the attack and answered, the server
// having used less than WORK_BOUND_MS of CPU from the attack's send to the probe's answer (on
// 050d520 the probe waited out the whole attack: 6 to 7 s for the URI, about 3 s per 4 MB
// argument). CPU, not the probe's wall time, which grows with the machine's load:
// - a 40 KB URI against `file://{name}.{ext}` (quadratic in the old RegExp) is refused at once
//   for its length, -32002 in the legacy era and -32602 in 2026-07-28;
// - 4 MB arguments for a parameter the build never enumerated get "not precomputed" at once, the
//   argument not echoed whole, while calls with long values the build did use still hit;
// - a 2,000,000-element array argument is -32602 before anything walks its values (issue 37);
// - a 100,000-deep `[[[…]]]` is -32602 with the request's id, over stdio and HTTP, and no stack
//   trace reaches stderr (on 050d520 an `any` argument that deep overflowed the canonical-JSON
//   key walker: -32603 and a RangeError stack on stderr per request).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, LATEST, openSession, post } from '../helpers/http-serve.js';
import { writeProject } from '../helpers/projects.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';
import { firstText } from '../helpers/results.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import { readCpuMs } from '../helpers/process-tree-cpu.js';

/** The server's CPU for an attack and a probe: several times what they take now, below the old work (seconds). */
const WORK_BOUND_MS = 1500;

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bounds-test', version: '1' },
};

const LONG_WORD = 'L'.repeat(300);
const LONG_DEFAULT = 'd'.repeat(250);

let project: string;
let bridge: RawBridge;

beforeAll(async () => {
  project = await writeProject({
    'staticmcp.json': JSON.stringify({ tools: { lookup: { values: { word: ['short', LONG_WORD] } } } }),
    'tools/echo': {
      script: `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a mode and a text"}'
  echo '{"mode": {"description": "Mode", "required": false, "value_type": {"enum": ["a", "b"]}, "default_value": "a"}, "text": {"description": "Text", "required": false, "value_type": "string", "default_value": "hi"}, "data": {"description": "Data", "required": false, "value_type": "any", "default_value": null}}' >&2
  exit 0
fi
printf '%s %s\\n' "$mode" "$text"
`,
    },
    'tools/lookup': {
      script: `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Look a word up"}'
  echo '{"word": {"description": "Word", "required": true, "value_type": "string"}, "tag": {"description": "Tag", "required": false, "value_type": "string", "default_value": "${LONG_DEFAULT}"}}' >&2
  exit 0
fi
printf 'looked up %s characters\\n' "\${#word}"
`,
    },
    'resources/files.meta.json': JSON.stringify({
      name: 'files',
      uriTemplate: 'file://{name}.{ext}',
      mimeType: 'text/plain',
      provider: 'providers/file',
      values: { name: ['notes'], ext: ['txt'] },
    }),
    'providers/file': { script: '#!/bin/sh\nprintf "file %s.%s\\n" "$name" "$ext"\n' },
  });
  await buildTreeInProcess(project);
  bridge = new RawBridge([`${project}/dist`]);
  await bridge.initialize();
});

afterAll(async () => {
  await bridge?.close();
});

/** The server's CPU in milliseconds while `work` runs (a probe's answer awaited in it, say). */
async function serverCpuMsOf(work: () => Promise<void>): Promise<number> {
  const before = readCpuMs(bridge.child.pid!);
  await work();
  return readCpuMs(bridge.child.pid!) - before;
}

/** Sends `attacks` as they are, then a ping at once; resolves with the server's CPU until the ping's answer, and the answers. */
async function probeBehind(attacks: Record<string, unknown>[]): Promise<{ workMs: number; answers: JsonRpcMessage[] }> {
  const ids = attacks.map((_attack, index) => `attack-${Date.now()}-${index}`);
  const workMs = await serverCpuMsOf(async () => {
    attacks.forEach((attack, index) => {
      bridge.send({ jsonrpc: '2.0', id: ids[index], ...attack });
    });
    await bridge.request('ping');
  });
  const answers = await Promise.all(ids.map((id) => bridge.responseTo(id)));
  return { workMs, answers };
}

describe('resource template URIs', () => {
  it('a 40 KB URI is refused for its length at once, in each era, while a probe is answered', async () => {
    // The template module is loaded by a first, ordinary read (the precomputed instance).
    const instance = await bridge.request('resources/read', { uri: 'file://notes.txt' });
    expect(instance.result).toEqual({
      contents: [{ uri: 'file://notes.txt', mimeType: 'text/plain', text: 'file notes.txt\n' }],
    });

    const uri = `file://${'.'.repeat(40_000)}/`;
    const { workMs, answers } = await probeBehind([
      { method: 'resources/read', params: { uri } },
      { method: 'resources/read', params: { uri, _meta: MODERN_META } },
    ]);
    expect(workMs).toBeLessThan(WORK_BOUND_MS);
    const [legacy, modern] = answers;
    expect(legacy?.error?.code).toBe(-32002);
    expect(legacy?.error?.message).toMatch(/is 40008 characters long; resource templates match URIs of at most 8192/);
    expect(legacy?.error?.message.length).toBeLessThan(400);
    expect(modern?.error?.code).toBe(-32602);
  });
});

describe('arguments no build could have precomputed', () => {
  it('two 4 MB texts get "not precomputed" at once, not echoed whole, while a probe is answered', async () => {
    const text = 'x'.repeat(4 * 1024 * 1024);
    const call = { method: 'tools/call', params: { name: 'echo', arguments: { mode: 'a', text } } };
    const { workMs, answers } = await probeBehind([call, call]);
    expect(workMs).toBeLessThan(WORK_BOUND_MS);
    for (const answer of answers) {
      expect(answer.result?.isError).toBe(true);
      expect(firstText(answer.result)).toMatch(/this call was not precomputed/);
      expect(JSON.stringify(answer).length).toBeLessThan(5000);
    }
  });

  it('calls whose long values the build did use still answer from the tree', async () => {
    const long = await bridge.request('tools/call', { name: 'lookup', arguments: { word: LONG_WORD } });
    expect(long.result).toEqual({ content: [{ type: 'text', text: 'looked up 300 characters\n' }] });
    const explicitDefault = await bridge.request('tools/call', {
      name: 'lookup',
      arguments: { word: 'short', tag: LONG_DEFAULT },
    });
    expect(explicitDefault.result).toEqual({ content: [{ type: 'text', text: 'looked up 5 characters\n' }] });
    const otherTag = await bridge.request('tools/call', { name: 'lookup', arguments: { word: 'short', tag: 'other' } });
    expect(firstText(otherTag.result)).toMatch(/this call was not precomputed/);
  });
});

describe('arguments with millions of values (issue 37)', () => {
  it('a 2,000,000-element array is -32602 at once over stdio, before any walk, while a probe is answered', async () => {
    const stderrBefore = bridge.stderr.length;
    let answer: JsonRpcMessage | undefined;
    const workMs = await serverCpuMsOf(async () => {
      bridge.sendLine(
        `{"jsonrpc":"2.0","id":"wide-1","method":"tools/call","params":{"name":"echo","arguments":{"data":[${'0,'.repeat(1_999_999)}0]}}}`,
      );
      await bridge.request('ping');
      answer = await bridge.responseTo('wide-1');
    });
    // Key, validation and quote walks took seconds over these values on 96d143f.
    expect(workMs).toBeLessThan(WORK_BOUND_MS);
    expect(answer?.error?.code).toBe(-32602);
    expect(answer?.error?.message).toMatch(/the message holds more than 100000 values/);
    expect(bridge.stderr.slice(stderrBefore)).not.toMatch(/RangeError|\n\s+at /);
  });
});

describe('deeply nested JSON', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  const callLine = (id: string): string =>
    `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"data":${deep}}}}`;

  it('over stdio: -32602 with the request id, one answer per request, no stack on stderr', async () => {
    const stderrBefore = bridge.stderr.length;
    const workMs = await serverCpuMsOf(async () => {
      bridge.sendLine(callLine('deep-1'));
      bridge.sendLine(`{"jsonrpc":"2.0","id":"deep-2","method":"ping","params":{"_meta":${deep}}}`);
      await bridge.request('ping');
    });
    expect(workMs).toBeLessThan(WORK_BOUND_MS);
    for (const id of ['deep-1', 'deep-2']) {
      const answer = await bridge.responseTo(id);
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toMatch(/more than 128 levels deep/);
    }
    expect(bridge.stderr.slice(stderrBefore)).not.toMatch(/RangeError|\n\s+at /);
  });

  it('over HTTP: -32602 with the request id, and the server goes on', async () => {
    const serve = await HttpServe.start([`${project}/dist`]);
    try {
      const session = await openSession(serve.port);
      const headers = { 'mcp-session-id': session, 'mcp-protocol-version': LATEST };
      const answer = await post(serve.port, callLine('deep-http'), headers);
      expect(answer.json()).toMatchObject({ id: 'deep-http', error: { code: -32602 } });
      const probe = await post(serve.port, { jsonrpc: '2.0', id: 'probe', method: 'ping' }, headers);
      expect(probe.json()).toEqual({ jsonrpc: '2.0', id: 'probe', result: {} });
      expect(serve.stderr).not.toMatch(/RangeError|\n\s+at /);
    } finally {
      await serve.stop();
    }
  });
});
