// Multi round-trip requests (2026-07-28, SEP-2322) as a client sees them over stdio: a live
// script's questions on fd 3 come back as an InputRequiredResult (keyed inputRequests and a
// signed requestState), the re-sent call with inputResponses re-runs the script and answers it
// from what was gathered, round after round, until it finishes; questions written together come
// together; only what the client declared is asked; a changed, foreign or malformed state or
// answer is -32602; a legacy session still gets the questions as requests, one at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeProject } from '../helpers/projects.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';

const PROFILE = `#!/bin/sh
# Two rounds: the colour question is only asked once the name is in.
if [ "$1" = "--help" ]; then
  echo '{"description": "Asks a name, then a colour", "precompute": false}'
  echo '{"greeting": {"value_type": "string", "default_value": "hello"}}' >&2
  exit 0
fi
echo '{"key": "name", "method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}' >&3
IFS= read -r name <&3
echo '{"key": "color", "method": "elicitation/create", "params": {"message": "Colour?", "requestedSchema": {"type": "object", "properties": {"color": {"type": "string"}}}}}' >&3
IFS= read -r color <&3
printf '%s|%s|%s' "$greeting" "$name" "$color"
`;

const TOGETHER = `#!/bin/sh
# Two questions written before either answer is read; neither names a key.
if [ "$1" = "--help" ]; then
  echo '{"description": "Asks two things at once", "precompute": false}'
  exit 0
fi
{
  echo '{"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}'
  echo '{"method": "roots/list", "params": {}}'
} >&3
IFS= read -r first <&3
IFS= read -r second <&3
printf '%s\\n%s' "$first" "$second"
`;

const FALLBACK = `#!/bin/sh
# Asks the user if it can, else the LLM; a bad key is refused to the script, never sent.
if [ "$1" = "--help" ]; then
  echo '{"description": "User or LLM", "precompute": false}'
  exit 0
fi
echo '{"key": "has space", "method": "roots/list", "params": {}}' >&3
IFS= read -r refused <&3
echo '{"key": "user", "method": "elicitation/create", "params": {"message": "Word?", "requestedSchema": {"type": "object", "properties": {}}}}' >&3
IFS= read -r answer <&3
case "$answer" in
  '{"error"'*)
    echo '{"key": "llm", "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}' >&3
    IFS= read -r answer <&3 ;;
esac
printf '%s\\n%s' "$refused" "$answer"
`;

const meta = (
  capabilities: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} },
): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

interface InputRequired {
  resultType: string;
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
}

let project: string;
let bridge: RawBridge;

beforeAll(async () => {
  project = await writeProject({
    'tools/profile': { script: PROFILE },
    'tools/together': { script: TOGETHER },
    'tools/fallback': { script: FALLBACK },
  });
  await buildTreeInProcess(project);
  bridge = new RawBridge([project]);
});

afterAll(async () => {
  await bridge?.close();
});

const call = (
  name: string,
  extra: Record<string, unknown> = {},
  args: Record<string, unknown> = {},
): Promise<JsonRpcMessage> => bridge.request('tools/call', { name, arguments: args, _meta: meta(), ...extra });

const elicited = (content: Record<string, unknown>): Record<string, unknown> => ({ action: 'accept', content });

