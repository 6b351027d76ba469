// serve --http answers one made-up request in-process once it listens
// (src/hosts/node/http/warm-first-request.ts), so that a client's first call does not compile
// node:http's and the handler's way: no client may see it. Past it, stderr holds only the endpoint
// lines, and a client's first call gets the answer every later identical call gets: its file's result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtExample } from '../helpers/example.js';
import { HttpServe, post } from '../helpers/http-serve.js';

/** Well past the preload and the made-up request, which start as the server listens. */
const PAST_WARM_MS = 1500;
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'capital' };

let serve: HttpServe;

beforeAll(async () => {
  serve = await HttpServe.start([builtExample()]);
});

afterAll(async () => {
  await serve.stop();
});

describe('the made-up request after listening', () => {
  it('prints nothing, and the first call answers as every later one does', async () => {
    await new Promise((resolve) => setTimeout(resolve, PAST_WARM_MS));
    expect(serve.stderr).toBe(`MCP endpoint: ${serve.base}/mcp\nStatic site: ${serve.base}/\n`);
    const ask = async (id: number) => {
      const answer = await post(
        serve.port,
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'capital', arguments: { country: 'France' }, _meta: META },
        },
        HEADERS,
      );
      expect(answer.status).toBe(200);
      return answer.json();
    };
    const first = await ask(1);
    // tools/capital/france.json without the arguments it records.
    expect(first).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Paris\n' }] } });
    expect((await ask(2)).result).toEqual(first.result);
    expect(serve.stderr).toBe(`MCP endpoint: ${serve.base}/mcp\nStatic site: ${serve.base}/\n`);
  });
});
