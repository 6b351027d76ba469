// The protocol table's drivers for the hosts that run in another runtime: the edge worker in
// workerd (miniflare), wrangler pages dev, wrangler dev and Netlify's edge function under Deno.
// Each request stands alone (no session), as on the edge.
import path from 'node:path';
import { startWorkerdSite } from '../edge/workerd-site.js';
import { sseMessages } from '../helpers/http-serve.js';
import { type SharedHostName, sharedHost } from '../helpers/shared-hosts.js';
import { addInitDeployFiles, startNetlifyUnderDeno, startPagesDev, startWranglerDev } from '../hosts/host-runtimes.js';
import type { ProtocolResponse } from './cases.js';
import { type Connection, type Driver, INITIALIZE_PARAMS, modernHeaders, TABLE_PROTOCOL_VERSION } from './drivers.js';

/** A driver for a host that runs the tree's own _worker.js at `<site>/mcp`, stateless. */
export function edgeDriver(
  name: string,
  start: (treeRoot: string) => Promise<{ url: URL; close(): Promise<void> }>,
): Driver {
  return {
    name,
    stateless: true,
    open: async (treeRoot) => openEdgeConnection(await start(treeRoot)),
  };
}

/** The tree's own _worker.js in workerd (miniflare), with ASSETS answered from the folder. */
export const workerdDriver = edgeDriver('workerd', startWorkerdSite);
/** Cloudflare Pages' own local runtime: `wrangler pages dev <tree>`. */
export const pagesDevDriver = edgeDriver('wrangler-pages-dev', startPagesDev);
/** Cloudflare Workers static assets: `wrangler dev` with the deploy/wrangler.jsonc init writes, beside the tree. */
export const wranglerDevDriver = edgeDriver('wrangler-dev', async (treeRoot) => {
  await addInitDeployFiles(projectOf(treeRoot));
  return startWranglerDev(projectOf(treeRoot));
});
/** Netlify: the edge function init writes, run by Deno behind a static server routed by netlify.toml. */
export const netlifyDenoDriver = edgeDriver('netlify-deno', async (treeRoot) => {
  await addInitDeployFiles(projectOf(treeRoot));
  return startNetlifyUnderDeno(projectOf(treeRoot));
});

/**
 * A driver for a runtime the runtimes tier shares (test/helpers/shared-hosts.ts), named as the
 * driver that starts its own: the tree it is given must be the one that host serves.
 */
export function sharedExampleDriver(name: string, host: SharedHostName): Driver {
  return {
    name,
    stateless: true,
    // The host belongs to the run: closing the connection leaves it running.
    open: async () => openEdgeConnection({ url: await sharedHost(host), close: async () => {} }),
  };
}

/** The project a tree was built from, where the deploy files init writes expect it (../dist). */
function projectOf(treeRoot: string): string {
  if (path.basename(treeRoot) !== 'dist') throw new Error('the deploy files serve ../dist: build into dist/');
  return path.dirname(treeRoot);
}

const WRANGLER_RESTARTED = 'Your worker restarted mid-request';

/** Every POST carries the version header: an edge host keeps no session. */
async function openEdgeConnection(site: { url: URL; close(): Promise<void> }): Promise<Connection> {
  const endpoint = new URL('mcp', site.url);
  const send = async (message: Record<string, unknown>, era?: 'modern'): Promise<ProtocolResponse> => {
    const versionHeaders =
      era === 'modern'
        ? modernHeaders(message.method as string, message.params as Record<string, unknown> | undefined)
        : { 'mcp-protocol-version': TABLE_PROTOCOL_VERSION };
    const post = () =>
      fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...versionHeaders,
        },
        body: JSON.stringify(message),
      });
    let answer = await post();
    let text = await answer.text();
    // wrangler restarts its worker when its file watcher fires (on a loaded machine, sometimes just
    // after "Ready"), and answers a POST caught by the restart with this text instead of retrying it.
    for (let retry = 0; retry < 3 && text.startsWith(WRANGLER_RESTARTED); retry += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      answer = await post();
      text = await answer.text();
    }
    const messages = (answer.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ? sseMessages(text)
      : [JSON.parse(text)];
    return messages.at(-1) as ProtocolResponse;
  };
  await send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INITIALIZE_PARAMS });
  return {
    request: (id, method, params, era) => send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, era),
    close: () => site.close(),
  };
}
