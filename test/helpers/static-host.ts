// A static host of a built tree in the test's own process (GitHub Pages, a bucket): the tree's
// files and nothing else, no MCP endpoint, a folder's URL answered by its index.html, as the
// ASSETS of test/edge/workerd-site.ts answers them. For pages that must meet a host without /mcp,
// where starting workerd with a worker that only passes requests to ASSETS would cost a second of CPU.
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** Content types of the files a built tree serves (anything else: application/octet-stream). */
export const TREE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

export interface StaticHost {
  /** `http://127.0.0.1:<port>/`: the tree's root. */
  url: URL;
  close(): Promise<void>;
}

/**
 * The file below `root` that `pathname` names (a folder's: its index.html, as Cloudflare's assets
 * answer an app's page at apps/<key>/), or undefined outside it; throws URIError for a malformed
 * percent-encoding.
 */
export function resolveTreeFile(root: string, pathname: string): string | undefined {
  const relative = decodeURIComponent(pathname)
    .replace(/^\/+/, '')
    .replace(/(^|\/)$/, '$1index.html');
  const file = path.resolve(root, relative);
  return file.startsWith(`${root}${path.sep}`) ? file : undefined;
}

/** Serves the files of `treeDir` on a loopback port; 404 for anything else. */
export async function startStaticHost(treeDir: string): Promise<StaticHost> {
  const root = path.resolve(treeDir);
  const server = http.createServer((request, response) => {
    let file: string | undefined;
    try {
      file = resolveTreeFile(root, new URL(request.url ?? '/', 'http://host').pathname);
    } catch {}
    const read = file ? fs.readFile(file) : Promise.reject(new Error('outside the tree'));
    read.then(
      (bytes) => {
        const type = TREE_CONTENT_TYPES[path.extname(file ?? '')] ?? 'application/octet-stream';
        response.writeHead(200, { 'content-type': type }).end(bytes);
      },
      () => response.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
