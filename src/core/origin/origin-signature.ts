// How the edge proves to the live origin that a request is its own: HMAC-SHA256 (Web Crypto, so
// the worker and Node share this module) over the method, the path, the body's SHA-256, a
// timestamp, a nonce and the client the edge answers for. The origin refuses a stale timestamp
// (outside the replay window) and a nonce it has seen (a bounded cache), so a captured request
// cannot be sent again. What the headers alone show is checked before the body is read
// (checkOriginHeaders). Portable.
import { sha256HexOfBytes } from '../tree/sha256.js';
import { utf8Bytes } from '../tree/utf8.js';

export const ORIGIN_HEADERS = {
  timestamp: 'x-staticmcp-timestamp',
  nonce: 'x-staticmcp-nonce',
  client: 'x-staticmcp-client',
  signature: 'x-staticmcp-signature',
} as const;

/** The secret's name everywhere: the Workers secret binding and the origin's environment variable. */
export const ORIGIN_KEY_NAME = 'STATICMCP_ORIGIN_KEY';
/** Shorter secrets are refused on both sides: 32 characters of a random key is 128+ bits. */
export const MIN_ORIGIN_KEY_LENGTH = 32;
/** How old (or how far in the future, for clock skew) a signed request may be. */
export const REPLAY_WINDOW_MS = 60_000;
/** Longest client key the edge sends (an IP address, or a hash of one); longer ones are refused. */
const MAX_CLIENT_LENGTH = 200;

export interface SignedParts {
  method: string;
  /** The request's path and query, as the origin sees it. */
  path: string;
  body: Uint8Array;
  /** Who the edge answers for: the origin's per-client limits key on it. */
  client: string;
}

function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function bytesOfHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index += 1)
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

function importKey(secret: string): ReturnType<typeof crypto.subtle.importKey> {
  return crypto.subtle.importKey(
    'raw',
    utf8Bytes(secret) as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

async function signedText(parts: SignedParts, timestamp: string, nonce: string): Promise<Uint8Array<ArrayBuffer>> {
  const bodyDigest = await sha256HexOfBytes(parts.body);
  return utf8Bytes(
    ['staticmcp-origin-v1', parts.method.toUpperCase(), parts.path, bodyDigest, timestamp, nonce, parts.client].join(
      '\n',
    ),
  ) as Uint8Array<ArrayBuffer>;
}

/** Why a secret cannot be used, or undefined when it can. */
export function problemWithOriginKey(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return `no ${ORIGIN_KEY_NAME} is set`;
  if (secret.trim().length < MIN_ORIGIN_KEY_LENGTH)
    return `${ORIGIN_KEY_NAME} has ${secret.trim().length} characters, fewer than the ${MIN_ORIGIN_KEY_LENGTH} required`;
  return undefined;
}

/** The headers that sign `parts` with `secret` now. */
export async function signOriginRequest(
  secret: string,
  parts: SignedParts,
  nowMs = Date.now(),
): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const nonce = hexOf(crypto.getRandomValues(new Uint8Array(16)));
  const key = await importKey(secret.trim());
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, await signedText(parts, timestamp, nonce)));
  return {
    [ORIGIN_HEADERS.timestamp]: timestamp,
    [ORIGIN_HEADERS.nonce]: nonce,
    [ORIGIN_HEADERS.client]: parts.client,
    [ORIGIN_HEADERS.signature]: `v1=${hexOf(signature)}`,
  };
}

/**
 * Nonces seen inside the replay window. Bounded: when full of nonces that are all still inside
 * the window, a new request is refused as busy rather than an old nonce forgotten (which would let
 * its request be replayed).
 */
export class NonceCache {
  private readonly seen = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  /** Whether `nonce` was admitted and is still inside its window (nothing is remembered). */
  has(nonce: string, nowMs: number): boolean {
    const expiry = this.seen.get(nonce);
    return expiry !== undefined && expiry > nowMs;
  }

  /** 'fresh' (now remembered), 'seen' (a replay), or 'full'. */
  admit(nonce: string, nowMs: number): 'fresh' | 'seen' | 'full' {
    const expiry = this.seen.get(nonce);
    if (expiry !== undefined && expiry > nowMs) return 'seen';
    if (this.seen.size >= this.maxEntries) {
      // Insertion order is expiry order (each entry lives one window from when it was admitted).
      for (const [old, oldExpiry] of this.seen) {
        if (oldExpiry > nowMs) break;
        this.seen.delete(old);
      }
      if (this.seen.size >= this.maxEntries) return 'full';
    }
    // A timestamp up to one window ahead is accepted, so its nonce is kept for two windows.
    this.seen.set(nonce, nowMs + 2 * REPLAY_WINDOW_MS);
    return 'fresh';
  }
}

