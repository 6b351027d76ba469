// The tree's own files at `/`, the way a static host serves them (the only module that loads
// serve-handler): index.html for `/`, content types, the tree's `_headers` rules, ETag and 304,
// no directory listings, and nothing outside the tree (a symlink that leads out reads as missing,
// like in FolderSource). Never served: dotfiles and the hosts' control files (static-path.ts), and
// anything that is not a regular file (a named pipe would hold a read open forever).
//
// Who may read it follows /mcp's origin rule (origin-rule.ts), not the tree's `_headers`: that
// file's `Access-Control-Allow-Origin: *` is meant for the public deployed site, while a tree
// served on this machine may hold what only its owner should read, and any web page the owner
// visits could otherwise fetch it from localhost. A page from an origin the rule refuses gets 403
// (not merely a missing CORS header): the file's bytes never reach that browser at all, and the
// developer sees why and what to change. Discovery documents (`/.well-known/…`, a server card)
// stay readable by every page.
import {
  close,
  constants,
  createReadStream,
  fstat,
  promises as fs,
  open,
  type ReadStream,
  read,
  type Stats,
} from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import serveHandler from 'serve-handler';
import { readRegularFile } from '../../../shared/read-regular-file.js';
import { headersFor, parseHeadersFile, type HeaderRule } from './headers-file.js';
import type { OriginRule } from './origin-rule.js';
import { isHiddenTreePath, isPublicDiscoveryPath, resolveStaticTarget, WELL_KNOWN_FOLDER } from './static-path.js';

