// Shared by the edge benchmarks: a tree served the way Cloudflare Workers static assets serve it,
// on this machine: the bundled `_worker.js` in workerd (miniflare) with the tree as its assets and
// only /mcp routed to the worker (run_worker_first), on a loopback port.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { repoRoot } from './common.mjs';

export const workerBundle = path.join(repoRoot, 'dist/edge/_worker.js');

/**
 * A stand-in for the asset binding with nothing but workerd's native file service behind it: it
 * drops Range as the Workers asset binding does (the file service alone would answer 206s, and
 * the reader would then read records, not the whole packs Cloudflare sends).
 */
const WHOLE_FILES_WORKER = `export default {
  fetch(request, env) {
    const headers = new Headers(request.headers);
    headers.delete('range');
    return env.DISK.fetch(new Request(request.url, { method: request.method, headers }));
  },
};`;

/**
 * Starts workerd over `treeDir`; resolves with `{ url, close }` (url = the site root). `options` go
 * to Miniflare (`bindings`: text bindings such as secrets; `inspectorPort`), except `workerScript`
 * (another worker's module source than the tree's bundle, answering at /mcp) and `nativeFiles`:
 * serve the files from workerd's native file service (C++) behind WHOLE_FILES_WORKER instead of
 * miniflare's asset router and asset worker, JavaScript that costs ~1 ms of CPU a file read in
 * this process (bench/edge-asset-read.mjs). On Cloudflare those run outside the worker's isolate and
 * are not billed to it, so the process's CPU without them comes closer to what a request is
 * billed. Every request reaches the worker then, not only /mcp.
 */
export async function startWorkerdSite(treeDir, options = {}) {
  const { nativeFiles, inspectorPort, workerScript, ...workerOptions } = options;
  const worker = {
    ...workerOptions,
    modules: [{ type: 'ESModule', path: '_worker.js', contents: workerScript ?? readFileSync(workerBundle, 'utf8') }],
    compatibilityDate: '2025-09-01',
  };
  const miniflare = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
    workers: nativeFiles
      ? [
          { ...worker, serviceBindings: { ASSETS: 'whole-files' } },
          {
            name: 'whole-files',
            modules: true,
            script: WHOLE_FILES_WORKER,
            compatibilityDate: '2025-09-01',
            serviceBindings: { DISK: { disk: { path: path.resolve(treeDir), writable: false } } },
          },
        ]
      : [
          {
            ...worker,
            assets: {
              directory: treeDir,
              binding: 'ASSETS',
              routerConfig: {
                has_user_worker: true,
                invoke_user_worker_ahead_of_assets: false,
                static_routing: { user_worker: ['/mcp'] },
              },
            },
          },
        ],
  });
  const url = await miniflare.ready;
  return { url: new URL('/', url), close: () => miniflare.dispose() };
}
