// The 2026-07-28 era over HTTP: each POST carries one request whose `_meta` names its version, is
// checked in the spec's order (malformed _meta → -32602, headers that disagree with the body →
// -32020, a version we do not serve → -32022, all HTTP 400), then answered by a session of its own:
// nothing outlives the request, no session id. The HTTP status says what an error is (an unknown
// method is 404, so a client can tell us from a legacy server) and Cache-Control carries a
// result's cache hints.
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from '../client-capabilities.js';
import { classifyMessage, errorResponse, INVALID_REQUEST, METHOD_NOT_FOUND } from '../json-rpc.js';
import { readRequestEra, UNSUPPORTED_PROTOCOL_VERSION } from '../request-meta.js';
import type { ClientId } from './client-quotas.js';
import type { HttpAnswer, HttpExchange } from './http-exchange.js';
import type { HandlerScope } from './http-options.js';
import { answerWithOneShotSession } from './post-answer.js';
import { emptyAnswer, jsonAnswer, jsonError } from './json-answers.js';
import type { Accepts } from './media-types.js';
import { findHeaderMismatch } from './modern-http-headers.js';
import type { ParsedBody } from './request-body.js';

type Outgoing = Record<string, unknown>;

export function postPerRequest(
  scope: HandlerScope,
  exchange: HttpExchange,
  client: ClientId,
  parsed: ParsedBody,
  accepts: Accepts,
  headerIsModern: boolean,
): Promise<HttpAnswer> | HttpAnswer {
  const message = parsed.single;
  if (!message) {
    // Notifications and client responses have no modern meaning over HTTP (cancelling is closing the stream).
    if (!parsed.isBatch && parsed.requestIds.length === 0 && classifyMessage(parsed.value).kind !== 'invalid')
      return emptyAnswer(202);
    return jsonError(
      400,
      INVALID_REQUEST,
      'Invalid Request: a protocol version 2026-07-28 POST carries exactly one JSON-RPC request',
    );
  }
  const era = readRequestEra(message.method, message.params, headerIsModern);
  if (era.era === 'invalid' && era.error.code !== UNSUPPORTED_PROTOCOL_VERSION)
    return jsonAnswer(400, errorResponse(message.id, era.error.code, era.error.message, era.error.data));
  const mismatch = findHeaderMismatch(exchange.header, message.method, message.params);
  if (mismatch) return jsonAnswer(400, errorResponse(message.id, mismatch.code, mismatch.message));
  if (era.era === 'invalid')
    return jsonAnswer(400, errorResponse(message.id, era.error.code, era.error.message, era.error.data));
  const session = scope.openSession(client, () => {});
  return answerWithOneShotSession(scope, { exchange, parsed, session, accepts, statusOf: modernAnswerStatus });
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
