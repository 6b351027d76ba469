// What a host sets up the Streamable HTTP handler with, and what both eras share of it once set
// up (`HandlerScope`): the resolved caps, the operator's log line, and a factory for the McpSession
// a request is answered by, its live runs capped per session and per client.
import type { AnswerLimits } from '../answer-budget.js';
import { ConcurrencyGate } from '../concurrency-gate.js';
import { gateLiveRuns } from '../gated-live-runner.js';
import { McpSession, type Send } from '../mcp-session.js';
import type { ProtocolVersion } from '../protocol-versions.js';
import type { ServerContext } from '../server-context.js';
import { ClientLiveGates, DEFAULT_MAX_LIVE_RUNS_PER_CLIENT } from './client-live-gates.js';
import { type ClientId, type ClientOf, type ConnectionInfo, DEFAULT_MAX_SESSIONS_PER_CLIENT } from './client-quotas.js';

export interface McpHttpOptions {
  /**
   * The context for a new session (called per session, so a reloaded tree applies to new sessions);
   * `client` is who opens it (absent when the handler only wants the host's log).
   */
  server: (client?: ClientId) => ServerContext;
  /**
   * true (Node): Mcp-Session-Id issued on initialize, required and checked after, DELETE ends it,
   * unknown id → 404. false (edge): stateless, every POST stands alone (a fresh McpSession with the
   * version from MCP-Protocol-Version or initialize), no Mcp-Session-Id, GET → 405 with Allow: POST.
   */
  sessions: boolean;
  /** Accepted Host header values (lower-case host or host:port); undefined = no Host check. Bad → 403. */
  allowedHosts?: readonly string[];
  /** Whether a request carrying this Origin may call (no Origin header = allowed). Foreign → 403. */
  isAllowedOrigin(origin: string, connection: ConnectionInfo): boolean;
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

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_SESSIONS = 256;
const DEFAULT_MAX_LIVE_RUNS_PER_SESSION = 4;
/**
 * Ending a session over HTTP (DELETE, making room for another, the server stopping) cancels its
 * requests in flight at once, live scripts killed: no grace period, since the client asked for the
 * end or is being replaced. What is cancelled is then awaited at most CLOSE_WAIT_MS. (A stateless
 * request's session is closed once its answer is out, with nothing left in flight.)
 */
export const CLOSE_GRACE_MS = 0;
export const CLOSE_WAIT_MS = 3_000;

/** What the router and both eras share. */
export interface HandlerScope {
  readonly options: McpHttpOptions;
  readonly maxBodyBytes: number;
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
  logProblem(text: string): void;
  /** A session for `client`; `version` when one was agreed outside it (a stateless request's header). */
  openSession(client: ClientId, send: Send, version?: ProtocolVersion): McpSession;
  /**
   * The sessions of one POST still answering (a 2026-07-28 `subscriptions/listen` stays open):
   * a switched tree is told to them as to the table's sessions.
   */
  readonly oneShotSessions: Set<McpSession>;
}

export function createHandlerScope(options: McpHttpOptions): HandlerScope {
  const maxLiveRuns = options.maxLiveRunsPerSession ?? DEFAULT_MAX_LIVE_RUNS_PER_SESSION;
  const liveGates = new ClientLiveGates(options.maxLiveRunsPerClient ?? DEFAULT_MAX_LIVE_RUNS_PER_CLIENT);
  const answerLimits = options.answerLimits ?? {};

  /**
   * A session's context: the host's, with live runs limited per session and per client. The tree
   * and its reader are read through to the host's context, where a switched tree lands (a copy
   * would keep answering from the tree the session opened on).
   */
  const sessionContext = (client: ClientId): ServerContext => {
    const host = options.server(client);
    return viewOf(host, {
      // A waiting run that is cancelled never starts.
      ...(host.live
        ? { live: gateLiveRuns(liveGates.limitRuns(host.live, client.key), new ConcurrencyGate(maxLiveRuns)) }
        : {}),
      // Documents' pages are made absolute from the origin the request was addressed to.
      ...(client.requestOrigin ? { requestOrigin: client.requestOrigin } : {}),
    });
  };

  return {
    options,
    oneShotSessions: new Set(),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    maxSessionsPerClient: options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT,
    logProblem(text) {
      try {
        (options.logProblem ?? options.server().logProblem)(text);
      } catch {
        // A log line must never break an answer.
      }
    },
    openSession(client, send, version) {
      return new McpSession(
        sessionContext(client),
        send,
        version === undefined ? { answerLimits } : { version, answerLimits },
      );
    },
  };
}

/** The host's context with `changes`, reading the tree and its reader through to the host's (a switched tree lands there). */
function viewOf(host: ServerContext, changes: Partial<ServerContext>): ServerContext {
  if (Object.keys(changes).length === 0) return host;
  return {
    ...host,
    ...changes,
    get tree() {
      return host.tree;
    },
    set tree(tree) {
      host.tree = tree;
    },
    get reader() {
      return host.reader;
    },
    set reader(reader) {
      host.reader = reader;
    },
  };
}
