// A tree whose `staticmcp` extension is partial or odd (an older staticmcp, a hand-edited mcp.json,
// another generator that borrowed the key): it still loads, the facts it states are used, and what
// it leaves out or gets wrong means "not known" instead of crashing a request.
import { afterEach, describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { firstText } from '../helpers/results.js';

const running: RawBridge[] = [];
afterEach(async () => {
  for (const bridge of running.splice(0)) await bridge.close();
});

async function serve(tree: string): Promise<RawBridge> {
  const bridge = new RawBridge([tree]);
  running.push(bridge);
  await bridge.initialize();
  return bridge;
}

describe('a tree with a partial staticmcp extension', () => {
  it('answers precomputed calls in the declared parameter order, and says a missing one was not precomputed', async () => {
    const tree = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-11-25',
        serverInfo: { name: 'partial', version: '1.0.0' },
        capabilities: {
          tools: [
            {
              name: 'add',
              inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
            },
          ],
          resources: [],
        },
        // No parameterOrder, script, timeout or profile version; a live flag without a script; a
        // state resource that is not a script path.
        staticmcp: { tools: { add: { precomputed: 1, live: true } }, stateResources: { 'x://y': 5 } },
      },
      'tools/add/1/2.json': { content: [{ type: 'text', text: '3\n' }] },
    });
    const bridge = await serve(tree);
    const listed = await bridge.request('tools/list');
    expect(((listed.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name)).toEqual(['add']);

    const hit = await bridge.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    expect(hit.error).toBeUndefined();
    expect(firstText(hit.result)).toBe('3\n');

    const miss = await bridge.request('tools/call', { name: 'add', arguments: { a: 2, b: 2 } });
    expect(miss.error).toBeUndefined();
    expect(miss.result?.isError).toBe(true);
    expect(firstText(miss.result)).toContain('this call was not precomputed');
    expect(bridge.stderr).not.toMatch(/TypeError|Cannot read/);
  });
});
