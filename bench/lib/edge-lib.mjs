// Shared by the edge benchmarks: a tree served the way Cloudflare Workers static assets serve it,
// on this machine: the bundled `_worker.js` in workerd (miniflare) with the tree as its assets and
// only /mcp routed to the worker (run_worker_first), on a loopback port.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { repoRoot } from './common.mjs';

export const workerBundle = path.join(repoRoot, 'dist/edge/_worker.js');

/** Starts workerd over `treeDir`; resolves with `{ url, close }` (url = the site root). `options` go to Miniflare (`bindings`: text bindings such as secrets). */
export async function startWorkerdSite(treeDir, options = {}) {
  const miniflare = new Miniflare({
    ...options,
    host: '127.0.0.1',
    port: 0,
    compatibilityDate: '2025-09-01',
    modules: [{ type: 'ESModule', path: '_worker.js', contents: readFileSync(workerBundle, 'utf8') }],
    assets: {
      directory: treeDir,
      binding: 'ASSETS',
      routerConfig: {
        has_user_worker: true,
        invoke_user_worker_ahead_of_assets: false,
        static_routing: { user_worker: ['/mcp'] },
      },
    },
  });
  const url = await miniflare.ready;
  return { url: new URL('/', url), close: () => miniflare.dispose() };
}
