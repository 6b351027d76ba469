// The request headers Streamable HTTP 2026-07-28 mirrors from the body (SEP-2243):
// `MCP-Protocol-Version` (= `_meta` protocolVersion), `Mcp-Method` (= method) and `Mcp-Name`
// (= params.name or params.uri for tools/call, prompts/get, resources/read). Load balancers may
// route on the headers while we execute the body, so any disagreement, a missing header or a
// malformed value is refused (HTTP 400, HeaderMismatch -32020) before the body is acted on.
// Portable: Web APIs only.
import { RpcError } from '../json-rpc.js';
import { methodRow } from '../method-table.js';
import { META_PROTOCOL_VERSION } from '../request-meta.js';
import type { JsonObject } from '../../tree/json-object.js';
import type { HeaderReader } from './http-exchange.js';

export const HEADER_MISMATCH = -32020;

/** `=?base64?…?=`: a value that is not plain header-safe ASCII, Base64 of its UTF-8 bytes. */
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** Visible ASCII, space and tab: what RFC 9110 allows in a field value. */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;

/**
 * A header's value as the client meant it: surrounding whitespace removed (RFC 9110 OWS), the
 * Base64 sentinel decoded. undefined when absent; 'malformed' when it cannot be read.
 */
export function readMirroredHeader(header: HeaderReader, name: string): string | undefined | 'malformed' {
  const raw = header(name.toLowerCase());
  if (raw === null) return undefined;
  const value = raw.trim();
  if (!HEADER_SAFE.test(value)) return 'malformed';
  const encoded = BASE64_SENTINEL.exec(value);
  if (!encoded) return value;
  try {
    const binary = atob(encoded[1] ?? '');
    const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'malformed';
  }
}

/** The first way the headers disagree with this modern request's body, or undefined when they agree. */
export function findHeaderMismatch(
  header: HeaderReader,
  method: string,
  params: JsonObject | undefined,
): RpcError | undefined {
  const meta = params?._meta as JsonObject | undefined;
  const bodyVersion = meta?.[META_PROTOCOL_VERSION];
  const checks: [header: string, body: unknown][] = [
    ['MCP-Protocol-Version', bodyVersion],
    ['Mcp-Method', method],
  ];
  const nameField = methodRow(method)?.nameField;
  if (nameField !== undefined) checks.push(['Mcp-Name', params?.[nameField]]);
  for (const [name, body] of checks) {
    const value = readMirroredHeader(header, name);
    if (value === undefined)
      return mismatch(`the ${name} header is required (it must equal the body's ${describe(name)})`);
    if (value === 'malformed') return mismatch(`the ${name} header is not a valid header value`);
    if (value !== body) {
      return mismatch(
        `${name} header value ${JSON.stringify(value.slice(0, 100))} does not match body value ${JSON.stringify(typeof body === 'string' ? body.slice(0, 100) : (body ?? null))}`,
      );
    }
  }
  return undefined;
}

function describe(header: string): string {
  if (header === 'Mcp-Method') return 'method';
  if (header === 'Mcp-Name') return 'params.name or params.uri';
  return `params._meta["${META_PROTOCOL_VERSION}"]`;
}

function mismatch(detail: string): RpcError {
  return new RpcError(HEADER_MISMATCH, `Header mismatch: ${detail}`);
}
