// MCP Streamable HTTP as one portable Request → Response function, so the same code answers on
// Node (`staticmcp serve --http`, with sessions) and in the edge worker (stateless). Both eras on
// one endpoint: 2025-03-26 … 2025-11-25 (initialize, Mcp-Session-Id on Node), and 2026-07-28, where
// each POST carries one request whose `_meta` names its version: no session, headers checked
// against the body, and the HTTP status says what the error is (400, or 404 for an unknown method). Only Web APIs: Request, Response, ReadableStream, TextEncoder/Decoder, crypto.
// Routing is the host's job: every request handed in is a request to the MCP endpoint.
// Never throws and never answers with anything of the machine (paths, stacks): problems go to
// `logProblem`, the client gets a JSON-RPC error with a fixed message.
import type { AnswerLimits } from './answer-budget.js';
import { BoundedEventStream as EventStream } from './bounded-event-stream.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { ClientLiveGates, DEFAULT_MAX_LIVE_RUNS_PER_CLIENT } from './client-live-gates.js';
import {
  chooseRoomForSession,
  type ClientId,
  type ClientOf,
  clientOfRequest,
  type ConnectionInfo,
  DEFAULT_MAX_SESSIONS_PER_CLIENT,
} from './client-quotas.js';
import { discardUnreadBody } from './unread-body.js';
import { gateLiveRuns } from './gated-live-runner.js';
import { parseJsonRpcText, stringifyJsonRpc } from './exact-ids.js';
import {
  classifyMessage,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  type JsonRpcRequest,
  type RequestId,
} from './json-rpc.js';
import type { LiveRunner } from './live-port.js';
import { McpSession, type Send } from './mcp-session.js';
import { acceptsBatches, isModernVersion, SUPPORTED_VERSIONS, type ProtocolVersion } from './protocol-versions.js';
import { claimsModernEra, readRequestEra } from './request-meta.js';
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from './client-capabilities.js';
import { findHeaderMismatch } from './modern-http-headers.js';
import type { ServerContext } from './server-context.js';

export interface McpHttpOptions {
  /** The context for a new session (called per session, so a reloaded tree applies to new sessions). */
  server: () => ServerContext;
  /**
   * true (Node): Mcp-Session-Id issued on initialize, required and checked after, DELETE ends it,
   * unknown id → 404. false (edge): stateless, every POST stands alone (a fresh McpSession with the
   * version from MCP-Protocol-Version or initialize), no Mcp-Session-Id, GET → 405 with Allow: POST.
   */
  sessions: boolean;
  /** Accepted Host header values (lower-case host or host:port); undefined = no Host check. Bad → 403. */
  allowedHosts?: readonly string[];
  /** Whether a request carrying this Origin may call (no Origin header = allowed). Foreign → 403. */
  isAllowedOrigin(origin: string, request: Request): boolean;
  /** Larger bodies get 413 (default 4 MiB). */
  maxBodyBytes?: number;
  /** Cap on open sessions (sessions: true; default 256): one of the biggest holder's makes room (client-quotas.ts), else 503. */
  maxSessions?: number;
  /** Live script runs one session may have at once; more wait their turn (default 4). */
  maxLiveRunsPerSession?: number;
  /** Sessions one client may hold (default 32): at it, the client's own least recently used makes room. */
  maxSessionsPerClient?: number;
  /** Live script runs one client may have at once, in both eras (default 4); more wait their turn. */
  maxLiveRunsPerClient?: number;
  /** Who sent a request (quotas are per client); default: the peer address plus the Origin. */
  clientOf?: ClientOf;
  /** Caps on one 2025-03-26 batch: its length and its answers' bytes (answer-budget.ts has the defaults). */
  answerLimits?: Partial<AnswerLimits>;
  /** Unread bytes an SSE stream may hold before its notifications are dropped (bounded-event-stream.ts). */
  maxQueuedStreamBytes?: number;
  /** A line for the operator (stderr, the console); defaults to the session context's logProblem. */
  logProblem?(text: string): void;
}

