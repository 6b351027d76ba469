// The legacy era's lifecycle rule for one connection: before `initialize` has agreed a version,
// only `initialize` and `ping` are answered (MCP lifecycle: "the client SHOULD NOT send requests
// other than pings before the server has responded to the initialize request"). The spec names
// no error code; we answer -32600 Invalid Request, as for a second initialize, with a message
// that says what to send. An unknown method stays -32601, so a client probing for
// `server/discover` learns the method is not there and falls back to initialize. A 2026-07-28
// request never reaches this (its `_meta` carries the version), nor does a stateless HTTP POST
// (its session is created with the version from the MCP-Protocol-Version header).
import { INVALID_REQUEST, RpcError } from './json-rpc.js';
import type { MethodRow } from './method-table.js';
import type { ProtocolVersion } from './protocol-versions.js';

/** Throws -32600 for a legacy method sent before initialize agreed a version (unless its row allows it). */
export function refuseBeforeInitialize(method: string, row: MethodRow, version: ProtocolVersion | undefined): void {
  if (version !== undefined || row.beforeInitialize) return;
  throw new RpcError(
    INVALID_REQUEST,
    `Invalid request: ${method} before initialize; send initialize first (only ping is answered before it)`,
  );
}
