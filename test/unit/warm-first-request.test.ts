// serve --http's made-up first request (src/hosts/node/http/warm-first-request.ts) asks for nothing
// that could run a script or reach the network: a tools/call of a tool without live runs, on a
// tree in a local folder, and otherwise a ping.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerContext } from '../../src/core/mcp/server-context.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { warmMessage } from '../../src/hosts/node/http/warm-first-request.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { LOOKUP_MANIFEST } from '../helpers/lookup-manifest.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

async function serverOf(live: boolean): Promise<ServerContext> {
  const root = await temporaryFolder('staticmcp-warm-request-');
  const manifest = structuredClone(LOOKUP_MANIFEST);
  manifest.staticmcp.tools.lookup.live = live;
  await fs.writeFile(path.join(root, 'mcp.json'), JSON.stringify(manifest));
  return createNodeServerContext({ source: new FolderSource(root, 'lookup'), logProblem: () => {} });
}

describe("serve --http's warm request", () => {
  it('calls a tool that runs no script, with arguments its schema accepts, in the 2026-07-28 era', async () => {
    const message = warmMessage(await serverOf(false));
    expect(message.method).toBe('tools/call');
    expect(message.name).toBe('lookup');
    expect(JSON.parse(message.body)).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'tools/call',
      params: {
        name: 'lookup',
        arguments: { n: 1 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
  });

  it('is a ping when every tool may run its script', async () => {
    const message = warmMessage(await serverOf(true));
    expect(message.method).toBe('ping');
    expect(message.name).toBeUndefined();
    expect(JSON.parse(message.body).method).toBe('ping');
  });
});
