// The tree's own files at `/`, the way a static host serves them (the only module that loads
// serve-handler): index.html for `/`, content types, the tree's `_headers` rules, ETag and 304,
// no directory listings, and nothing outside the tree (a symlink that leads out reads as missing,
// like in FolderSource). The hosts' control files (`_headers`, `_worker.js`, `_routes.json`,
// `_redirects`) are not served, as on Cloudflare Pages and Netlify.
import { promises as fs, type Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import serveHandler from 'serve-handler';
import { headersFor, parseHeadersFile, type HeaderRule } from './headers-file.js';

const CONTROL_FILES = new Set(['/_headers', '/_worker.js', '/_routes.json', '/_redirects']);

export interface StaticTree {
  serve(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

function notFound(): NodeJS.ErrnoException {
  return Object.assign(new Error('not found'), { code: 'ENOENT' });
}

function sendPlain(response: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  response.end(`${text}\n`);
}

function titleCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

export async function openStaticTree(root: string, logProblem: (text: string) => void): Promise<StaticTree> {
  const realRoot = await fs.realpath(root);
  // Read once: the file belongs to the build, and a rebuild under `serve` also restarts it.
  const rules: HeaderRule[] = parseHeadersFile(
    await fs.readFile(path.join(realRoot, '_headers'), 'utf8').catch(() => ''),
  );

  /** lstat, but a path whose real location is outside the tree does not exist. */
  const lstatInside = async (file: string): Promise<Stats> => {
    const stats = await fs.lstat(file);
    const real = await fs.realpath(file);
    if (real !== realRoot && !real.startsWith(`${realRoot}${path.sep}`)) throw notFound();
    return stats;
  };

  return {
    async serve(request, response) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        sendPlain(response, 405, 'Method Not Allowed: the site is read-only (MCP is at /mcp)', { allow: 'GET, HEAD' });
        return;
      }
      let urlPath: string;
      try {
        urlPath = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
      } catch {
        sendPlain(response, 400, 'Bad Request');
        return;
      }
      if (CONTROL_FILES.has(urlPath) || urlPath.includes('\0')) {
        sendPlain(response, 404, 'Not Found');
        return;
      }
      // serve-handler's own headers are Title-Case (Content-Type): the same spelling replaces them.
      const headers = Object.entries(headersFor(rules, urlPath)).map(([key, value]) => ({
        key: titleCase(key),
        value,
      }));
      await serveHandler(
        request,
        response,
        {
          public: realRoot,
          directoryListing: false,
          etag: true,
          symlinks: true,
          // `/` → index.html, and `/index.html` redirects to `/`, as on Cloudflare Pages.
          cleanUrls: true,
          headers: headers.length > 0 ? [{ source: '**', headers }] : [],
        },
        {
          lstat: lstatInside,
          realpath: (file: string) => fs.realpath(file),
          // Fixed texts: an error page must not show where the tree lives.
          sendError: async (_absolutePath, errorResponse, _acceptsJson, _current, _handlers, _config, spec) => {
            if (spec.statusCode >= 500) logProblem(`serving ${urlPath} failed: ${String(spec.err ?? spec.message)}`);
            sendPlain(
              errorResponse,
              spec.statusCode,
              spec.statusCode === 404 ? 'Not Found' : spec.statusCode === 400 ? 'Bad Request' : 'Internal Server Error',
            );
          },
        },
      );
    },
  };
}
