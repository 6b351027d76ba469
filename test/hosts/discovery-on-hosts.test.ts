// The server card and the AI Catalog on each edge host's own local runtime: /mcp/server-card is a
// static file beside the worker's /mcp (Pages' _routes.json, Workers' run_worker_first and
// Netlify's edge function path all name /mcp exactly), served with the card's media type and
// readable from any origin, while /mcp itself still answers MCP.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJson } from '../helpers/cli.js';
import { makeProject } from '../helpers/projects.js';
import {
  addInitDeployFiles,
  type RunningHost,
  startNetlifyUnderDeno,
  startPagesDev,
  startWranglerDev,
} from './host-runtimes.js';

interface HostCase {
  name: string;
  start(project: string): Promise<RunningHost>;
}

const HOSTS: HostCase[] = [
  { name: 'Cloudflare Pages (wrangler pages dev)', start: (project) => startPagesDev(path.join(project, 'dist')) },
  {
    name: 'Cloudflare Workers static assets (wrangler dev, deploy/wrangler.jsonc)',
    start: (project) => startWranglerDev(project),
  },
  { name: 'Netlify (the edge function under Deno, routed by netlify.toml)', start: startNetlifyUnderDeno },
];

let project: string;
/** Each host's start, in HOSTS' order: the three runtimes start side by side over the one project, which they only read. */
let starts: PromiseSettledResult<RunningHost>[] = [];

beforeAll(async () => {
  project = await makeProject({
    tools: { ok: 'ok' },
    config: { name: 'weather', version: '1.2.3', publicUrl: 'https://weather.example.com' },
  });
  const { code, stderr } = await buildJson(project);
  expect(code, stderr).toBe(0);
  await addInitDeployFiles(project);
  starts = await Promise.allSettled(HOSTS.map((hostCase) => hostCase.start(project)));
  // The hook budget of the three hosts' own hooks before they started side by side.
}, 180_000);

afterAll(async () => {
  await Promise.all(starts.map((start) => (start.status === 'fulfilled' ? start.value.close() : undefined)));
});

describe.each(HOSTS.map((hostCase, index) => ({ ...hostCase, index })))('discovery files on $name', ({ index }) => {
  let host: RunningHost;

  beforeAll(() => {
    const start = starts[index];
    if (start?.status !== 'fulfilled') throw start?.reason ?? new Error('the host was not started');
    host = start.value;
  });

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
      'https://weather.example.com/mcp/server-card',
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
    expect(await answer.text()).toMatch(/"serverInfo":\{"name":"weather","version":"1\.2\.3"/);
  });
});
