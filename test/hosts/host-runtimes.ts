// The hosts' own local runtimes, started as a user would on their own machine: `wrangler pages dev
// <tree>` (Cloudflare Pages), `wrangler dev -c deploy/wrangler.jsonc` (Workers static assets, with
// the file `init` writes), Netlify's edge function under Deno (test/hosts/host-processes.ts starts
// them, with throwaway folders removed after the test file), and a plain static host (files, 404
// for the rest) that `staticmcp serve <URL>` reads. Files that only read the built example use the
// runtimes started once per run instead (test/helpers/shared-hosts.ts).
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CLI } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import * as processes from './host-processes.js';

export { COMPATIBILITY_DATE, type RunningHost } from './host-processes.js';
type RunningHost = processes.RunningHost;

/** Copies the deploy files `staticmcp init` writes (deploy/, netlify.toml) into a built project, as init renders them. */
export function addInitDeployFiles(projectDir: string): Promise<void> {
  return processes.addInitDeployFiles(CLI, projectDir, temporaryFolder);
}

/**
 * Cloudflare Pages: `wrangler pages dev <tree>`, which runs the tree's `_worker.js` in advanced mode,
 * from `cwd` (where wrangler reads a `.dev.vars` file of local secrets), else an empty folder.
 */
export function startPagesDev(treeDir: string, cwd?: string): Promise<RunningHost> {
  return processes.startPagesDev(treeDir, cwd, temporaryFolder);
}

/** Cloudflare Workers static assets: `wrangler dev` with the `deploy/wrangler.jsonc` that init wrote in `projectDir`. */
export function startWranglerDev(projectDir: string): Promise<RunningHost> {
  return processes.startWranglerDev(projectDir, temporaryFolder);
}

/**
 * Netlify: the netlify.toml and deploy/netlify/ that init wrote in `projectDir`, the edge function
 * run by Deno (Netlify's edge runtime) behind a static server that routes as netlify.toml says.
 */
export function startNetlifyUnderDeno(projectDir: string): Promise<RunningHost> {
  return processes.startNetlifyUnderDeno(projectDir, temporaryFolder);
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
};

/** A plain static host (GitHub Pages, a bucket, any CDN): files as they are, 404 for the rest. */
export async function startStaticHost(treeDir: string): Promise<RunningHost> {
  const root = path.resolve(treeDir);
  const server = http.createServer(async (request, response) => {
    let relative: string;
    try {
      relative = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    } catch {
      response.writeHead(400).end();
      return;
    }
    const file = path.resolve(root, relative || 'index.html');
    try {
      if (!file.startsWith(`${root}${path.sep}`)) throw new Error('outside');
      const body = await fs.readFile(file);
      response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
