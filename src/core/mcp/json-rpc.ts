// JSON-RPC 2.0 as MCP uses it: message shapes, error codes, and the classification of one parsed
// frame into request / notification / response / invalid (with the id recovered when possible).
import { isObject } from '../tree/json-object.js';

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP's "resource not found" (legacy versions; still what clients expect). */
export const RESOURCE_NOT_FOUND = -32002;

/** An error a handler throws to answer with a JSON-RPC error instead of a result. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; id: RequestId | null; result?: unknown; error?: unknown }
  /** `code` when it is not Invalid Request (a message nested too deep is Invalid Params). */
  | { kind: 'invalid'; id: RequestId | null; reason: string; code?: number };

/**
 * How deeply a message may nest arrays and objects, the message object itself being level 1.
 * 128 is serde_json's default recursion limit, so a Rust client or bridge (the reference StaticMCP
 * one among them) could neither write nor read a deeper message; and every walker here that
 * recurses over a value (canonical JSON for keys, schema validation, JSON.stringify of an echo)
 * takes a few stack frames per level, so 128 levels stay far below Node's ~10,000 frames, where a
 * 100,000-deep `[[[…]]]` overflowed and printed a stack trace per request (issue 21, item 9).
 */
export const MAX_MESSAGE_NESTING = 128;

/** True when `value` nests arrays and objects deeper than `limit`; no recursion, stops early. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  // Two stacks side by side, not a pair per value: this walk runs over every message.
  const items: unknown[] = [value];
  const depths: number[] = [1];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() as number;
    if (item === null || typeof item !== 'object') continue;
    if (depth > limit) return true;
    if (Array.isArray(item)) {
      for (const child of item) {
        if (child === null || typeof child !== 'object') continue;
        items.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue;
      const child = (item as Record<string, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      items.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * How many values (array items and object members, at every level, a batch's messages included)
 * one message or batch may hold. Strings are bounded by the frame's byte cap, but a 4 MB frame
 * of `[0,0,0,…]` is 2,000,000 values, and every walk over arguments (keys, validation, the
 * "not precomputed" quote) costs per value: seconds of one event loop. 100,000 is far above any
 * argument a precomputed tree could answer (its file names are at most 4096 characters) and keeps
 * the walks over one message to milliseconds; live tools that take more data take it as a string.
 */
export const DEFAULT_MAX_MESSAGE_VALUES = 100_000;

/**
 * True when `value` holds more than `limit` array items and object members; no recursion, stops
 * early. A value nested past MAX_MESSAGE_NESTING (plus a batch's own level) is left to the depth
 * check, whose message says what is wrong with it.
 */
export function holdsMoreValuesThan(value: unknown, limit: number): boolean {
  let count = 0;
  const items: unknown[] = [value];
  const depths: number[] = [1];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() as number;
    if (item === null || typeof item !== 'object') continue;
    if (depth > MAX_MESSAGE_NESTING + 1) return false;
    if (Array.isArray(item)) {
      count += item.length;
      if (count > limit) return true;
      for (const child of item) {
        if (child === null || typeof child !== 'object') continue;
        items.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue;
      count += 1;
      if (count > limit) return true;
      const child = (item as Record<string, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      items.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Sorts one parsed JSON value (not an array: batches are split by the caller) into its kind. */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isObject(value)) return { kind: 'invalid', id: null, reason: 'a JSON-RPC message must be an object' };
  const id = isRequestId(value.id) ? value.id : null;
  // Before anything walks it: a deeper value would overflow the recursive walkers.
  if (nestsDeeperThan(value, MAX_MESSAGE_NESTING)) {
    return {
      kind: 'invalid',
      id,
      code: INVALID_PARAMS,
      reason: `the message nests arrays and objects more than ${MAX_MESSAGE_NESTING} levels deep; send a flatter value`,
    };
  }
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  if (!('method' in value)) {
    // The client's answer to a request of ours (a script asking it something); one we never sent
    // is dropped silently by the session, so a confused client is not punished.
    if ('id' in value && ('result' in value || 'error' in value))
      return { kind: 'response', id, result: value.result, error: value.error };
    return { kind: 'invalid', id, reason: 'a message needs a method (or a result or error)' };
  }
  if (typeof value.method !== 'string' || value.method === '')
    return { kind: 'invalid', id, reason: 'method must be a non-empty string' };
  if ('params' in value && value.params !== undefined && !isObject(value.params)) {
    return { kind: 'invalid', id, reason: 'params must be an object' };
  }
  const params = value.params as Record<string, unknown> | undefined;
  if (!('id' in value)) return { kind: 'notification', message: { jsonrpc: '2.0', method: value.method, params } };
  if (!isRequestId(value.id)) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' };
  return { kind: 'request', message: { jsonrpc: '2.0', id: value.id, method: value.method, params } };
}

export function errorResponse(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function resultResponse(id: RequestId, result: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result };
}
