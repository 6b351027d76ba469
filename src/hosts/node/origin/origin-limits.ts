// What `serve --origin` spends on a request before it knows the request is its edge's: how long
// headers and a body may take, how many connections not yet proven signed one peer (and everyone)
// may hold, how many unverified body bytes may be held at once, and how often refused requests
// are counted in the log. Each has a default and a STATICMCP_ORIGIN_* environment variable.
import { StaticMcpError } from '../../../core/staticmcp-error.js';

export interface OriginLimits {
  /** Time from a connection's first byte (or the previous request) to a request's last header. */
  headersTimeoutMs: number;
  /** Time from a request's last header to its body's last byte. */
  bodyTimeoutMs: number;
  /** Connections one remote address may hold open before one of its requests was signed. */
  connectionsPerPeer: number;
  /** The same, over every remote address. */
  connections: number;
  /** Body bytes of requests whose signature is not yet checked, held at once over all of them. */
  pendingBodyBytes: number;
  /** The same, for the requests of one remote address. */
  peerPendingBodyBytes: number;
  /** How often the refused requests of the last interval are logged (one line). */
  refusedLogIntervalMs: number;
}

export const ORIGIN_LIMIT_DEFAULTS: OriginLimits = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  connectionsPerPeer: 64,
  connections: 1024,
  pendingBodyBytes: 64 * 1024 * 1024,
  peerPendingBodyBytes: 16 * 1024 * 1024,
  refusedLogIntervalMs: 60_000,
};

/** Each limit's environment variable. */
export const ORIGIN_LIMIT_VARIABLES: Record<keyof OriginLimits, string> = {
  headersTimeoutMs: 'STATICMCP_ORIGIN_HEADERS_TIMEOUT_MS',
  bodyTimeoutMs: 'STATICMCP_ORIGIN_BODY_TIMEOUT_MS',
  connectionsPerPeer: 'STATICMCP_ORIGIN_PEER_CONNECTIONS',
  connections: 'STATICMCP_ORIGIN_CONNECTIONS',
  pendingBodyBytes: 'STATICMCP_ORIGIN_PENDING_BODY_BYTES',
  peerPendingBodyBytes: 'STATICMCP_ORIGIN_PEER_PENDING_BODY_BYTES',
  refusedLogIntervalMs: 'STATICMCP_ORIGIN_REFUSED_LOG_MS',
};

/** The limits, each from its variable when set (a whole number above 0), else its default. */
export function readOriginLimits(environment: NodeJS.ProcessEnv = process.env): OriginLimits {
  const limits = { ...ORIGIN_LIMIT_DEFAULTS };
  for (const [key, name] of Object.entries(ORIGIN_LIMIT_VARIABLES) as [keyof OriginLimits, string][]) {
    const text = environment[name];
    if (text === undefined || text === '') continue;
    const value = Number(text);
    // Node's timers hold at most 2^31 - 1 ms.
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1 || value > 2 ** 31 - 1)
      throw new StaticMcpError(
        'ORIGIN_LIMIT',
        `${name}=${JSON.stringify(text)} is not a whole number from 1 to ${2 ** 31 - 1}`,
        `set ${name} to a whole number (default ${ORIGIN_LIMIT_DEFAULTS[key]}), or unset it`,
      );
    limits[key] = value;
  }
  return limits;
}