export interface McpHttpHandler {
  /** `connection`: what the host knows of the request's connection (the peer address). */
  handle(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /** Ends every session (live scripts killed, streams closed); later requests get 503. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_SESSIONS = 256;
const DEFAULT_MAX_LIVE_RUNS_PER_SESSION = 4;
/** The version a request without MCP-Protocol-Version speaks (the spec's rule for old clients). */
const VERSION_WITHOUT_HEADER: ProtocolVersion = '2025-03-26';
/** Closing a session: answers being prepared may finish, then live scripts get this long to go. */
const CLOSE_GRACE_MS = 0;
const CLOSE_WAIT_MS = 3_000;
/** Server errors that have no JSON-RPC code of their own (the SDK uses the same two). */
const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
const ALLOWED_REQUEST_HEADERS =
  'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name';
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version';

type Outgoing = Record<string, unknown>;

interface OpenSession {
  id: string;
  session: McpSession;
  /** The GET stream, where messages no request waits for go (list changes, resource updates). */
  standalone?: EventStream;
  /** POSTs being answered: a busy session is never evicted. */
  busy: number;
  lastUsedMs: number;
  /** Who opened it: its sessions count against that client's quota, its live runs too. */
  client: ClientId;
}

/** What a POST body turned out to be, before any session sees it. */
interface ParsedBody {
  value: unknown;
  isBatch: boolean;
  requestIds: RequestId[];
  isInitialize: boolean;
  /** The body's only message when it is a single request (what the modern era allows). */
  single?: JsonRpcRequest;
}

export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // A refused body is still read, and dropped, up to this much (unread-body.ts says why).
  const maxDrainedBodyBytes = 4 * maxBodyBytes;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxLiveRuns = options.maxLiveRunsPerSession ?? DEFAULT_MAX_LIVE_RUNS_PER_SESSION;
  const maxSessionsPerClient = options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT;
  const liveGates = new ClientLiveGates(options.maxLiveRunsPerClient ?? DEFAULT_MAX_LIVE_RUNS_PER_CLIENT);
  /** The client of each request being handled (set once by `handle`). */
  const clients = new WeakMap<Request, ClientId>();
  const clientOf = (request: Request): ClientId => clients.get(request) ?? { key: '', address: '' };
  const allowedHosts = options.allowedHosts?.map((host) => host.toLowerCase());
  const sessions = new Map<string, OpenSession>();
  let closed = false;

  const logProblem = (text: string): void => {
    try {
      (options.logProblem ?? options.server().logProblem)(text);
    } catch {
      // A log line must never break an answer.
    }
  };

  /** A session's context: the host's, with live runs limited per session and per client. */
  function sessionContext(client: ClientId): ServerContext {
    const server = options.server();
    if (!server.live) return server;
    return { ...server, live: limitLiveRuns(liveGates.limitRuns(server.live, client.key), maxLiveRuns) };
  }

  function openSession(client: ClientId, send: Send, version?: ProtocolVersion): McpSession {
    const answerLimits = options.answerLimits ?? {};
    return new McpSession(
      sessionContext(client),
      send,
      version === undefined ? { answerLimits } : { version, answerLimits },
    );
  }

  async function handle(request: Request, connection: ConnectionInfo = {}): Promise<Response> {
    const response = await answer(request, connection);
    await discardUnreadBody(request, maxDrainedBodyBytes);
    return response;
  }

  async function answer(request: Request, connection: ConnectionInfo): Promise<Response> {
    try {
      clients.set(request, (options.clientOf ?? clientOfRequest)(request, connection));
      const refused = checkHostAndOrigin(request);
      if (refused) return refused;
      const response = await route(request);
      return withCors(request, response);
    } catch (error) {
      logProblem(`HTTP ${request.method} failed: ${(error as Error)?.stack ?? String(error)}`);
      return withCors(request, jsonError(500, INTERNAL_ERROR, 'Internal error'));
    }
  }

  function checkHostAndOrigin(request: Request): Response | undefined {
    if (allowedHosts !== undefined) {
      const host = (request.headers.get('host') ?? '').toLowerCase();
      if (!isAllowedHost(host, allowedHosts))
        return jsonError(403, SERVER_ERROR, 'Forbidden: this server does not answer to that Host header');
    }
    const origin = request.headers.get('origin');
    if (origin !== null && !options.isAllowedOrigin(origin, request)) {
      return jsonError(403, SERVER_ERROR, 'Forbidden: requests from this Origin are not allowed');
    }
    return undefined;
  }

  function withCors(request: Request, response: Response): Response {
    const origin = request.headers.get('origin');
    // Only allowed origins get this far; a response without CORS headers is not readable by a page.
    if (origin === null) return response;
    try {
      response.headers.set('access-control-allow-origin', origin);
      response.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      response.headers.append('vary', 'Origin');
    } catch {
      // Immutable headers (a Response we did not build): answer without CORS rather than fail.
    }
    return response;
  }

  async function route(request: Request): Promise<Response> {
    if (closed) return jsonError(503, SERVER_ERROR, 'Service unavailable: the server is shutting down');
    // OPTIONS is answered too (CORS preflight) but, as usual, not listed.
    const allow = options.sessions ? 'GET, POST, DELETE' : 'POST';
    switch (request.method) {
      case 'OPTIONS':
        return preflight(request, allow);
      case 'POST':
        return post(request);
      case 'GET':
        return options.sessions && !isModernRequest(request)
          ? openStandaloneStream(request)
          : methodNotAllowed(options.sessions && !isModernRequest(request) ? allow : 'POST');
      case 'DELETE':
        return options.sessions && !isModernRequest(request)
          ? endSession(request)
          : methodNotAllowed(options.sessions && !isModernRequest(request) ? allow : 'POST');
      default:
        return methodNotAllowed(allow);
    }
  }

  function preflight(request: Request, allow: string): Response {
    const headers: Record<string, string> = { allow };
    if (request.headers.get('origin') !== null) {
      headers['access-control-allow-methods'] = allow;
      headers['access-control-allow-headers'] = ALLOWED_REQUEST_HEADERS;
      headers['access-control-max-age'] = '86400';
    }
    return new Response(null, { status: 204, headers });
  }

  /** The MCP-Protocol-Version header: a version we speak, absent (undefined), or a 400. */
  function headerVersion(request: Request): ProtocolVersion | undefined | Response {
    const value = request.headers.get('mcp-protocol-version');
    if (value === null) return undefined;
    const trimmed = value.trim();
    if ((SUPPORTED_VERSIONS as readonly string[]).includes(trimmed)) return trimmed as ProtocolVersion;
    return jsonError(
      400,
      SERVER_ERROR,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(value.slice(0, 40))} (supported: ${SUPPORTED_VERSIONS.join(', ')})`,
    );
  }

  /** The session a request names: found, or the 400 (no header) / 404 (unknown or ended) to answer. */
  function findSession(request: Request): OpenSession | Response {
    const id = request.headers.get('mcp-session-id');
    if (id === null || id === '')
      return jsonError(
        400,
        SERVER_ERROR,
        'Bad Request: the Mcp-Session-Id header is required (send initialize first to get one)',
      );
    const open = sessions.get(id);
    if (!open)
      return jsonError(404, SESSION_NOT_FOUND, 'Session not found: it ended or never existed; initialize a new one');
    open.lastUsedMs = Date.now();
    return open;
  }

  async function post(request: Request): Promise<Response> {
    const accepts = parseAccept(request.headers.get('accept'));
    if (!accepts.json && !accepts.sse) {
      return jsonError(
        406,
        SERVER_ERROR,
        'Not Acceptable: the client must accept application/json and text/event-stream',
      );
    }
    if (!isJsonContentType(request.headers.get('content-type'))) {
      return jsonError(415, SERVER_ERROR, 'Unsupported Media Type: the body must be application/json');
    }
    // A version header we do not speak may still belong to a modern body (which answers -32022
    // itself), so its refusal waits until the body has been read.
    const version = headerVersion(request);
    const headerIsModern = isModernVersion(request.headers.get('mcp-protocol-version')?.trim());

    const body = await readBodyText(request, maxBodyBytes);
    if (body === 'too large')
      return jsonError(413, SERVER_ERROR, `Payload Too Large: the body is larger than ${maxBodyBytes} bytes`);
    if (body === 'unreadable') return jsonError(400, PARSE_ERROR, 'Parse error: the body could not be read as UTF-8');
    const parsed = parseBody(body);
    if (parsed === undefined) return jsonError(400, PARSE_ERROR, 'Parse error: the body is not valid JSON');
    if (headerIsModern || (parsed.single && claimsModernEra(parsed.single.method, parsed.single.params))) {
      return postModern(request, parsed, accepts, headerIsModern);
    }
    if (version instanceof Response) return version;
    if (parsed.isInitialize && parsed.isBatch) {
      return jsonError(400, INVALID_REQUEST, 'Invalid Request: initialize must be sent on its own, not in a batch');
    }

    if (!options.sessions) {
      // Stateless: this POST is the whole session; initialize negotiates, anything else uses the header.
      const session = openSession(
        clientOf(request),
        () => {},
        parsed.isInitialize ? undefined : (version ?? VERSION_WITHOUT_HEADER),
      );
      return answerPost(request, parsed, session, accepts, {}, () => void session.close(0, CLOSE_WAIT_MS));
    }

    let open: OpenSession;
    const extraHeaders: Record<string, string> = {};
    const named = request.headers.get('mcp-session-id');
    const namedOpen = named ? sessions.get(named) : undefined;
    if (parsed.isInitialize && !namedOpen) {
      // initialize starts a new session (a client that lost its session re-initializes); sent on a
      // session that is still open, it reaches that session, which refuses a second handshake.
      const client = clientOf(request);
      const room = makeRoomForSession(client);
      if (room) return room;
      const id = crypto.randomUUID();
      // The session sends nothing while it is constructed, so `created` exists by its first message.
      const session = openSession(client, (message) => created.standalone?.send(message));
      const created: OpenSession = { id, session, busy: 0, lastUsedMs: Date.now(), client };
      sessions.set(id, created);
      open = created;
      extraHeaders['mcp-session-id'] = id;
    } else {
      const found = findSession(request);
      if (found instanceof Response) return found;
      open = found;
    }
    open.busy += 1;
    const isInitialize = parsed.isInitialize;
    return answerPost(request, parsed, open.session, accepts, extraHeaders, () => {
      open.busy -= 1;
      open.lastUsedMs = Date.now();
      // An initialize that failed (bad params) leaves no session behind.
      if (isInitialize && open.session.negotiatedVersion === undefined) sessions.delete(open.id);
    });
  }

  /**
   * A 2026-07-28 POST: one request, validated in the spec's order (malformed _meta → -32602,
   * headers that disagree with the body → -32020, a version we do not serve → -32022, all HTTP
   * 400), then answered by a session of its own: nothing outlives the request, no session id.
   */
  async function postModern(
    request: Request,
    parsed: ParsedBody,
    accepts: Accepts,
    headerIsModern: boolean,
  ): Promise<Response> {
    const message = parsed.single;
    if (!message) {
      // Notifications and client responses have no modern meaning over HTTP (cancelling is closing the stream).
      if (!parsed.isBatch && parsed.requestIds.length === 0 && classifyMessage(parsed.value).kind !== 'invalid')
        return new Response(null, { status: 202 });
      return jsonError(
        400,
        INVALID_REQUEST,
        'Invalid Request: a protocol version 2026-07-28 POST carries exactly one JSON-RPC request',
      );
    }
    const era = readRequestEra(message.method, message.params, headerIsModern);
    if (era.era === 'invalid' && era.error.code !== -32022) {
      return jsonResponse(400, errorResponse(message.id, era.error.code, era.error.message, era.error.data));
    }
    const mismatch = findHeaderMismatch(request.headers, message.method, message.params);
    if (mismatch) return jsonResponse(400, errorResponse(message.id, mismatch.code, mismatch.message));
    if (era.era === 'invalid')
      return jsonResponse(400, errorResponse(message.id, era.error.code, era.error.message, era.error.data));
    const session = openSession(clientOf(request), () => {});
    return answerPost(
      request,
      parsed,
      session,
      accepts,
      {},
      () => void session.close(0, CLOSE_WAIT_MS),
      modernAnswerStatus,
    );
  }

  /**
   * Runs one POST body through a session. Requests: JSON when the answer comes before any
   * notification, else an SSE stream that carries the notifications and then the answer.
   * Notifications and responses only: 202. `finished` runs once the session is done with the
   * body (for SSE, when the stream ends).
   */
  async function answerPost(
    request: Request,
    parsed: ParsedBody,
    session: McpSession,
    accepts: Accepts,
    extraHeaders: Record<string, string>,
    finished: () => void,
    statusOf: (answer: Outgoing | Outgoing[]) => { status: number; headers?: Record<string, string> } = () => ({
      status: 200,
    }),
  ): Promise<Response> {
    if (parsed.isBatch && !acceptsBatches(session.negotiatedVersion)) {
      finished();
      return jsonError(
        400,
        INVALID_REQUEST,
        `Invalid Request: batches are only accepted under protocol version 2025-03-26 (this one speaks ${session.negotiatedVersion ?? 'no version yet'})`,
      );
    }
    if (parsed.requestIds.length === 0) {
      const answer = await session.handleParsed(parsed.value, () => {}).finally(finished);
      // Nothing to answer: accepted. An invalid message: its error, with a 4xx as the spec asks.
      return answer === undefined
        ? new Response(null, { status: 202, headers: extraHeaders })
        : jsonResponse(400, answer, extraHeaders);
    }

    let stream: EventStream | undefined;
    let settle!: (response: Response) => void;
    const responded = new Promise<Response>((resolve) => {
      settle = resolve;
    });
    let cancelled = false;
    const cancel = (): void => {
      if (cancelled) return;
      cancelled = true;
      // Same effect as the client sending notifications/cancelled for each of its requests.
      for (const requestId of parsed.requestIds) {
        void session.handleParsed(
          {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: 'the HTTP request was closed' },
          },
          () => {},
        );
      }
    };
    const startStream = (): EventStream => {
      stream = new EventStream(cancel, options.maxQueuedStreamBytes);
      settle(new Response(stream.body, { status: 200, headers: { ...SSE_HEADERS, ...extraHeaders } }));
      return stream;
    };
    const notify: Send = (message) => {
      if (cancelled || !accepts.sse) return;
      (stream ?? startStream()).send(message);
    };
    const onAbort = (): void => cancel();
    request.signal?.addEventListener('abort', onAbort, { once: true });

    const failed = (error: unknown): void => {
      logProblem(`an HTTP request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (stream) stream.close();
      else settle(jsonError(500, INTERNAL_ERROR, 'Internal error'));
    };
    const work = session
      .handleParsed(parsed.value, notify)
      .then((answer) => {
        if (stream) {
          if (answer !== undefined) stream.send(answer);
          stream.close();
        } else if (answer !== undefined && accepts.json) {
          const { status, headers } = statusOf(answer);
          settle(jsonResponse(status, answer, { ...extraHeaders, ...headers }));
        } else if (answer !== undefined) {
          startStream().send(answer);
          stream!.close();
        } else {
          // Every request was cancelled: nothing to answer, and the HTTP exchange must still end.
          settle(new Response(null, { status: 204, headers: extraHeaders }));
        }
      })
      // The request failed, or writing its answer did (one too large to serialise): this request
      // alone fails, with a 500 or its stream closed, never a rejection nobody handles.
      .catch(failed);
    void work.finally(() => {
      request.signal?.removeEventListener('abort', onAbort);
      finished();
    });
    return responded;
  }

