// A built tree deployed the way Cloudflare Pages runs it, on this machine: the tree's own
// `_worker.js` inside workerd (through miniflare, the one test module that imports it), with its
// `ASSETS` binding answered from the tree folder on disk. Listens on a loopback port only.
import { promises as fs } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { resolveTreeFile, TREE_CONTENT_TYPES } from '../helpers/static-host.js';

// Required, not imported: miniflare is one CommonJS file of megabytes in a package without
// "type", which Node's ESM loader parses once more to tell its format, in every worker.
const { Miniflare } = createRequire(import.meta.url)('miniflare') as typeof import('miniflare');
type Miniflare = import('miniflare').Miniflare;

export interface WorkerdSite {
  /** `http://127.0.0.1:<port>/`: the site's root; MCP at `mcp`. */
  url: URL;
  /** How many times the worker asked ASSETS for each path (to prove what was and was not fetched). */
  assetRequests: Map<string, number>;
  close(): Promise<void>;
}

/** A static host over `treeDir`: files only, no listings, nothing outside the folder, 404 otherwise. */
async function serveTreeFile(
  treeDir: string,
  request: IncomingMessage,
  response: ServerResponse,
  counts: Map<string, number>,
): Promise<void> {
  const { pathname } = new URL(request.url ?? '/', 'http://assets');
  counts.set(pathname, (counts.get(pathname) ?? 0) + 1);
  const answer = (status: number, body: string | Buffer, contentType = 'text/plain'): void => {
    response.writeHead(status, { 'content-type': contentType, 'content-length': body.length });
    response.end(body);
  };
  let file: string | undefined;
  try {
    file = resolveTreeFile(treeDir, pathname);
  } catch {
    return answer(400, 'bad path');
  }
  if (file === undefined) return answer(404, 'not found');
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch {
    return answer(404, 'not found');
  }
  answer(200, bytes, TREE_CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream');
}

interface AssetHost {
  /** The worker's `ASSETS` service binding: this host, by its address. */
  binding: { external: { address: string; http: Record<string, never> } };
  close(): void;
}

/**
 * The `ASSETS` binding's host: a Node HTTP server of our own on a loopback port, not a function
 * binding. Miniflare answers a function binding through its loopback server, which closes a
 * kept-alive connection after Node's default 5 s idle; workerd pools those connections, and a
 * request it sends on one as Node closes it fails in the worker with "Network connection lost".
 * On a loaded machine (calls seconds apart) that race was lost in about one run in three. This
 * server never times out an idle connection; workerd closes them when it stops.
 */
async function startAssetHost(treeDir: string, counts: Map<string, number>): Promise<AssetHost> {
  const server = createServer((request, response) => {
    serveTreeFile(treeDir, request, response, counts).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    binding: { external: { address: `127.0.0.1:${port}`, http: {} } },
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** workerd's front URL once it runs; a workerd that fails to start leaves no asset host behind. */
async function readyOrClose(miniflare: Miniflare, assetHosts: AssetHost[]): Promise<URL> {
  try {
    return await miniflare.ready;
  } catch (error) {
    for (const host of assetHosts) host.close();
    throw error;
  }
}

/** Stops workerd, then the asset hosts it read from. */
async function closeAfter(miniflare: Miniflare, assetHosts: AssetHost[]): Promise<void> {
  await miniflare.dispose();
  for (const host of assetHosts) host.close();
}

/** Starts workerd with `workerFile` (default: the tree's `_worker.js`) serving `treeDir`. */
export async function startWorkerdSite(
  treeDir: string,
  workerFile = path.join(treeDir, '_worker.js'),
  /** Text bindings, as a deployment's secrets (`STATICMCP_ORIGIN_KEY`). */
  bindings: Record<string, string> = {},
): Promise<WorkerdSite> {
  const root = path.resolve(treeDir);
  const assetRequests = new Map<string, number>();
  const assets = await startAssetHost(root, assetRequests);
  const miniflare = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    compatibilityDate: '2025-09-01',
    modules: [{ type: 'ESModule', path: '_worker.js', contents: await fs.readFile(workerFile, 'utf8') }],
    bindings,
    serviceBindings: { ASSETS: assets.binding },
  });
  const url = await readyOrClose(miniflare, [assets]);
  return { url: new URL('/', url), assetRequests, close: () => closeAfter(miniflare, [assets]) };
}

export interface WorkerdSiteOptions {
  treeDir: string;
  /** Default: the tree's `_worker.js`. */
  workerFile?: string;
  /** Text bindings, as a deployment's secrets (`STATICMCP_ORIGIN_KEY`). */
  bindings?: Record<string, string>;
}

/**
 * Starts ONE workerd serving `sites`, each at the root of a port of its own, by its own worker with
 * its own bindings and `ASSETS`, as if each were deployed alone: what `startWorkerdSite` does for
 * each, for a workerd start (about a second of CPU) instead of one per site. The first site is
 * reached through miniflare's front, as `startWorkerdSite`'s is (requests carry `request.cf`);
 * the others by a socket straight to their worker, without `request.cf`, as on a host that is not
 * Cloudflare. Closing any site closes them all.
 */
export async function startWorkerdSitesOnPorts<const Sites extends readonly WorkerdSiteOptions[]>(
  sites: Sites,
): Promise<{ [Position in keyof Sites]: WorkerdSite }> {
  const counts = sites.map(() => new Map<string, number>());
  const assetHosts: AssetHost[] = [];
  const workers = await Promise.all(
    sites.map(async (site, position) => {
      const root = path.resolve(site.treeDir);
      const assets = await startAssetHost(root, counts[position]!);
      assetHosts.push(assets);
      return {
        name: `site-${position}`,
        compatibilityDate: '2025-09-01',
        modules: [
          {
            type: 'ESModule' as const,
            path: '_worker.js',
            contents: await fs.readFile(site.workerFile ?? path.join(root, '_worker.js'), 'utf8'),
          },
        ],
        bindings: site.bindings ?? {},
        serviceBindings: { ASSETS: assets.binding },
        unsafeDirectSockets: position === 0 ? [] : [{ host: '127.0.0.1', port: 0 }],
      };
    }),
  );
  const miniflare = new Miniflare({ host: '127.0.0.1', port: 0, workers });
  const front = await readyOrClose(miniflare, assetHosts);
  const urls = await Promise.all(
    workers.map((worker, position) =>
      position === 0 ? new URL('/', front) : miniflare.unsafeGetDirectURL(worker.name),
    ),
  );
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= closeAfter(miniflare, assetHosts);
    return closed;
  };
  return urls.map((url, position) => ({ url: new URL('/', url), assetRequests: counts[position]!, close })) as {
    [Position in keyof Sites]: WorkerdSite;
  };
}

/**
 * Starts ONE workerd serving several trees, each by its own `_worker.js` with its own `ASSETS`, as
 * if each were deployed alone: a router worker in front sends `/<name>/<path>` to tree `name`'s
 * worker as `/<path>`. One process instead of one per tree, for files that start many small sites.
 * Returns each tree's root URL (MCP at `mcp` below it).
 */
export async function startWorkerdSites(
  trees: Record<string, string>,
): Promise<{ urls: Record<string, URL>; close(): Promise<void> }> {
  const names = Object.keys(trees);
  for (const name of names)
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`tree name "${name}": use lower-case letters, digits and -`);
  // Each tree's worker is named t-<name>, so no tree can take the router's name.
  const router = `export default {
    async fetch(request, env) {
      const url = new URL(request.url);
      const [, name, ...rest] = url.pathname.split('/');
      const worker = env['t-' + name];
      if (!worker) return new Response('no such tree', { status: 404 });
      url.pathname = '/' + rest.join('/');
      return worker.fetch(new Request(url, request));
    },
  };`;
  const assetHosts: AssetHost[] = [];
  const workers = await Promise.all(
    names.map(async (name) => {
      const root = path.resolve(trees[name]!);
      const assets = await startAssetHost(root, new Map());
      assetHosts.push(assets);
      return {
        name: `t-${name}`,
        compatibilityDate: '2025-09-01',
        modules: [
          {
            type: 'ESModule' as const,
            path: '_worker.js',
            contents: await fs.readFile(path.join(root, '_worker.js'), 'utf8'),
          },
        ],
        serviceBindings: { ASSETS: assets.binding },
      };
    }),
  );
  const miniflare = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    workers: [
      {
        name: 'router',
        compatibilityDate: '2025-09-01',
        modules: [{ type: 'ESModule', path: 'router.js', contents: router }],
        serviceBindings: Object.fromEntries(names.map((name) => [`t-${name}`, `t-${name}`])),
      },
      ...workers,
    ],
  });
  const url = await readyOrClose(miniflare, assetHosts);
  return {
    urls: Object.fromEntries(names.map((name) => [name, new URL(`/${name}/`, url)])),
    close: () => closeAfter(miniflare, assetHosts),
  };
}