export interface StaticTree {
  serve(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

function notFound(): NodeJS.ErrnoException {
  return Object.assign(new Error('not found'), { code: 'ENOENT' });
}

/** Opens without blocking on a pipe or device (O_NONBLOCK) and never through a link (the path is already real). */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

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

/** How often a request may look whether `_headers` changed (a rebuild replaced it). */
const HEADERS_CHECK_MS = 1000;

export interface StaticTreeOptions {
  origins: OriginRule;
  logProblem: (text: string) => void;
}

export async function openStaticTree(root: string, { origins, logProblem }: StaticTreeOptions): Promise<StaticTree> {
  const realRoot = await fs.realpath(root);
  // The file belongs to the build, and a rebuild swaps it under a running `serve` (tree-switch.ts):
  // read again when its identity changed, looked at no more than once a second.
  const headersFile = path.join(realRoot, '_headers');
  let rules: HeaderRule[] = [];
  let rulesIdentity: string | undefined;
  let rulesCheckedAtMs = Number.NEGATIVE_INFINITY;
  const currentRules = async (): Promise<HeaderRule[]> => {
    const nowMs = Date.now();
    if (nowMs - rulesCheckedAtMs < HEADERS_CHECK_MS) return rules;
    rulesCheckedAtMs = nowMs;
    const stats = await fs.stat(headersFile).catch(() => undefined);
    const identity = stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : '';
    if (identity !== rulesIdentity) {
      rulesIdentity = identity;
      rules = parseHeadersFile(stats ? await readRegularFile(headersFile, 'utf8').catch(() => '') : '');
    }
    return rules;
  };
  await currentRules();

  /** The real path of `file` when it may be served: inside the tree, not hidden once links are followed. */
  const realServablePath = async (file: string): Promise<string> => {
    const real = await fs.realpath(file);
    if (real === realRoot) return real;
    if (!real.startsWith(`${realRoot}${path.sep}`)) throw notFound();
    // A link inside the tree (`notes.txt` → `.env`) must not reveal what its target's name hides.
    if (isHiddenTreePath(path.relative(realRoot, real).split(path.sep))) throw notFound();
    return real;
  };

  /**
   * serve-handler's `lstat`, answered with the link's target: a folder or a regular file inside
   * the tree, else "missing". serve-handler then never sees a link (so never stats its target
   * outside this check), and a pipe, socket or device is never opened.
   */
  const statServable = async (file: string): Promise<Stats> => {
    const stats = await fs.stat(await realServablePath(file));
    if (!stats.isFile() && !stats.isDirectory()) throw notFound();
    return stats;
  };

  /**
   * serve-handler's `createReadStream` (it expects a stream back at once): the file is opened by
   * its real path without blocking and refused unless it is still a regular file, so a file
   * swapped for a pipe after the stat above cannot hold a read open.
   */
  const openServable = (file: string, options: { start?: number; end?: number } = {}): ReadStream =>
    createReadStream(file, {
      ...options,
      fs: {
        open: (
          _path: string,
          _flags: unknown,
          _mode: unknown,
          callback: (error: Error | null, fd?: number) => void,
        ) => {
          realServablePath(file).then((real) => {
            // A raw descriptor (not a FileHandle, which would close it when collected): the stream owns it.
            open(real, OPEN_FLAGS, (openError, fd) => {
              if (openError) return callback(openError);
              fstat(fd, (statError, stats) => {
                if (!statError && stats.isFile()) return callback(null, fd);
                close(fd, () => callback(statError ?? notFound()));
              });
            });
          }, callback);
        },
        read,
        close,
      },
    } as Parameters<typeof createReadStream>[1]);

  return {
    async serve(request, response) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        sendPlain(response, 405, 'Method Not Allowed: the site is read-only (MCP is at /mcp)', { allow: 'GET, HEAD' });
        return;
      }
      const target = resolveStaticTarget(request.url ?? '/');
      if (target.kind === 'refused') {
        sendPlain(response, target.status, target.status === 404 ? 'Not Found' : 'Bad Request');
        return;
      }
      const { urlPath } = target;
      const ruleHeaders = headersFor(await currentRules(), urlPath);
      if (isPublicDiscoveryPath(target.segments)) {
        ruleHeaders['access-control-allow-origin'] ??= '*';
      } else {
        const refusal = refuseReader(request, origins);
        if (refusal) {
          sendPlain(response, 403, refusal);
          return;
        }
        // The deploy hosts' CORS rules are replaced by the origin rule's answer, named per origin
        // (never `*`: a browser cache would hand that copy to any other page).
        for (const name of Object.keys(ruleHeaders)) if (name.startsWith('access-control-')) delete ruleHeaders[name];
        const origin = request.headers.origin;
        if (origin !== undefined) ruleHeaders['access-control-allow-origin'] = origin;
        ruleHeaders.vary = 'Origin';
      }
      // serve-handler's own headers are Title-Case (Content-Type): the same spelling replaces them.
      const headers = Object.entries(ruleHeaders).map(([key, value]) => ({ key: titleCase(key), value }));
      // serve-handler reads the target again: it gets only the path checked above.
      request.url = target.encodedPath;
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
          // The headers are this request's own; serve-handler matches sources with minimatch, whose
          // `**` skips dot folders, so the one dot folder served is named too.
          headers: headers.length > 0 ? ['**', `${WELL_KNOWN_FOLDER}/**`].map((source) => ({ source, headers })) : [],
        },
        {
          lstat: statServable,
          realpath: realServablePath,
          createReadStream: openServable,
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

/**
 * Why a browser request may not read the site, or undefined when it may. A page states its origin
 * on a CORS read (`fetch`); a `<script>` or `<img>` load from another site sends none, only
 * `Sec-Fetch-Site: cross-site`, and is refused too (a script resource would run in that page).
 * Following a link (a navigation) is allowed: the page that linked cannot read what opens.
 */
function refuseReader(request: IncomingMessage, origins: OriginRule): string | undefined {
  if (origins.allowsEveryReader()) return undefined;
  const origin = request.headers.origin;
  const hint = 'add the origin to http.allowedOrigins in staticmcp.json and build again (as for /mcp)';
  if (origin !== undefined) {
    return origins.allows(origin, false)
      ? undefined
      : `Forbidden: pages from ${origin} may not read this site; ${hint}`;
  }
  if (request.headers['sec-fetch-site'] === 'cross-site' && request.headers['sec-fetch-mode'] !== 'navigate')
    return `Forbidden: pages of other sites may not load this site's files; ${hint}`;
  return undefined;
}