  /**
   * At the client's quota or the table's cap, a session that makes room is ended (client-quotas.ts
   * picks it: never another client's when this one is the flood); none may be → 429 or 503.
   */
  function makeRoomForSession(client: ClientId): Response | undefined {
    const room = chooseRoomForSession(
      sessions.values(),
      (open) => ({
        client: open.client,
        busy: open.busy,
        lastUsedMs: open.lastUsedMs,
        holdsStream: open.standalone !== undefined && !open.standalone.closed,
      }),
      client,
      { maxSessions, maxSessionsPerClient },
    );
    if (room.kind === 'end') void endOpenSession(room.session);
    if (room.kind === 'client full')
      return jsonError(
        429,
        SERVER_ERROR,
        `Too Many Requests: this client already has ${maxSessionsPerClient} sessions, all answering requests; end one (DELETE) or wait for one to finish`,
      );
    if (room.kind === 'server full')
      return jsonError(
        503,
        SERVER_ERROR,
        'Service unavailable: too many open sessions; end one (DELETE) or try again later',
      );
    return undefined;
  }

  function endOpenSession(open: OpenSession): Promise<void> {
    sessions.delete(open.id);
    open.standalone?.close();
    return open.session.close(CLOSE_GRACE_MS, CLOSE_WAIT_MS);
  }

