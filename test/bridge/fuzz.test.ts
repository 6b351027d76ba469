// 10,000 random and mutated JSON-RPC lines: the bridge stays up, and every request that has a
// usable id gets exactly one response (or, for malformed lines, an error with id null).
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureProject } from '../helpers/projects.js';
import { pick as pickFrom, random } from '../helpers/random.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';

let example: string;

beforeAll(() => {
  example = buildFixtureProject('fixtures/example');
});

const SEEDS: Record<string, unknown>[] = [
  { jsonrpc: '2.0', method: 'ping' },
  { jsonrpc: '2.0', method: 'tools/list', params: {} },
  { jsonrpc: '2.0', method: 'tools/list', params: { cursor: 'abc' } },
  { jsonrpc: '2.0', method: 'tools/call', params: { name: 'greet', arguments: { language: 'fr', shout: true } } },
  { jsonrpc: '2.0', method: 'tools/call', params: { name: 'math_multiply', arguments: { a: 3, b: 4 } } },
  { jsonrpc: '2.0', method: 'tools/call', params: { name: 'capital', arguments: { country: 'Japan' } } },
  { jsonrpc: '2.0', method: 'resources/list' },
  { jsonrpc: '2.0', method: 'resources/read', params: { uri: 'resource://guide.md' } },
  { jsonrpc: '2.0', method: 'resources/templates/list' },
  { jsonrpc: '2.0', method: 'logging/setLevel', params: { level: 'error' } },
  { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } },
];

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  'x',
  '../../etc',
  '\u0000',
  [],
  {},
  [1, 2],
  { a: { b: 1 } },
  'greet',
  'tools/call',
];

function mutate(next: () => number, value: Record<string, unknown>): unknown {
  const copy: Record<string, unknown> = structuredClone(value);
  const pick = <T>(items: readonly T[]): T => pickFrom(next, items);
  const operations = Math.floor(next() * 3);
  for (let index = 0; index < operations; index += 1) {
    const choice = next();
    if (choice < 0.25) copy[pick(['jsonrpc', 'method', 'params', 'extra'])] = pick(ODD_VALUES);
    else if (choice < 0.45) delete copy[pick(['jsonrpc', 'method', 'params'])];
    else if (choice < 0.65 && copy.params && typeof copy.params === 'object') {
      (copy.params as Record<string, unknown>)[pick(['name', 'arguments', 'uri', 'cursor', 'level', '_meta'])] =
        pick(ODD_VALUES);
    } else if (choice < 0.8)
      copy.method = pick(['tools/call', 'nope', 'resources/read', 'ping', 'notifications/cancelled']);
  }
  return copy;
}

/**
 * How long the answers to the 10,000 lines may take: the test's own bound (the server promises every
 * answer, not a time), which a loaded machine stretches well past a quiet one's seconds.
 */
const FUZZ_WAIT_MS = 150_000;

describe('fuzz', () => {
  it('survives 10,000 random and mutated lines and answers every request with an id exactly once', async () => {
    const next = random(20240611);
    const bridge = new RawBridge([example]);
    await bridge.initialize('2025-06-18');
    const expectedIds = new Set<string>();
    let expectedNullErrors = 0;
    const lines: string[] = [];
    for (let index = 0; index < 10_000; index += 1) {
      const kind = next();
      if (kind < 0.1) {
        // Garbage: not JSON at all, or truncated JSON.
        const seed = JSON.stringify({ ...SEEDS[index % SEEDS.length], id: index });
        lines.push(
          next() < 0.5
            ? seed.slice(0, Math.max(1, Math.floor(next() * (seed.length - 1))))
            : String.fromCharCode(...Array.from({ length: 20 }, () => 33 + Math.floor(next() * 90))),
        );
        expectedNullErrors += 1;
        continue;
      }
      const message = mutate(next, pickFrom(next, SEEDS)) as Record<string, unknown>;
      const idChoice = next();
      if (idChoice < 0.8) message.id = `f${index}`;
      else if (idChoice < 0.9) message.id = index;
      else delete message.id;
      // Never cancel real ids, and never initialize again (the version must stay 2025-06-18).
      if (message.method === 'notifications/cancelled' || message.method === 'initialize') message.method = 'ping';
      lines.push(JSON.stringify(message));
      if (message.id === undefined) {
        // A notification, or an invalid message without an id (answered with id null).
        const valid =
          message.jsonrpc === '2.0' &&
          typeof message.method === 'string' &&
          message.method !== '' &&
          (message.params === undefined ||
            (message.params !== null && typeof message.params === 'object' && !Array.isArray(message.params)));
        if (!valid) expectedNullErrors += 1;
      } else {
        expectedIds.add(String(message.id));
      }
    }
    for (let start = 0; start < lines.length; start += 500) {
      bridge.child.stdin.write(`${lines.slice(start, start + 500).join('\n')}\n`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    bridge.send({ jsonrpc: '2.0', id: 'last', method: 'ping' });
    await bridge.responseTo('last', FUZZ_WAIT_MS);
    await bridge.waitFor(
      (frames) => (frames.length >= expectedIds.size + expectedNullErrors + 2 ? true : undefined),
      FUZZ_WAIT_MS,
    );
    const counts = new Map<string, number>();
    let nullErrors = 0;
    for (const frame of bridge.frames.slice(1) as JsonRpcMessage[]) {
      if (Array.isArray(frame)) throw new Error('no batches were sent');
      if (frame.method !== undefined) continue;
      if (frame.id === null) {
        nullErrors += 1;
        continue;
      }
      counts.set(String(frame.id), (counts.get(String(frame.id)) ?? 0) + 1);
    }
    counts.delete('last');
    expect(nullErrors).toBe(expectedNullErrors);
    expect([...counts.keys()].sort()).toEqual([...expectedIds].sort());
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(bridge.child.exitCode).toBeNull();
    expect(await bridge.close()).toBe(0);
  }, 180_000);
});
