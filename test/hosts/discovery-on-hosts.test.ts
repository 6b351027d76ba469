// The server card and the AI Catalog on each edge host's own local runtime: /mcp/server-card is a
// static file beside the worker's /mcp (Pages' _routes.json, Workers' run_worker_first and
// Netlify's edge function path all name /mcp exactly), served with the card's media type and
// readable from any origin, while /mcp itself still answers MCP. The hosts are the ones the tier
// starts once per run over the packed example with skills, whose staticmcp.json sets a public URL
// (test/shared-hosts.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseSharedHost, type SharedHostName, sharedHostOfProject } from '../helpers/shared-hosts.js';

interface HostCase {
  name: string;
  shared: SharedHostName;
}

const HOSTS: HostCase[] = [
  { name: 'Cloudflare Pages (wrangler pages dev)', shared: 'pages-dev' },
  { name: 'Cloudflare Workers static assets (wrangler dev, deploy/wrangler.jsonc)', shared: 'wrangler-dev' },
  { name: 'Netlify (the edge function under Deno, routed by netlify.toml)', shared: 'netlify-deno' },
];

describe.each(HOSTS)('discovery files on $name', ({ shared }) => {
  let host: { url: URL };
  let project: string;
  let config: { name: string; version: string; publicUrl: string };

  beforeAll(async () => {
    ({ project, ...host } = await sharedHostOfProject(shared));
    config = JSON.parse(await fs.readFile(path.join(project, 'staticmcp.json'), 'utf8'));
    expect(config.publicUrl, 'the packed example has a public URL').toMatch(/^https:\/\//);
  }, 180_000);

  // Done with it: the run pauses it while the next host's tests run.
  afterAll(() => releaseSharedHost(shared));

  it('serves /mcp/server-card as a static file with its media type, to any origin', async () => {
    const answer = await fetch(new URL('mcp/server-card', host.url), {
      headers: { accept: 'application/mcp-server-card+json', origin: 'https://another-site.example' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/mcp-server-card+json');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(await answer.json()).toEqual(
      JSON.parse(await fs.readFile(path.join(project, 'dist', 'mcp', 'server-card'), 'utf8')),
    );
    const catalog = await fetch(new URL('.well-known/ai-catalog.json', host.url));
    expect(catalog.status).toBe(200);
    expect(catalog.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(((await catalog.json()) as { entries: { url: string }[] }).entries[0]?.url).toBe(
      new URL('mcp/server-card', config.publicUrl).href,
    );
  });

  it('still answers MCP at /mcp itself', async () => {
    const answer = await fetch(new URL('mcp', host.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'card-test', version: '1' } },
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain(`"serverInfo":{"name":"${config.name}","version":"${config.version}"`);
  });
});