  function openStandaloneStream(request: Request): Response {
    if (!parseAccept(request.headers.get('accept')).sse) {
      return jsonError(406, SERVER_ERROR, 'Not Acceptable: the client must accept text/event-stream');
    }
    const version = headerVersion(request);
    if (version instanceof Response) return version;
    const found = findSession(request);
    if (found instanceof Response) return found;
    // A new GET replaces the old one (a client that reconnects after a network drop).
    found.standalone?.close();
    const stream = new EventStream(() => {
      if (found.standalone === stream) found.standalone = undefined;
    }, options.maxQueuedStreamBytes);
    found.standalone = stream;
    return new Response(stream.body, { status: 200, headers: { ...SSE_HEADERS, 'mcp-session-id': found.id } });
  }

  async function endSession(request: Request): Promise<Response> {
    const version = headerVersion(request);
    if (version instanceof Response) return version;
    const found = findSession(request);
    if (found instanceof Response) return found;
    await endOpenSession(found);
    return new Response(null, { status: 204 });
  }

  return {
    handle,
    async close() {
      closed = true;
      await Promise.all([...sessions.values()].map((open) => endOpenSession(open)));
    },
  };
}

/** Per-session cap on concurrent live runs; a waiting run that is cancelled never starts. */
function limitLiveRuns(live: LiveRunner, limit: number): LiveRunner {
  return gateLiveRuns(live, new ConcurrencyGate(limit));
}

