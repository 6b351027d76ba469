// Who a client of the HTTP endpoint is, and how many sessions it may hold, so that a flood of
// `initialize` requests or held GET streams from one client can never take a session from another
// (issue 21, item 6). The host says who the client is (`ClientOf`): by default the TCP peer address
// the host saw, plus the Origin header when there is one. Behind an edge that forwards requests
// (the live-origin plan) the host plugs in a function that reads the client the signed forwarded
// request names; X-Forwarded-For and the like are never trusted by default (anyone can send them).
// Portable: no node:, Buffer or process.
import type { HeaderReader } from './http-exchange.js';

/** One client as the quotas see it. */
export interface ClientId {
  /** The quota key: two requests with the same key are the same client. */
  key: string;
  /**
   * The network address it came from ('' when the host gave none): sessions are grouped by it first
   * when the whole table is full, so Origins made up by one machine still count as that machine.
   */
  address: string;
  /**
   * The origin the request was addressed to (ConnectionInfo.siteOrigin), not part of the key: the
   * session's documents' pages are made absolute from it when the tree has no publicUrl.
   */
  requestOrigin?: string;
}

/** What the host knows about the connection a request came on (things a client cannot forge). */
export interface ConnectionInfo {
  /** The TCP peer address (Node), or the address the edge's front end vouches for (CF-Connecting-IP). */
  peerAddress?: string;
  /** The origin the request was addressed to (the edge's request URL): a site may serve several. */
  siteOrigin?: string;
}

/** Works out the client of a request from its headers; replaceable by a host that knows better (a signed forward). */
export type ClientOf = (header: HeaderReader, connection: ConnectionInfo) => ClientId;

/**
 * The default: the peer address, which a remote client cannot choose, and the Origin when present,
 * which a browser cannot forge and which is the only thing that tells a web page apart from the
 * real client on the same machine (every local client shares 127.0.0.1). Keyed by both, one web
 * app's many visitors do not share one quota, and a page never shares the local client's.
 */
export const clientOfExchange: ClientOf = (header, connection) => {
  const address = connection.peerAddress ?? '';
  const origin = header('origin');
  // Bounded: the key is kept as long as the client's sessions are.
  const key = origin === null ? `address ${address}` : `origin ${origin.slice(0, 256)} from ${address}`;
  return { key, address };
};

/**
 * Sessions one client may hold at once. An agent or an Inspector tab holds one; a machine running a
 * dozen of them through one address stays well under 32, while one client flooding `initialize`
 * (or holding a GET stream on each session) fills at most an eighth of the default table of 256.
 */
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 32;

/** What the quotas need to know about one open session. */
export interface QuotaView {
  client: ClientId;
  /** Requests being answered: a busy session is never ended to make room. */
  busy: number;
  lastUsedMs: number;
  /** A GET stream is open on it (the client is listening). */
  holdsStream: boolean;
}

export type RoomDecision<T> =
  | { kind: 'room' }
  | { kind: 'end'; session: T }
  /** The client is at its own quota and every one of its sessions is busy. */
  | { kind: 'client full' }
  /** The table is full and no session may be ended for this client. */
  | { kind: 'server full' };

/**
 * Where a new session for `client` comes from. At the client's own quota: the client's own least
 * recently used session that is not busy (one without a stream first), so a flood only ever ends
 * the flooder's sessions. At the table's cap: a session of the address holding the most sessions,
 * within it of the client holding the most, preferring one without a stream, then the least
 * recently used; a session with a stream is ended only when its client holds more than its fair
 * share of the table (cap ÷ clients), since ending it cuts off a client that is listening.
 */
export function chooseRoomForSession<T>(
  sessions: Iterable<T>,
  viewOf: (session: T) => QuotaView,
  client: ClientId,
  limits: { maxSessions: number; maxSessionsPerClient: number },
): RoomDecision<T> {
  const all = [...sessions].map((session) => ({ session, view: viewOf(session) }));
  const own = all.filter((entry) => entry.view.client.key === client.key);
  if (own.length >= limits.maxSessionsPerClient) {
    const pick = leastValuable(own.filter((entry) => entry.view.busy === 0));
    return pick ? { kind: 'end', session: pick.session } : { kind: 'client full' };
  }
  if (all.length < limits.maxSessions) return { kind: 'room' };

  const perAddress = new Map<string, number>();
  const perClient = new Map<string, number>();
  for (const { view } of all) {
    perAddress.set(view.client.address, (perAddress.get(view.client.address) ?? 0) + 1);
    perClient.set(view.client.key, (perClient.get(view.client.key) ?? 0) + 1);
  }
  const clients = perClient.size + (perClient.has(client.key) ? 0 : 1);
  const fairShare = Math.max(1, Math.floor(limits.maxSessions / clients));
  const candidates = all.filter(
    ({ view }) => view.busy === 0 && (!view.holdsStream || (perClient.get(view.client.key) ?? 0) > fairShare),
  );
  const ranked = candidates.sort(
    (a, b) =>
      (perAddress.get(b.view.client.address) ?? 0) - (perAddress.get(a.view.client.address) ?? 0) ||
      (perClient.get(b.view.client.key) ?? 0) - (perClient.get(a.view.client.key) ?? 0) ||
      Number(a.view.holdsStream) - Number(b.view.holdsStream) ||
      a.view.lastUsedMs - b.view.lastUsedMs,
  );
  const pick = ranked[0];
  return pick ? { kind: 'end', session: pick.session } : { kind: 'server full' };
}

/** The session whose end costs least: no stream before a stream, then the least recently used. */
function leastValuable<E extends { view: QuotaView }>(entries: E[]): E | undefined {
  let best: E | undefined;
  for (const entry of entries) {
    if (
      !best ||
      Number(entry.view.holdsStream) - Number(best.view.holdsStream) < 0 ||
      (entry.view.holdsStream === best.view.holdsStream && entry.view.lastUsedMs < best.view.lastUsedMs)
    )
      best = entry;
  }
  return best;
}
