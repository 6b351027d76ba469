// Which era one request belongs to, read from its own `_meta` (MCP 2026-07-28): nothing is
// assumed per connection, so one stdio process or HTTP endpoint answers both eras side by side.
// A request is modern when its `_meta` carries any `io.modelcontextprotocol/` request field, when
// it calls a modern-only method, or when the transport says so (an HTTP MCP-Protocol-Version
// header naming a modern version); everything else is legacy and is answered exactly as before.
// Pure and portable; never throws.
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import { methodRow } from './method-table.js';
import { isModernVersion, MODERN_VERSIONS, type ModernVersion } from './protocol-versions.js';
import { LOG_LEVELS } from './server-context.js';
import type { LogLevel } from '../results/log-lines.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** The request fields that mark a request as modern (any one of them). */
const MODERN_REQUEST_KEYS = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL];

/** UnsupportedProtocolVersion (2026-07-28): a modern request naming a version we do not serve. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export interface ModernRequest {
  era: 'modern';
  version: ModernVersion;
  clientCapabilities: JsonObject;
  /** Absent = the client wants no `notifications/message` for this request. */
  logLevel?: LogLevel;
}

export type RequestEra = { era: 'legacy' } | ModernRequest | { era: 'invalid'; error: RpcError };

const LEGACY: RequestEra = { era: 'legacy' };

/** Whether this request's body claims the modern era (before any of it is validated). */
export function claimsModernEra(method: string, params: JsonObject | undefined): boolean {
  if (methodRow(method)?.era === 'modern') return true;
  const meta = params?._meta;
  return isObject(meta) && MODERN_REQUEST_KEYS.some((key) => key in meta);
}

/**
 * The era of one request and, when modern, what its `_meta` says. `modernByTransport` is true
 * when the transport already named a modern version (HTTP header): a body without `_meta` is then
 * a malformed modern request, not a legacy one. Missing required fields → -32602 (the spec's
 * "malformed"); a version we do not serve → -32022 with `{supported, requested}`.
 */
export function readRequestEra(method: string, params: JsonObject | undefined, modernByTransport = false): RequestEra {
  if (!modernByTransport && !claimsModernEra(method, params)) return LEGACY;
  const meta = isObject(params?._meta) ? params._meta : undefined;
  if (meta === undefined) {
    return invalid(
      `${method} needs params._meta with ${META_PROTOCOL_VERSION} and ${META_CLIENT_CAPABILITIES} (protocol version ${MODERN_VERSIONS[0]}; older clients send initialize first)`,
    );
  }
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string' || version === '')
    return invalid(`params._meta needs ${META_PROTOCOL_VERSION} (a string such as "${MODERN_VERSIONS[0]}")`);
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isObject(capabilities))
    return invalid(`params._meta needs ${META_CLIENT_CAPABILITIES} (an object; {} declares none)`);
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !isObject(info))
    return invalid(`params._meta ${META_CLIENT_INFO} must be an object with name and version`);
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(level)) {
    return invalid(`params._meta ${META_LOG_LEVEL} must be one of ${LOG_LEVELS.join(', ')}`);
  }
  if (!isModernVersion(version)) return { era: 'invalid', error: unsupportedVersion(version) };
  return {
    era: 'modern',
    version,
    clientCapabilities: capabilities,
    ...(level !== undefined ? { logLevel: level as LogLevel } : {}),
  };
}

/** The versions a request may name in `_meta`: what server/discover lists and -32022 repeats. */
export function supportedModernVersions(): string[] {
  return [...MODERN_VERSIONS];
}

export function unsupportedVersion(requested: string): RpcError {
  return new RpcError(
    UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version ${JSON.stringify(requested.slice(0, 40))}: per-request _meta may name ${MODERN_VERSIONS.join(', ')}; older versions are agreed with initialize`,
    { supported: supportedModernVersions(), requested },
  );
}

function invalid(message: string): RequestEra {
  return { era: 'invalid', error: new RpcError(INVALID_PARAMS, `Invalid params: ${message}`) };
}