interface Accepts {
  json: boolean;
  sse: boolean;
}

/**
 * What the client can read. The spec wants both listed; a client that lists only one gets only
 * that one (JSON: progress and log notifications are dropped), and one that sends no Accept, or a
 * wildcard, gets either.
 */
function parseAccept(header: string | null): Accepts {
  if (header === null || header.trim() === '') return { json: true, sse: true };
  const types = header.split(',').map((part) => (part.split(';')[0] ?? '').trim().toLowerCase());
  const any = types.includes('*/*');
  return {
    json: any || types.includes('application/json') || types.includes('application/*'),
    sse: any || types.includes('text/event-stream') || types.includes('text/*'),
  };
}

/** The media type, not a substring: `application/json; charset=utf-8` yes, `application/jsonx` no. */
function isJsonContentType(header: string | null): boolean {
  return header !== null && (header.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';
}

/** `allowed` entries are `host` (any port) or `host:port`; `[::1]:8080` style for IPv6. */
function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  if (host === '') return false;
  if (allowed.includes(host)) return true;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name !== '' && allowed.includes(name);
}

/** The body as text, reading at most `maxBytes` (a larger body is refused before it is buffered). */
async function readBodyText(request: Request, maxBytes: number): Promise<string | 'too large' | 'unreadable'> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > maxBytes) return 'too large';
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => {});
        return 'too large';
      }
      chunks.push(value);
    }
  } catch {
    return 'unreadable';
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'unreadable';
  }
}

