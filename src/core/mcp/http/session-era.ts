// The handshake era over HTTP (2025-03-26 … 2025-11-25): `initialize` agrees a version, and with
// sessions (Node) opens one in the session table: Mcp-Session-Id issued, required and checked
// after, a GET opens the session's stream for messages no request waits for, DELETE ends it.
// Without sessions (the edge worker) each POST is a session of its own. The table is bounded
// (client-quotas.ts decides who makes room).
import type { McpSession } from '../mcp-session.js';
import { isModernVersion, type ProtocolVersion, SUPPORTED_VERSIONS } from '../protocol-versions.js';
import { BoundedEventStream } from './bounded-event-stream.js';
import { chooseRoomForSession, type ClientId } from './client-quotas.js';
import type { HttpAnswer, HttpExchange } from './http-exchange.js';
import { CLOSE_GRACE_MS, CLOSE_WAIT_MS, type HandlerScope } from './http-options.js';
import { jsonError, SERVER_ERROR, SESSION_NOT_FOUND } from './json-answers.js';
import { type Accepts, parseAccept, SSE_HEADERS } from './media-types.js';
import { answerPost, answerWithOneShotSession } from './post-answer.js';
import type { ParsedBody } from './request-body.js';

/** The version a request without MCP-Protocol-Version speaks (the spec's rule for old clients). */
const VERSION_WITHOUT_HEADER: ProtocolVersion = '2025-03-26';

interface OpenSession {
  id: string;
  session: McpSession;
  /** The GET stream, where messages no request waits for go (list changes, resource updates). */
  standalone?: BoundedEventStream;
  /** POSTs being answered: a busy session is never evicted. */
  busy: number;
  lastUsedMs: number;
  /** Who opened it: its sessions count against that client's quota, its live runs too. */
  client: ClientId;
}

/** The MCP-Protocol-Version header of a handshake-era request: a version we speak, absent (undefined), or a 400. */
export function readVersionHeader(exchange: HttpExchange): ProtocolVersion | undefined | HttpAnswer {
  const value = exchange.header('mcp-protocol-version');
  if (value === null) return undefined;
  const trimmed = value.trim();
  if ((SUPPORTED_VERSIONS as readonly string[]).includes(trimmed)) return trimmed as ProtocolVersion;
  return jsonError(
    400,
    SERVER_ERROR,
    `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(value.slice(0, 40))} (supported: ${SUPPORTED_VERSIONS.join(', ')})`,
  );
}

/** A request whose MCP-Protocol-Version header names a 2026-07-28 era version. */
export function namesModernVersion(exchange: HttpExchange): boolean {
  return isModernVersion(exchange.header('mcp-protocol-version')?.trim());
}

/** Stateless: this POST is the whole session; initialize negotiates, anything else uses the header. */
export function postWithoutSession(
  scope: HandlerScope,
  exchange: HttpExchange,
  client: ClientId,
  parsed: ParsedBody,
  accepts: Accepts,
  version: ProtocolVersion | undefined,
): Promise<HttpAnswer> {
  const session = scope.openSession(
    client,
    () => {},
    parsed.isInitialize ? undefined : (version ?? VERSION_WITHOUT_HEADER),
  );
  return answerWithOneShotSession(scope, { exchange, parsed, session, accepts });
}

export class SessionTable {
  private readonly sessions = new Map<string, OpenSession>();

  constructor(private readonly scope: HandlerScope) {}

