// The legacy era's lifecycle rule for one connection: before `initialize` has agreed a version,
// only `initialize` and `ping` are answered (MCP lifecycle: "the client SHOULD NOT send requests
// other than pings before the server has responded to the initialize request"). The spec names
// no error code; we answer -32600 Invalid Request, as for a second initialize, with a message
// that says what to send. An unknown method stays -32601, so a client probing for
// `server/discover` learns the method is not there and falls back to initialize. A 2026-07-28
// request never reaches this (its `_meta` carries the version), nor does a stateless HTTP POST
// (its session is created with the version from the MCP-Protocol-Version header).
import { INVALID_REQUEST, RpcError } from './json-rpc.js';
import { CAPABILITY_BY_METHOD, LEGACY_ONLY_METHODS, type ProtocolVersion } from './protocol-versions.js';

/** Methods a legacy session answers besides initialize and ping; the rest are -32601 either way. */
const isSessionMethod = (method: string): boolean =>
  CAPABILITY_BY_METHOD.has(method) || (LEGACY_ONLY_METHODS.has(method) && method !== 'initialize' && method !== 'ping');

/** Throws -32600 for a session method sent before initialize agreed a version. */
export function refuseBeforeInitialize(method: string, version: ProtocolVersion | undefined): void {
  if (version !== undefined || !isSessionMethod(method)) return;
  throw new RpcError(
    INVALID_REQUEST,
    `Invalid request: ${method} before initialize; send initialize first (only ping is answered before it)`,
  );
}