describe('InputRequiredResult (2026-07-28)', () => {
  it('asks round by round, carrying the answers in a requestState that changes each round', async () => {
    const first = (await call('profile', {}, { greeting: 'hi' })).result as unknown as InputRequired;
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: { message: 'Name?' } } },
    });
    expect(Object.keys(first.inputRequests)).toEqual(['name']);
    expect(typeof first.requestState).toBe('string');
    expect(first).not.toHaveProperty('content');

    const second = (
      await call(
        'profile',
        { inputResponses: { name: elicited({ name: 'Ada' }) }, requestState: first.requestState },
        { greeting: 'hi' },
      )
    ).result as unknown as InputRequired;
    expect(second).toMatchObject({
      resultType: 'input_required',
      inputRequests: { color: { method: 'elicitation/create' } },
    });
    expect(Object.keys(second.inputRequests)).toEqual(['color']);
    expect(second.requestState).not.toBe(first.requestState);

    // The name lives in the state now: the last round brings only the colour (and an extra key, ignored).
    const done = await call(
      'profile',
      {
        inputResponses: { color: elicited({ color: 'blue' }), unasked: { action: 'cancel' } },
        requestState: second.requestState,
      },
      { greeting: 'hi' },
    );
    expect(done.result).toMatchObject({ resultType: 'complete' });
    const text = (done.result as { content: { text: string }[] }).content[0]?.text;
    expect(text).toBe(
      'hi|{"result":{"action":"accept","content":{"name":"Ada"}}}|{"result":{"action":"accept","content":{"color":"blue"}}}',
    );
  });

  it('re-requests what is still missing when the answers given do not fit the questions', async () => {
    const answer = await call('profile', { inputResponses: { wrong_key: elicited({}) } });
    expect(answer.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: {} } });
  });

  it('sends questions written together in one result, keyed by their order when the script names no key', async () => {
    const first = (await call('together')).result as unknown as InputRequired;
    expect(first.inputRequests).toEqual({
      'input-1': {
        method: 'elicitation/create',
        params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
      },
      'input-2': { method: 'roots/list', params: {} },
    });
    const done = await call('together', {
      inputResponses: { 'input-1': elicited({}), 'input-2': { roots: [{ uri: 'file:///r' }] } },
      requestState: first.requestState,
    });
    expect((done.result as { content: { text: string }[] }).content[0]?.text).toBe(
      '{"result":{"action":"accept","content":{}}}\n{"result":{"roots":[{"uri":"file:///r"}]}}',
    );
  });

  it('asks only for what the client declared; the script hears at once about the rest', async () => {
    const samplingOnly = await bridge.request('tools/call', {
      name: 'fallback',
      arguments: {},
      _meta: meta({ sampling: {} }),
    });
    const result = samplingOnly.result as unknown as InputRequired;
    expect(Object.keys(result.inputRequests)).toEqual(['llm']);
    expect(result.inputRequests.llm?.method).toBe('sampling/createMessage');

    const nothing = await bridge.request('tools/call', { name: 'fallback', arguments: {}, _meta: meta({}) });
    const text = (nothing.result as { content: { text: string }[] }).content[0]?.text;
    expect(nothing.result).toMatchObject({ resultType: 'complete' });
    expect(text).toMatch(/^\{"error":\{"code":-32600,"message":"\\"key\\" must be a string/);
    expect(text).toMatch(/did not declare the sampling capability/);
  });

  it('refuses a changed, foreign or malformed requestState and malformed inputResponses with -32602', async () => {
    const first = (await call('profile', {}, { greeting: 'hi' })).result as unknown as InputRequired;
    const answers = { inputResponses: { name: elicited({ name: 'Ada' }) } };
    const tampered = await call(
      'profile',
      { ...answers, requestState: `${first.requestState}-TAMPERED` },
      { greeting: 'hi' },
    );
    expect(tampered.error).toMatchObject({ code: -32602 });
    expect(tampered.error?.message).toMatch(/integrity/);
    const [body] = first.requestState.split('.');
    expect((await call('profile', { ...answers, requestState: `${body}.AAAA` }, { greeting: 'hi' })).error?.code).toBe(
      -32602,
    );
    const otherArgs = await call('profile', { ...answers, requestState: first.requestState }, { greeting: 'bye' });
    expect(otherArgs.error?.message).toMatch(/another call/);
    expect((await call('together', { ...answers, requestState: first.requestState })).error?.code).toBe(-32602);
    expect((await call('profile', { requestState: 42 })).error?.code).toBe(-32602);
    expect((await call('profile', { inputResponses: null })).error?.code).toBe(-32602);
    expect((await call('profile', { inputResponses: { name: 12345 } })).error?.code).toBe(-32602);
    expect((await call('profile', { inputResponses: [] })).error?.code).toBe(-32602);
    // The connection goes on serving.
    expect((await call('profile', {}, { greeting: 'hi' })).result).toMatchObject({ resultType: 'input_required' });
  });

  it('a legacy session still gets the questions as requests on the call, one at a time in order', async () => {
    const legacy = new RawBridge([project]);
    try {
      await legacy.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {}, roots: {} },
        clientInfo: { name: 't', version: '1' },
      });
      legacy.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      legacy.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'together', arguments: {} } });
      const asked = (method: string) =>
        legacy.waitFor(
          (frames) => frames.find((frame) => (frame as JsonRpcMessage).method === method) as JsonRpcMessage | undefined,
        );
      const first = await asked('elicitation/create');
      // The second question waits for the first answer.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(legacy.frames.some((frame) => (frame as JsonRpcMessage).method === 'roots/list')).toBe(false);
      legacy.send({ jsonrpc: '2.0', id: first.id, result: { action: 'decline' } });
      const second = await asked('roots/list');
      legacy.send({ jsonrpc: '2.0', id: second.id, result: { roots: [] } });
      const done = await legacy.responseTo('c1');
      expect(done.result).not.toHaveProperty('resultType');
      expect((done.result as { content: { text: string }[] }).content[0]?.text).toBe(
        '{"result":{"action":"decline"}}\n{"result":{"roots":[]}}',
      );
    } finally {
      await legacy.close();
    }
  });
});
