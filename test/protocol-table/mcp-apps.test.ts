// MCP Apps on every kind of host: the tree of fixtures/apps through the in-process core, serve
// over stdio, serve --http and the tree's worker in workerd (the protocol table's drivers), then as
// the official SDK client sees it over stdio, HTTP and the worker. Each host
// declares io.modelcontextprotocol/ui (initialize and server/discover), lists the tools with
// _meta.ui.resourceUri, reads the ui:// page with its MIME type and _meta.ui, and answers the
// app's own call back to the tool like any other call. The driver and the SDK client share one
// `serve --http` and one workerd (each of those tests opens its own session or client on them).
// What a page and its tool carry is the core's answer (the in-process driver); `serve <URL>` and
// the other edge runtimes (wrangler pages dev, wrangler dev, Netlify under Deno) only read the
// tree's files and run the same session or the same worker, which the protocol table shows
// answering as the core does (protocol-table.test.ts, runtimes.test.ts), so they are left to it;
// `dev` builds with the build's own code and serves that session (test/dev/dev.test.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { buildAppsProject } from '../helpers/apps-project.js';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { startWorkerdSite, type WorkerdSite } from '../edge/workerd-site.js';
import type { ProtocolResponse } from './cases.js';
import { type Driver, inProcessDriver, sharedNodeHttpDriver, stdioDriver, TABLE_PROTOCOL_VERSION } from './drivers.js';
import { edgeDriver } from './runtime-drivers.js';
import { MODERN_META } from './modern-cases.js';

const APP = 'text/html;profile=mcp-app';
const EXTENSIONS = { 'io.modelcontextprotocol/ui': { mimeTypes: [APP] } };
const FORECAST_UI = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };

let project: string;
let tree: string;
let httpServe: Promise<HttpServe> | undefined;
let workerd: Promise<WorkerdSite> | undefined;

beforeAll(() => {
  project = buildAppsProject();
  tree = path.join(project, 'dist');
});

afterAll(async () => {
  await (await httpServe)?.stop();
  await (await workerd)?.close();
});

/** The file's one `serve --http` of the tree. */
const sharedHttpServe = (): Promise<HttpServe> => {
  httpServe ??= HttpServe.start([tree]);
  return httpServe;
};
/** The file's one workerd running the tree's worker. */
const sharedWorkerd = (): Promise<WorkerdSite> => {
  workerd ??= startWorkerdSite(tree);
  return workerd;
};

function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((item) => item.text ?? '').join('');
}

function expectForecastPage(contents: unknown): void {
  expect(contents).toEqual([
    expect.objectContaining({ uri: 'ui://forecast/index.html', mimeType: APP, _meta: { ui: FORECAST_UI } }),
  ]);
  expect((contents as { text: string }[])[0]!.text).toMatch(/^<!doctype html>[\s\S]*callServerTool[\s\S]*<\/html>\n$/);
}

const DRIVERS: Driver[] = [
  inProcessDriver,
  stdioDriver,
  sharedNodeHttpDriver(sharedHttpServe),
  edgeDriver('workerd', async () => ({ url: (await sharedWorkerd()).url, close: async () => {} })),
];

describe.each(DRIVERS)('the apps tree through $name', (driver) => {
  it('declares the extension, links the tools, serves the pages and answers the app calls', async () => {
    const connection = await driver.open(tree);
    let requests = 0;
    const ask = async (method: string, params?: Record<string, unknown>, era?: 'modern') => {
      requests += 1;
      const response: ProtocolResponse = await connection.request(`apps-${requests}`, method, params, era);
      expect(response.error, `${driver.name} ${method}: ${JSON.stringify(response.error)}`).toBeUndefined();
      return response.result!;
    };
    try {
      const discovered = await ask('server/discover', { _meta: MODERN_META }, 'modern');
      expect((discovered.capabilities as { extensions?: unknown }).extensions).toEqual(EXTENSIONS);
      if (driver.stateless) {
        // Every request stands alone here, so a fresh initialize is answered too.
        const initialized = await ask('initialize', {
          protocolVersion: TABLE_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'apps', version: '1' },
        });
        expect((initialized.capabilities as { extensions?: unknown }).extensions).toEqual(EXTENSIONS);
      }
      const listed = (await ask('tools/list')).tools as { name: string; _meta?: unknown }[];
      expect(listed.find((tool) => tool.name === 'forecast')?._meta).toEqual({
        ui: { resourceUri: 'ui://forecast/index.html' },
        'ui/resourceUri': 'ui://forecast/index.html',
      });
      const resources = (await ask('resources/list')).resources as { uri: string; mimeType: string }[];
      expect(resources.map((resource) => [resource.uri, resource.mimeType])).toEqual([
        ['ui://dashboard/index.html', APP],
        ['ui://echo-app/index.html', APP],
        ['ui://forecast/index.html', APP],
      ]);
      expectForecastPage((await ask('resources/read', { uri: 'ui://forecast/index.html' })).contents);
      expectForecastPage(
        (await ask('resources/read', { uri: 'ui://forecast/index.html', _meta: MODERN_META }, 'modern')).contents,
      );
      // What the forecast app sends when its Tokyo button is pressed: an ordinary tools/call.
      expect(textOf(await ask('tools/call', { name: 'forecast', arguments: { city: 'Tokyo' } }))).toBe(
        'Tokyo: rain, 17 °C\n',
      );
      expect(textOf(await ask('tools/call', { name: 'status', arguments: {} }))).toBe('all systems nominal\n');
      const missing = await connection.request('missing', 'resources/read', { uri: 'ui://nope/index.html' });
      expect(missing.error?.message).toContain('ui://nope/index.html');
    } finally {
      await connection.close();
    }
  });
});

/** An SDK client's whole view of an app: capabilities, the tool's UI, the page, a call back. */
async function expectAppThroughSdk(transport: Transport): Promise<void> {
  const client = new Client({ name: 'apps-sdk', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect(client.getServerCapabilities()?.extensions).toEqual(EXTENSIONS);
    const { tools } = await client.listTools();
    const forecast = tools.find((tool) => tool.name === 'forecast');
    const resourceUri = (forecast?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    expect(resourceUri).toBe('ui://forecast/index.html');
    expect(tools.find((tool) => tool.name === 'echo-app')?._meta).toEqual({
      ui: { resourceUri: 'ui://echo-app/index.html', visibility: ['app'] },
      'ui/resourceUri': 'ui://echo-app/index.html',
    });
    expectForecastPage((await client.readResource({ uri: resourceUri! })).contents);
    expect(textOf(await client.callTool({ name: 'forecast', arguments: { city: 'Lima' } }))).toBe(
      'Lima: overcast, 19 °C\n',
    );
  } finally {
    await client.close();
  }
}

describe('the SDK client', () => {
  it('over stdio (serve <project>: the tree, with its scripts for misses)', async () => {
    await expectAppThroughSdk(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', project], stderr: 'pipe' }),
    );
  });

  it('over HTTP (serve --http)', async () => {
    await expectAppThroughSdk(new StreamableHTTPClientTransport((await sharedHttpServe()).endpoint));
  });

  it('from the worker in workerd', async () => {
    await expectAppThroughSdk(new StreamableHTTPClientTransport(new URL('mcp', (await sharedWorkerd()).url)));
  });
});