  /** A handshake-era POST on a session: initialize opens one, anything else names one. */
  async post(exchange: HttpExchange, client: ClientId, parsed: ParsedBody, accepts: Accepts): Promise<HttpAnswer> {
    let open: OpenSession;
    const extraHeaders: Record<string, string> = {};
    const named = exchange.header('mcp-session-id');
    const namedOpen = named ? this.sessions.get(named) : undefined;
    if (parsed.isInitialize && !namedOpen) {
      // initialize starts a new session (a client that lost its session re-initializes); sent on a
      // session that is still open, it reaches that session, which refuses a second handshake.
      const room = this.makeRoomForSession(client);
      if (room) return room;
      const id = crypto.randomUUID();
      // The session sends nothing while it is constructed, so `created` exists by its first message.
      const session = this.scope.openSession(client, (message) => created.standalone?.send(message));
      const created: OpenSession = { id, session, busy: 0, lastUsedMs: Date.now(), client };
      this.sessions.set(id, created);
      open = created;
      extraHeaders['mcp-session-id'] = id;
    } else {
      const found = this.find(exchange);
      if (!isOpenSession(found)) return found;
      open = found;
    }
    open.busy += 1;
    const isInitialize = parsed.isInitialize;
    return answerPost(this.scope, {
      exchange,
      parsed,
      session: open.session,
      accepts,
      extraHeaders,
      finished: () => {
        open.busy -= 1;
        open.lastUsedMs = Date.now();
        // An initialize that failed (bad params) leaves no session behind.
        if (isInitialize && open.session.negotiatedVersion === undefined) this.sessions.delete(open.id);
      },
    });
  }

  /** GET: the session's stream for messages no request waits for; a new GET replaces the old one. */
  openStream(exchange: HttpExchange): HttpAnswer {
    if (!parseAccept(exchange.header('accept')).sse)
      return jsonError(406, SERVER_ERROR, 'Not Acceptable: the client must accept text/event-stream');
    const version = readVersionHeader(exchange);
    if (version !== undefined && typeof version !== 'string') return version;
    const found = this.find(exchange);
    if (!isOpenSession(found)) return found;
    // A client that reconnects after a network drop: the old stream is closed.
    found.standalone?.close();
    const stream = new BoundedEventStream(() => {
      if (found.standalone === stream) found.standalone = undefined;
    }, this.scope.options.maxQueuedStreamBytes);
    found.standalone = stream;
    return { status: 200, headers: { ...SSE_HEADERS, 'mcp-session-id': found.id }, body: stream.body };
  }

  /** DELETE: ends the session (its live scripts killed). */
  async end(exchange: HttpExchange): Promise<HttpAnswer> {
    const version = readVersionHeader(exchange);
    if (version !== undefined && typeof version !== 'string') return version;
    const found = this.find(exchange);
    if (!isOpenSession(found)) return found;
    await this.endOpenSession(found);
    return { status: 204, headers: {}, body: null };
  }

  /** The sessions open now (the host tells them of a switched tree, tree-switch-port.ts). */
  openSessions(): McpSession[] {
    return [...this.sessions.values()].map((open) => open.session);
  }

  closeAll(): Promise<void> {
    return Promise.all([...this.sessions.values()].map((open) => this.endOpenSession(open))).then(() => undefined);
  }

  /** The session a request names: found, or the 400 (no header) / 404 (unknown or ended) to answer. */
  private find(exchange: HttpExchange): OpenSession | HttpAnswer {
    const id = exchange.header('mcp-session-id');
    if (id === null || id === '')
      return jsonError(
        400,
        SERVER_ERROR,
        'Bad Request: the Mcp-Session-Id header is required (send initialize first to get one)',
      );
    const open = this.sessions.get(id);
    if (!open)
      return jsonError(404, SESSION_NOT_FOUND, 'Session not found: it ended or never existed; initialize a new one');
    open.lastUsedMs = Date.now();
    return open;
  }

  /**
   * At the client's quota or the table's cap, a session that makes room is ended (client-quotas.ts
   * picks it: never another client's when this one is the flood); none may be → 429 or 503.
   */
  private makeRoomForSession(client: ClientId): HttpAnswer | undefined {
    const { maxSessions, maxSessionsPerClient } = this.scope;
    const room = chooseRoomForSession(
      this.sessions.values(),
      (open) => ({
        client: open.client,
        busy: open.busy,
        lastUsedMs: open.lastUsedMs,
        holdsStream: open.standalone !== undefined && !open.standalone.closed,
      }),
      client,
      { maxSessions, maxSessionsPerClient },
    );
    if (room.kind === 'end') void this.endOpenSession(room.session);
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

  private endOpenSession(open: OpenSession): Promise<void> {
    this.sessions.delete(open.id);
    open.standalone?.close();
    return open.session.close(CLOSE_GRACE_MS, CLOSE_WAIT_MS);
  }
}

function isOpenSession(value: OpenSession | HttpAnswer): value is OpenSession {
  return 'session' in value;
}
