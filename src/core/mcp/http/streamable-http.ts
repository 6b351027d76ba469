// MCP Streamable HTTP as one portable handler, so the same code answers on Node (`staticmcp serve
// --http`, with sessions) and in the edge worker (stateless). This file is the router: the Host
// and Origin checks and CORS (cors.ts), then by HTTP method and by era: a POST whose header or
// `_meta` names 2026-07-28 goes to per-request-era.ts, any other to session-era.ts (the session
// table, or a session per POST without sessions); GET and DELETE exist only in the session era.
// Routing by path is the host's job: every request handed in is a request to the MCP endpoint.
// Never throws and never answers with anything of the machine (paths, stacks): problems go to
// `logProblem`, the client gets a JSON-RPC error with a fixed message. Only Web APIs.
import { INTERNAL_ERROR, INVALID_REQUEST } from '../json-rpc.js';
import type { McpSession } from '../mcp-session.js';
import { claimsModernEra } from '../request-meta.js';
import { type ClientId, clientOfExchange, type ConnectionInfo } from './client-quotas.js';
import { preflight, refuseForeignCaller, withCors } from './cors.js';
import type { HttpAnswer, HttpExchange } from './http-exchange.js';
import { createHandlerScope, type McpHttpOptions } from './http-options.js';
import { jsonError, methodNotAllowed, SERVER_ERROR } from './json-answers.js';
import { isJsonContentType, parseAccept } from './media-types.js';
import { postPerRequest } from './per-request-era.js';
import { isParsedBody, readParsedBody } from './request-body.js';
import { namesModernVersion, postWithoutSession, readVersionHeader, SessionTable } from './session-era.js';
import { discardUnreadBody, exchangeOfRequest, responseOfAnswer } from './web-exchange.js';

export type { McpHttpOptions } from './http-options.js';
export { DEFAULT_MAX_BODY_BYTES } from './http-options.js';
export type { HttpAnswer, HttpExchange } from './http-exchange.js';

export interface McpHttpHandler {
  /** For a host with its own server (Node): one exchange in, its answer out, no Request or Response built. */
  answer(exchange: HttpExchange, connection?: ConnectionInfo): Promise<HttpAnswer>;
  /** For a host that speaks fetch (the edge worker). `connection`: what the host knows of the connection (the peer address). */
  handle(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /**
   * The sessions open now, for what no request waits for: list changes after the host switched
   * trees, warnings. A handshake-era session sends them on its GET stream; the session of one
   * POST still answering (a 2026-07-28 `subscriptions/listen`) on that POST's stream.
   */
  openSessions(): McpSession[];
  /** Ends every session (live scripts killed, streams closed); later requests get 503. */
  close(): Promise<void>;
}

export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const scope = createHandlerScope(options);
  const table = options.sessions ? new SessionTable(scope) : undefined;
  // A refused body is still read, and dropped, up to this much (web-exchange.ts says why).
  const maxDrainedBodyBytes = 4 * scope.maxBodyBytes;
  const clientOf = options.clientOf ?? clientOfExchange;
  // OPTIONS is answered too (CORS preflight) but, as usual, not listed.
  const allow = table ? 'GET, POST, DELETE' : 'POST';
  let closed = false;

  async function answer(exchange: HttpExchange, connection: ConnectionInfo = {}): Promise<HttpAnswer> {
    try {
      const refused = refuseForeignCaller(exchange, options.allowedHosts, (origin) =>
        options.isAllowedOrigin(origin, connection),
      );
      if (refused) return refused;
      const client = clientOf(exchange.header, connection);
      const { siteOrigin } = connection;
      return withCors(exchange, await route(exchange, siteOrigin ? { ...client, requestOrigin: siteOrigin } : client));
    } catch (error) {
      scope.logProblem(`HTTP ${exchange.method} failed: ${(error as Error)?.stack ?? String(error)}`);
      return withCors(exchange, jsonError(500, INTERNAL_ERROR, 'Internal error'));
    }
  }

  async function route(exchange: HttpExchange, client: ClientId): Promise<HttpAnswer> {
    if (closed) return jsonError(503, SERVER_ERROR, 'Service unavailable: the server is shutting down');
    switch (exchange.method) {
      case 'OPTIONS':
        return preflight(exchange, allow);
      case 'POST':
        return post(exchange, client);
      // The 2026-07-28 era has no standalone stream and no sessions: there, only POST exists.
      case 'GET':
        return table && !namesModernVersion(exchange) ? table.openStream(exchange) : methodNotAllowed('POST');
      case 'DELETE':
        return table && !namesModernVersion(exchange) ? table.end(exchange) : methodNotAllowed('POST');
      default:
        return methodNotAllowed(allow);
    }
  }

  async function post(exchange: HttpExchange, client: ClientId): Promise<HttpAnswer> {
    const accepts = parseAccept(exchange.header('accept'));
    if (!accepts.json && !accepts.sse)
      return jsonError(
        406,
        SERVER_ERROR,
        'Not Acceptable: the client must accept application/json and text/event-stream',
      );
    if (!isJsonContentType(exchange.header('content-type')))
      return jsonError(415, SERVER_ERROR, 'Unsupported Media Type: the body must be application/json');
    // A version header we do not speak may still belong to a modern body (which answers -32022
    // itself), so its refusal waits until the body has been read.
    const version = readVersionHeader(exchange);
    const headerIsModern = namesModernVersion(exchange);
    const parsed = await readParsedBody(exchange, scope.maxBodyBytes);
    if (!isParsedBody(parsed)) return parsed;
    if (headerIsModern || (parsed.single && claimsModernEra(parsed.single.method, parsed.single.params)))
      return postPerRequest(scope, exchange, client, parsed, accepts, headerIsModern);
    if (typeof version === 'object') return version;
    if (parsed.isInitialize && parsed.isBatch)
      return jsonError(400, INVALID_REQUEST, 'Invalid Request: initialize must be sent on its own, not in a batch');
    if (!table) return postWithoutSession(scope, exchange, client, parsed, accepts, version);
    return table.post(exchange, client, parsed, accepts);
  }

  return {
    answer,
    async handle(request, connection) {
      const answered = await answer(exchangeOfRequest(request), connection);
      await discardUnreadBody(request, maxDrainedBodyBytes);
      return responseOfAnswer(answered);
    },
    openSessions: () => [...(table?.openSessions() ?? []), ...scope.oneShotSessions],
    async close() {
      closed = true;
      await table?.closeAll();
    },
  };
}
