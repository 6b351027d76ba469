// The hosts' own local runtimes, started as a user would on their own machine: `wrangler pages dev
// <tree>` (Cloudflare Pages), `wrangler dev -c deploy/wrangler.jsonc` (Workers static assets, with
// the file `init` writes), and a plain static host (files, 404 for the rest) that `staticmcp serve
// <URL>` reads. Each listens on loopback only, with telemetry off and a throwaway HOME, and is
// ended with its whole process group.
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { temporaryFolder } from '../helpers/temp-folders.js';

export interface RunningHost {
  /** The site's root, ending in `/`; MCP at `mcp` where the host runs the worker. */
  url: URL;
  close(): Promise<void>;
}

/** The compatibility date the tree's worker is written for, which the pinned workerd supports. */
export const COMPATIBILITY_DATE = '2025-09-01';

const STARTUP_TIMEOUT_MS = 60_000;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function wranglerBin(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js');
}

/** Runs wrangler with `args` and resolves once it says it is ready on `port`. */
async function startWrangler(args: string[], cwd: string): Promise<RunningHost> {
  const home = await temporaryFolder('staticmcp-wrangler-home-');
  const port = await freePort();
  const inspectorPort = await freePort();
  const child = spawn(
    process.execPath,
    [wranglerBin(), ...args, '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort)],
    {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        WRANGLER_SEND_METRICS: 'false',
        CI: 'true',
        NO_COLOR: '1',
      },
    },
  );
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`wrangler ${args[0]} did not start:\n${output}`)),
      STARTUP_TIMEOUT_MS,
    );
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes(`Ready on http://127.0.0.1:${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`wrangler ${args[0]} exited with ${code}:\n${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await endGroup(child);
    throw error;
  }
  return { url: new URL(`http://127.0.0.1:${port}/`), close: () => endGroup(child) };
}

async function endGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const killLater = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, 5_000);
  await exited;
  clearTimeout(killLater);
}

/** Cloudflare Pages: `wrangler pages dev <tree>`, which runs the tree's `_worker.js` in advanced mode. */
export async function startPagesDev(treeDir: string): Promise<RunningHost> {
  const cwd = await temporaryFolder('staticmcp-pages-dev-');
  return startWrangler(['pages', 'dev', treeDir, '--compatibility-date', COMPATIBILITY_DATE], cwd);
}

/** Cloudflare Workers static assets: `wrangler dev` with the `deploy/wrangler.jsonc` that init wrote in `projectDir`. */
export async function startWranglerDev(projectDir: string): Promise<RunningHost> {
  const state = await temporaryFolder('staticmcp-wrangler-state-');
  return startWrangler(['dev', '-c', 'deploy/wrangler.jsonc', '--persist-to', state], projectDir);
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
