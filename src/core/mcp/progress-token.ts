// The progressToken a request names, read once for both eras. The token is the one client value
// copied into every notification a request causes (each progress tick of a live run that prints
// log lines), so its size is capped: a request with a longer token is refused with -32602 rather
// than answered without progress, so the client learns why and what to change, and a small request
// can no longer buy megabytes of notifications per log line.
import { INVALID_PARAMS, RpcError } from './json-rpc.js';

/**
 * Characters of a string progressToken. Clients use counters or UUIDs (36 characters); 256 leaves
 * any naming scheme room while a token copied into each notification stays a few hundred bytes.
 */
export const MAX_PROGRESS_TOKEN_CHARS = 256;

/** The token of a request's `_meta` (undefined when it names none); throws -32602 for one too long. */
export function readProgressToken(meta: unknown): string | number | undefined {
  const token = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>).progressToken : undefined;
  if (typeof token === 'number') return token;
  if (typeof token !== 'string') return undefined;
  if (token.length > MAX_PROGRESS_TOKEN_CHARS)
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: _meta.progressToken is ${token.length} characters long, more than the ${MAX_PROGRESS_TOKEN_CHARS} this server copies into progress notifications; use a shorter token`,
    );
  return token;
}
