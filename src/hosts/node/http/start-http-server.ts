// `staticmcp serve … --http`: one node:http server with MCP Streamable HTTP at /mcp (sessions,
// live runs) and the tree's files everywhere else. Slow clients cannot hold it (header, request
// and keep-alive timeouts), the Host header is checked on every request (DNS rebinding), and
// SIGINT/SIGTERM end every session (live scripts killed) before the process exits 0. A tree in a
// folder is switched when rebuilt (tree-switch.ts), and every session told; `dev --http` asks
// for the switch after each rebuild through the controls `openHttpServer` hands back.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAllowedHost } from '../../../core/mcp/http/host-check.js';
import {
  createMcpHttpHandler,
  DEFAULT_MAX_BODY_BYTES,
  type McpHttpHandler,
} from '../../../core/mcp/http/streamable-http.js';
import { preloadRequestHandling } from '../../../core/mcp/handler-table.js';
import type { PackFileSource } from '../../../core/packs/pack-reader.js';
import type { TreeSource } from '../../../core/tree/tree-source.js';
import { createNodeServerContext } from '../node-server-context.js';
import { readHttpLimits } from './http-limits.js';
import { guardServerProcess } from '../process-guard.js';
import { allowedHostsFor, bracketIpv6, isLoopbackHost } from './host-rules.js';
import { createOriginRule } from './origin-rule.js';
import { exchangeOfNodeRequest, writeAnswer } from './node-exchange.js';
import { warmFirstRequest } from './warm-first-request.js';
import { escapeTerminalText } from '../../../shared/terminal-text.js';
import type { RunningBridge } from '../start-bridge.js';
import { attachTreeSwitch, readTreeCheckIntervalMs, readTreeIdentity } from '../tree-switch.js';

export const MCP_PATH = '/mcp';
/** A client gets this long to send its request headers, and this long for the whole request. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node looks for requests past those timeouts. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** What a refused body may still send before the connection is cut rather than drained. */
const MAX_DRAINED_BODY_BYTES = 16 * 1024 * 1024;
/** An idle keep-alive connection is closed after this. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export interface HttpServeOptions {
  source: TreeSource;
  /** Binary reads of the same tree (the search index); without them no search tools. */
  packFiles?: PackFileSource;
  /** The tree's folder, served at `/`; undefined for a URL source (then `/` only names the endpoint). */
  treeRoot?: string;
  projectRoot?: string;
  liveConcurrency?: number;
  host: string;
  port: number;
  allowedHosts: readonly string[];
  logPrefix?: string;
  /** Per-client caps (--client-sessions, --client-live-runs); undefined = the handler's defaults. */
  maxSessionsPerClient?: number;
  maxLiveRunsPerClient?: number;
  /** `staticmcp dev --http`: the tree is rebuilt on change (list changes and subscriptions are offered). */
  dev?: boolean;
}

/** Listens, prints the endpoint, and resolves with the exit code once a signal stopped it. */
export async function startHttpServer(options: HttpServeOptions): Promise<number> {
  return (await openHttpServer(options)).finished;
}

