// Multi round-trip requests (MCP 2026-07-28, SEP-2322) for live tool calls. A modern client gets
// no server→client request: when a script asks something (a line on fd 3), the call is answered
// with an InputRequiredResult (`inputRequests` keyed by the question's `key`, plus an opaque
// `requestState`), and the client re-sends the call with `inputResponses` and that state. The
// script then runs again from the start and its questions are answered from what was gathered.
// `requestState` carries the answers gathered so far, bound to the tool and its arguments, with
// an expiry, and signed with HMAC-SHA-256 under a key made once per process (Web Crypto, so the
// edge could do it too): a state that was changed, came from another process, or belongs to
// another call is refused with -32602. Pure and portable: no node:, no Buffer, no process.
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import { base64FromBytes, base64UrlFromText, textFromBase64Url, utf8Bytes } from '../tree/utf8.js';
import { sameJson } from '../tree/canonical-json.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

/** How long a requestState stays good: a person answering an elicitation may take a while. */
export const REQUEST_STATE_TTL_MS = 60 * 60 * 1000;
/** A larger requestState is refused unread (it holds answers, not files). */
export const MAX_REQUEST_STATE_CHARS = 4 * 1024 * 1024;
/** After a question nobody has answered yet, how long the script may go on writing more questions. */
export const QUESTION_SETTLE_MS = 150;
/** Question keys the client sees (the spec leaves them to the server; ours stay short and printable). */
const KEY_PATTERN = /^[A-Za-z0-9_.:/-]{1,100}$/;

/** Marks a tool result as an InputRequiredResult, so the modern envelope keeps its resultType. */
export const INPUT_REQUIRED = Symbol('input_required');

/** One question a script asked that the client has not answered yet. */
export interface InputRequest {
  method: string;
  params: JsonObject;
}

/** What the client sent with a re-sent call: the answers by key (already checked). */
export interface RoundTripInput {
  answers: Map<string, JsonObject>;
}

interface StatePayload {
  v: 1;
  tool: string;
  args: JsonObject;
  answers: JsonObject;
  exp: number;
}

/** Web Crypto's key type, named without a DOM or Node lib (both compile this file). */
type HmacKey = Parameters<typeof crypto.subtle.sign>[1];

let signingKey: Promise<HmacKey> | undefined;

/** The per-process HMAC key, made on first use (states do not survive a restart, by design). */
function stateKey(): Promise<HmacKey> {
  signingKey ??= crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]) as Promise<HmacKey>;
  return signingKey;
}

function base64Url(bytes: Uint8Array): string {
  return base64FromBytes(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function bytesFromBase64Url(encoded: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  try {
    const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The opaque requestState for a call that gathered `answers` so far: `<payload>.<signature>`. */
export async function sealRequestState(
  tool: string,
  args: JsonObject,
  answers: JsonObject,
  now = Date.now(),
): Promise<string> {
  const payload: StatePayload = { v: 1, tool, args, answers, exp: now + REQUEST_STATE_TTL_MS };
  const body = base64UrlFromText(JSON.stringify(payload));
  const signature = await crypto.subtle.sign('HMAC', await stateKey(), utf8Bytes(body));
  return `${body}.${base64Url(new Uint8Array(signature))}`;
}

function invalidState(why: string): RpcError {
  return new RpcError(
    INVALID_PARAMS,
    `Invalid params: requestState ${why}; call the tool again without requestState to start over`,
  );
}

/** The answers a requestState carries, after checking it is ours, unchanged, current and for this call. */
export async function openRequestState(
  state: string,
  tool: string,
  args: JsonObject,
  now = Date.now(),
): Promise<JsonObject> {
  if (state.length > MAX_REQUEST_STATE_CHARS) throw invalidState('is too large');
  const dot = state.indexOf('.');
  const body = dot > 0 ? state.slice(0, dot) : '';
  const signature = dot > 0 ? bytesFromBase64Url(state.slice(dot + 1)) : undefined;
  if (!signature || !(await crypto.subtle.verify('HMAC', await stateKey(), signature, utf8Bytes(body)))) {
    throw invalidState('failed its integrity check (it was changed, or this server restarted since it was issued)');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(textFromBase64Url(body));
  } catch {
    throw invalidState('cannot be read');
  }
  if (!isObject(payload) || payload.v !== 1 || !isObject(payload.answers) || typeof payload.exp !== 'number')
    throw invalidState('cannot be read');
  if (payload.exp < now) throw invalidState('has expired');
  if (payload.tool !== tool || !sameJson(payload.args, args))
    throw invalidState('belongs to another call (a different tool or other arguments)');
  return payload.answers;
}

/**
 * The answers a modern tools/call brings: those sealed in `requestState` with `inputResponses` on
 * top (a client may also answer without a state, e.g. straight away). Malformed input is -32602:
 * `inputResponses` that is not an object, an answer that is not an object (each is the client's
 * result for one request), a `requestState` that is not a string or not ours.
 */
export async function readRoundTripInput(
  params: JsonObject | undefined,
  tool: string,
  args: JsonObject,
): Promise<RoundTripInput> {
  const answers = new Map<string, JsonObject>();
  const state = params?.requestState;
  if (state !== undefined) {
    if (typeof state !== 'string')
      throw new RpcError(INVALID_PARAMS, 'Invalid params: requestState must be the string the server sent');
    for (const [key, answer] of Object.entries(await openRequestState(state, tool, args))) {
      if (isObject(answer)) answers.set(key, answer);
    }
  }
  if ('inputResponses' in (params ?? {})) {
    const responses = params!.inputResponses;
    if (!isObject(responses))
      throw new RpcError(
        INVALID_PARAMS,
        'Invalid params: inputResponses must be an object of answers keyed like inputRequests',
      );
    for (const [key, answer] of Object.entries(responses)) {
      if (!isObject(answer)) {
        throw new RpcError(
          INVALID_PARAMS,
          `Invalid params: inputResponses.${key.slice(0, 100)} must be an object (the client's result for that request)`,
        );
      }
      answers.set(key, answer);
    }
  }
  return { answers };
}

/** The key a question goes by: the script's own (`"key"` on its line), else its place in the run. */
export function questionKey(given: unknown, index: number): string | { problem: string } {
  if (given === undefined) return `input-${index}`;
  if (typeof given !== 'string' || !KEY_PATTERN.test(given)) {
    return { problem: '"key" must be a string of 1 to 100 letters, digits or _ . : / -' };
  }
  return given;
}

/** The InputRequiredResult for the questions still open (marked for the modern envelope). */
export async function inputRequiredResult(
  tool: string,
  args: JsonObject,
  open: Map<string, InputRequest>,
  used: JsonObject,
): Promise<JsonObject> {
  return {
    [INPUT_REQUIRED]: true,
    inputRequests: Object.fromEntries(open),
    requestState: await sealRequestState(tool, args, used),
  };
}