/** A GET or DELETE from a 2026-07-28 client: that era has no standalone stream and no sessions (405). */
function isModernRequest(request: Request): boolean {
  return isModernVersion(request.headers.get('mcp-protocol-version')?.trim());
}

/**
 * The HTTP status of a modern JSON answer: an unknown method is 404 (so a client can tell us from a
 * legacy server), a result carries its cache hints as Cache-Control too.
 */
function modernAnswerStatus(answer: Outgoing | Outgoing[]): { status: number; headers?: Record<string, string> } {
  if (Array.isArray(answer)) return { status: 200 };
  const error = answer.error as { code?: unknown } | undefined;
  if (error !== undefined) {
    // -32021 is 400 by the spec (the request asked for what its client cannot do); -32601 is 404.
    const status =
      error.code === METHOD_NOT_FOUND ? 404 : error.code === MISSING_REQUIRED_CLIENT_CAPABILITY ? 400 : 200;
    return { status, headers: { 'cache-control': 'no-store' } };
  }
  const result = answer.result as { ttlMs?: unknown; cacheScope?: unknown } | undefined;
  if (result?.cacheScope === 'public' && typeof result.ttlMs === 'number' && result.ttlMs > 0) {
    return { status: 200, headers: { 'cache-control': `public, max-age=${Math.floor(result.ttlMs / 1000)}` } };
  }
  return {
    status: 200,
    headers: {
      'cache-control': result?.cacheScope === 'private' && result.ttlMs === 0 ? 'private, no-cache' : 'no-store',
    },
  };
}

/** Parses and sorts a body; undefined when it is not JSON. */
function parseBody(text: string): ParsedBody | undefined {
  let value: unknown;
  try {
    value = parseJsonRpcText(text);
  } catch {
    return undefined;
  }
  const items = Array.isArray(value) ? value : [value];
  const requestIds: RequestId[] = [];
  let isInitialize = false;
  for (const item of items) {
    const classified = classifyMessage(item);
    if (classified.kind !== 'request') continue;
    requestIds.push(classified.message.id);
    if (classified.message.method === 'initialize') isInitialize = true;
  }
  const classified = Array.isArray(value) ? undefined : classifyMessage(value);
  const single = classified?.kind === 'request' ? classified.message : undefined;
  return { value, isBatch: Array.isArray(value), requestIds, isInitialize, ...(single ? { single } : {}) };
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(stringifyJsonRpc(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** An HTTP error with a JSON-RPC error body that has no id (the spec's form for transport errors). */
function jsonError(status: number, code: number, message: string): Response {
  return jsonResponse(status, errorResponse(null, code, message));
}

function methodNotAllowed(allow: string): Response {
  const response = jsonError(405, SERVER_ERROR, `Method Not Allowed: this endpoint answers ${allow}`);
  response.headers.set('allow', allow);
  return response;
}