/** Listens and prints the endpoint; hands back the controls `dev --http` needs, as openBridge does. */
export async function openHttpServer(options: HttpServeOptions): Promise<RunningBridge> {
  const prefix = options.logPrefix ?? 'staticmcp serve';
  const logProblem = (text: string): void => {
    // Text from clients (a URI, a tool name) and trees reaches this line: never raw escapes.
    process.stderr.write(`${prefix}: ${escapeTerminalText(text)}\n`);
  };
  const limits = readHttpLimits();
  const { treeRoot } = options;
  const checkIntervalMs = treeRoot !== undefined ? readTreeCheckIntervalMs() : 0;
  // Read before the tree is loaded: a rebuild that lands meanwhile is then seen as one.
  const loadedIdentity = treeRoot !== undefined ? readTreeIdentity(treeRoot) : undefined;
  const context = await createNodeServerContext({
    source: options.source,
    packFiles: options.packFiles,
    projectRoot: options.projectRoot,
    liveConcurrency: options.liveConcurrency,
    dev: options.dev,
    logProblem,
  });
  let mcp: McpHttpHandler | undefined;
  const treeSwitch =
    treeRoot === undefined
      ? undefined
      : attachTreeSwitch(context, {
          treeRoot,
          source: options.source,
          packFiles: options.packFiles,
          loadedIdentity,
          checkIntervalMs,
          notify: async (changes) => {
            const updated = new Set<string>();
            for (const session of mcp?.openSessions() ?? [])
              for (const uri of await session.treeReloaded(changes)) updated.add(uri);
            return [...updated];
          },
          logProblem,
        });
  // Both known once the server listens (the port may be 0 until then).
  let allowedHosts: string[] = [];
  // One origin rule for /mcp and the static site.
  const origins = createOriginRule(
    () => allowedHosts,
    () => context.tree,
  );
  const staticTree =
    options.treeRoot === undefined
      ? undefined
      : await (await import('./static-tree.js')).openStaticTree(options.treeRoot, { origins, logProblem });

  const server = http.createServer({
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  let baseUrl = '';

  server.on('request', (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
    void answer(incoming, outgoing).catch((error: unknown) => {
      logProblem(`a request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!outgoing.headersSent) {
        outgoing.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        outgoing.end('Internal Server Error\n');
      } else {
        outgoing.destroy();
      }
    });
  });
  // A malformed request, or one too slow to arrive: a plain 400 and the connection closed (not
  // half-closed: a client that never closes its side must not keep the socket), never a crash.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable)
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`, () => socket.destroy());
    else socket.destroy();
  });

  async function answer(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
    const pathname = (incoming.url ?? '/').split('?')[0];
    if (pathname === MCP_PATH) {
      const exchange = exchangeOfNodeRequest(incoming, outgoing);
      // The TCP peer: the client's address for its quotas (a header could be forged, the socket not).
      // The origin it was addressed to (this server speaks plain HTTP): documents' pages are made absolute from it.
      const host = incoming.headers.host;
      const mcpAnswer = await mcp!.answer(exchange.exchange, {
        peerAddress: incoming.socket?.remoteAddress,
        ...(host !== undefined && /^[\w.:[\]-]{1,300}$/.test(host) ? { siteOrigin: `http://${host}` } : {}),
      });
      // A body the handler did not read (a refusal: 403, 406, 415 …) is read and dropped (up to a
      // cap) before the answer ends, since a connection closed while the client still sends makes
      // its write fail before it reads the answer; the connection then stays open. One it stopped
      // reading (413) is drained too, and that connection is closed.
      const body = exchange.bodyState();
      const drainedAll = body === 'read' ? true : await exchange.drainBody(MAX_DRAINED_BODY_BYTES);
      await writeAnswer(mcpAnswer, outgoing, body === 'cut' || !drainedAll, limits.writeTimeoutMs);
      if (!drainedAll) incoming.socket?.destroy();
      return;
    }
    // The static site: the Host check of /mcp (a rebinding page must not read it either).
    if (!isAllowedHost(incoming.headers.host ?? null, allowedHosts)) {
      outgoing.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      outgoing.end('Forbidden: this server does not answer to that Host header\n');
      return;
    }
    if (staticTree) {
      await staticTree.serve(incoming, outgoing);
      return;
    }
    outgoing.writeHead(pathname === '/' ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
    outgoing.end(pathname === '/' ? `MCP endpoint: ${baseUrl}${MCP_PATH}\n` : 'Not Found\n');
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    options.source.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'EADDRINUSE'
        ? `port ${options.port} on ${options.host} is already in use`
        : `cannot listen on ${options.host}:${options.port} (${code ?? (error as Error).message})`,
    );
  }
  const { port } = server.address() as AddressInfo;
  allowedHosts = allowedHostsFor(options.host, port, options.allowedHosts);
  mcp = createMcpHttpHandler({
    server: () => context,
    sessions: true,
    allowedHosts,
    isAllowedOrigin: (origin) => origins.allows(origin, options.projectRoot !== undefined),
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    maxSessionsPerClient: options.maxSessionsPerClient,
    maxLiveRunsPerClient: options.maxLiveRunsPerClient,
    answerLimits: limits.answerLimits,
    ...(limits.maxQueuedStreamBytes !== undefined ? { maxQueuedStreamBytes: limits.maxQueuedStreamBytes } : {}),
    logProblem,
  });
  baseUrl = `http://${bracketIpv6(options.host)}:${port}`;
  // Loaded now rather than by the first request (its answer took ~80 ms instead of ~2 ms); then one
  // made-up request, answered in-process, compiles the rest of a request's way.
  const warmHost = allowedHosts[0] ?? `${bracketIpv6(options.host)}:${port}`;
  setTimeout(
    () => void preloadRequestHandling(context, true).then(() => warmFirstRequest(server, context, warmHost)),
    0,
  );
  // One write: a reader that sees the endpoint line sees the site line too (tests, scripts).
  process.stderr.write(
    `MCP endpoint: ${baseUrl}${MCP_PATH}\n` +
      (options.treeRoot === undefined
        ? `Static site: not served (the tree is at ${options.source.displayName})\n`
        : `Static site: ${baseUrl}/\n`),
  );
  if (!isLoopbackHost(options.host)) {
    process.stderr.write(
      `${prefix}: warning: listening on ${options.host}, not a loopback address: anyone who can reach it may call this server${options.projectRoot ? ' and run its live scripts' : ''}; there is no authentication\n`,
    );
  }

  const handler = mcp;
  const finished = new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      server.close();
      void handler.close().then(() => {
        server.closeAllConnections();
        options.source.close();
        resolve(0);
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    guardServerProcess(logProblem, stop);
  });
  return {
    finished,
    reloadTree: () => {
      if (!treeSwitch) return Promise.reject(new Error('only a tree in a folder is reloaded'));
      return treeSwitch.reloadNow();
    },
    toolCount: () => context.tree.tools.filter((tool) => tool.searchTool === undefined).length,
    warn: (text) => {
      logProblem(text);
      for (const session of handler.openSessions()) session.logToClient('warning', 'staticmcp', text);
    },
  };
}
