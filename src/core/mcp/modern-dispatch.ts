// The 2026-07-28 era's dispatch: each request stands alone, answered from its own _meta (version,
// capabilities, log level) with no handshake and no session; the handshake-only methods do not
// exist, and neither does a method whose capability this server does not declare (so
// server/discover and the methods always agree). Results carry resultType, serverInfo and the
// cache hints (public for tree answers, private when a script ran).
import type { AnswerRoom } from '../tree-reading/answer-room.js';
import type { Send } from './client-questions.js';
import { METHOD_NOT_FOUND, RpcError, type JsonRpcRequest } from './json-rpc.js';
import type { LiveRunner } from './live-port.js';
import { completeModernResult, discoverResult, type AnswerSource } from './modern-results.js';
import { readProgressToken } from './progress-token.js';
import { declaresCapability, serverCapabilities } from './server-capabilities.js';
import { type Handlers, isInEra, methodRow, type SessionMethod, unhandledMethod } from './method-table.js';
import type { ModernRequest } from './request-meta.js';
import { LOG_LEVELS, type RequestContext, type ServerContext } from './server-context.js';
import type { JsonObject } from '../tree/json-object.js';

/** What the session lends a modern request: whether it is closing, `subscriptions/listen`, the handlers. */
export interface ModernHooks {
  isClosing(): boolean;
  listen(signal: AbortSignal): Promise<unknown>;
  /** The lazily loaded handlers (handler-table.ts, which loads this module: passed in, not imported). */
  handlers(): Promise<Handlers>;
  /** What this request's answer may take (answer-budget.ts). */
  answerRoom?: AnswerRoom;
}

/**
 * A 2026-07-28 request: stateless, answered from its own _meta (version, capabilities, log level);
 * the handshake-only methods do not exist, and neither does a method whose capability this
 * server does not declare (so server/discover and the methods always agree).
 */
export async function dispatchModern(
  session: ServerContext,
  request: JsonRpcRequest,
  era: ModernRequest,
  signal: AbortSignal,
  notify: Send,
  hooks: ModernHooks,
): Promise<unknown> {
  const { method, params } = request;
  const row = methodRow(method);
  if (!row) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
  if (!isInEra(row, 'modern')) {
    throw new RpcError(
      METHOD_NOT_FOUND,
      `Method not found: ${method} does not exist in protocol version ${era.version} (it needs an initialize handshake)`,
    );
  }
  if (row.handler === 'session') {
    const own = method as SessionMethod<'modern'>;
    switch (own) {
      case 'server/discover':
        return completeModernResult(session, own, era.version, discoverResult(session, era.version), 'tree');
      case 'subscriptions/listen':
        return hooks.listen(signal);
      default:
        return unhandledMethod(own);
    }
  }
  const { capability } = row;
  if (capability !== undefined && !declaresCapability(serverCapabilities(session, era.version, true), capability)) {
    throw new RpcError(
      METHOD_NOT_FOUND,
      `Method not found: ${method} (this server declares no ${capability} capability)`,
    );
  }
  // Whether a script ran decides the cache hints: a live answer is nobody else's to reuse.
  let source: AnswerSource = 'tree';
  const live = session.live;
  const server = live
    ? {
        ...session,
        live: {
          run: (run) => {
            source = 'live';
            return live.run(run);
          },
        } satisfies LiveRunner,
      }
    : session;
  const result = await (await hooks.handlers())[row.handler](
    server,
    params,
    modernContext(params, era, signal, notify, hooks),
  );
  return completeModernResult(session, method, era.version, result, source);
}

function modernContext(
  params: JsonObject | undefined,
  era: ModernRequest,
  signal: AbortSignal,
  notify: Send,
  hooks: ModernHooks,
): RequestContext {
  const meta = params?._meta as JsonObject;
  const minimum = era.logLevel === undefined ? -1 : LOG_LEVELS.indexOf(era.logLevel);
  return {
    version: era.version,
    signal,
    progressToken: readProgressToken(meta),
    notify: (method, notificationParams) => {
      if (!signal.aborted && !hooks.isClosing()) notify({ jsonrpc: '2.0', method, params: notificationParams });
    },
    // Only a request that names a level gets notifications/message (never by default).
    wantsLog: (level) => minimum >= 0 && LOG_LEVELS.indexOf(level) >= minimum,
    // Server-to-client requests do not exist in this era: a tool call turns a script's question
    // into an InputRequiredResult instead (multiRoundTrip); anything else that asks is refused.
    askClient: (method) =>
      Promise.resolve({
        error: {
          code: METHOD_NOT_FOUND,
          message: `${method} cannot be sent as a request in protocol version ${era.version}: questions travel in an InputRequiredResult of tools/call`,
        },
      }),
    clientCapabilities: era.clientCapabilities,
    multiRoundTrip: true,
    ...(hooks.answerRoom ? { answerRoom: hooks.answerRoom } : {}),
  };
}
