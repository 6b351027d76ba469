// Who may call the endpoint and what a browser may read of the answer: the Host check (DNS
// rebinding) and the Origin check before anything else, CORS headers on every answer to an allowed
// Origin, and the preflight (OPTIONS) a page sends first.
import { isAllowedHost } from './host-check.js';
import type { HttpAnswer, HttpExchange } from './http-exchange.js';
import { emptyAnswer, jsonError, SERVER_ERROR } from './json-answers.js';

const ALLOWED_REQUEST_HEADERS =
  'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name';
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version';

/** The 403 for a Host not in `allowedHosts` (undefined: no check) or an Origin `isAllowedOrigin` refuses. */
export function refuseForeignCaller(
  exchange: HttpExchange,
  allowedHosts: readonly string[] | undefined,
  isAllowedOrigin: (origin: string) => boolean,
): HttpAnswer | undefined {
  if (allowedHosts !== undefined && !isAllowedHost(exchange.header('host'), allowedHosts))
    return jsonError(403, SERVER_ERROR, 'Forbidden: this server does not answer to that Host header');
  const origin = exchange.header('origin');
  if (origin !== null && !isAllowedOrigin(origin))
    return jsonError(403, SERVER_ERROR, 'Forbidden: requests from this Origin are not allowed');
  return undefined;
}

/** Only allowed origins get this far; an answer without CORS headers is not readable by a page. */
export function withCors(exchange: HttpExchange, answer: HttpAnswer): HttpAnswer {
  const origin = exchange.header('origin');
  if (origin === null) return answer;
  const { headers } = answer;
  headers['access-control-allow-origin'] = origin;
  headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  headers.vary = headers.vary === undefined ? 'Origin' : `${headers.vary}, Origin`;
  return answer;
}

/** OPTIONS: the methods the endpoint answers, and for a page, what it may send. */
export function preflight(exchange: HttpExchange, allow: string): HttpAnswer {
  const headers: Record<string, string> = { allow };
  if (exchange.header('origin') !== null) {
    headers['access-control-allow-methods'] = allow;
    headers['access-control-allow-headers'] = ALLOWED_REQUEST_HEADERS;
    headers['access-control-max-age'] = '86400';
  }
  return emptyAnswer(204, headers);
}
