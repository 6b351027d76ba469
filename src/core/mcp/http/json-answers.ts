// The answers the HTTP handler builds itself: a JSON-RPC message as JSON, an HTTP error whose body
// is a JSON-RPC error without an id (the spec's form for transport errors), an empty answer.
import { stringifyJsonRpc } from '../exact-ids.js';
import { errorResponse } from '../json-rpc.js';
import type { HttpAnswer } from './http-exchange.js';
import { JSON_TYPE } from './media-types.js';

/** Server errors that have no JSON-RPC code of their own (the SDK uses the same two). */
export const SERVER_ERROR = -32000;
export const SESSION_NOT_FOUND = -32001;

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: stringifyJsonRpc(body) };
}

export function jsonError(status: number, code: number, message: string): HttpAnswer {
  return jsonAnswer(status, errorResponse(null, code, message));
}

export function emptyAnswer(status: number, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers, body: null };
}

export function methodNotAllowed(allow: string): HttpAnswer {
  const answer = jsonError(405, SERVER_ERROR, `Method Not Allowed: this endpoint answers ${allow}`);
  answer.headers.allow = allow;
  return answer;
}