export type OriginVerdict = { client: string } | { status: 401 | 503; problem: string };

/** Why a request's signed headers are refused before its body is read (each is counted apart in the origin's log). */
export type HeaderRefusal = 'unsigned' | 'malformed signature headers' | 'stale timestamp' | 'replayed nonce';

/**
 * What can be checked of a signed request from its headers alone, before its body is read: the
 * signature headers are there and well formed (the `v1=` scheme, 64 hex digits, a 32-hex nonce, a
 * client of printable ASCII), the timestamp is inside the replay window, and the nonce is not one
 * already answered. A stranger without a plausible, fresh header set is refused here and costs
 * nothing more; the signature itself covers the body, so it is checked once the body is in.
 */
export function checkOriginHeaders(
  headers: { get(name: string): string | null | undefined },
  nonces: NonceCache,
  nowMs = Date.now(),
): { refusal: HeaderRefusal; problem: string } | undefined {
  const timestamp = headers.get(ORIGIN_HEADERS.timestamp) ?? '';
  const nonce = headers.get(ORIGIN_HEADERS.nonce) ?? '';
  const client = headers.get(ORIGIN_HEADERS.client) ?? '';
  const signature = headers.get(ORIGIN_HEADERS.signature) ?? '';
  if (!timestamp && !nonce && !signature)
    return {
      refusal: 'unsigned',
      problem: 'this is a staticmcp live origin: it answers only requests signed by its edge worker',
    };
  if (
    !/^\d{1,12}$/.test(timestamp) ||
    !/^[0-9a-f]{32}$/.test(nonce) ||
    client.length > MAX_CLIENT_LENGTH ||
    !/^[\x21-\x7e]*$/.test(client)
  )
    return { refusal: 'malformed signature headers', problem: 'the signature headers are malformed' };
  if (!/^v1=[0-9a-f]{64}$/.test(signature))
    return { refusal: 'malformed signature headers', problem: 'the signature is malformed' };
  if (Math.abs(nowMs - Number(timestamp) * 1000) > REPLAY_WINDOW_MS)
    return {
      refusal: 'stale timestamp',
      problem: `the request is older than the ${REPLAY_WINDOW_MS / 1000} s replay window (or the edge's and origin's clocks differ that much)`,
    };
  if (nonces.has(nonce, nowMs))
    return { refusal: 'replayed nonce', problem: 'this request was already answered (a replayed nonce)' };
  return undefined;
}

/** Checks a request's headers (checkOriginHeaders), then its signature over the body, then admits its nonce. */
export async function verifyOriginRequest(
  secret: string,
  headers: { get(name: string): string | null | undefined },
  parts: Omit<SignedParts, 'client'>,
  nonces: NonceCache,
  nowMs = Date.now(),
): Promise<OriginVerdict> {
  const early = checkOriginHeaders(headers, nonces, nowMs);
  if (early) return { status: 401, problem: early.problem };
  const timestamp = headers.get(ORIGIN_HEADERS.timestamp) ?? '';
  const nonce = headers.get(ORIGIN_HEADERS.nonce) ?? '';
  const client = headers.get(ORIGIN_HEADERS.client) ?? '';
  const provided = bytesOfHex((headers.get(ORIGIN_HEADERS.signature) ?? '').slice(3))!;
  const key = await importKey(secret.trim());
  const valid = await crypto.subtle.verify(
    'HMAC',
    key,
    provided,
    await signedText({ ...parts, client }, timestamp, nonce),
  );
  if (!valid)
    return {
      status: 401,
      problem: `the signature does not match: the edge and the origin do not share the same ${ORIGIN_KEY_NAME}, or the request was changed`,
    };
  const admitted = nonces.admit(nonce, nowMs);
  if (admitted === 'seen') return { status: 401, problem: 'this request was already answered (a replayed nonce)' };
  if (admitted === 'full') return { status: 503, problem: 'the origin is busy (its nonce cache is full)' };
  return { client };
}
