// The edge → origin signature (src/core/origin/origin-signature.ts) in-process: what it binds
// (method, path, body, client), its replay window and its bounded nonce cache, which refuses as
// busy rather than forget a nonce still inside the window.
import { describe, expect, it } from 'vitest';
import {
  NonceCache,
  problemWithOriginKey,
  REPLAY_WINDOW_MS,
  signOriginRequest,
  verifyOriginRequest,
} from '../../src/core/origin/origin-signature.js';

const KEY = 'unit-test-origin-key-0123456789abcdef';
const body = new TextEncoder().encode('{"scriptPath":"tools/echo","phase":"live"}');

function headersOf(record: Record<string, string>): { get(name: string): string | undefined } {
  return { get: (name) => record[name] };
}

describe('origin signatures', () => {
  it('binds the method, the path, the body and the client', async () => {
    const now = Date.now();
    const signed = await signOriginRequest(
      KEY,
      { method: 'POST', path: '/live-run', body, client: '203.0.113.7' },
      now,
    );
    const verify = (parts: { method: string; path: string; body: Uint8Array }, headers = signed) =>
      verifyOriginRequest(KEY, headersOf(headers), parts, new NonceCache(), now);
    expect(await verify({ method: 'POST', path: '/live-run', body })).toEqual({ client: '203.0.113.7' });
    expect(await verify({ method: 'PUT', path: '/live-run', body })).toMatchObject({ status: 401 });
    expect(await verify({ method: 'POST', path: '/other', body })).toMatchObject({ status: 401 });
    expect(await verify({ method: 'POST', path: '/live-run', body: new Uint8Array([1]) })).toMatchObject({
      status: 401,
    });
    const otherClient = { ...signed, 'x-staticmcp-client': '198.51.100.1' };
    expect(await verify({ method: 'POST', path: '/live-run', body }, otherClient)).toMatchObject({ status: 401 });
  });

  it('refuses a request outside the replay window, either side', async () => {
    const now = Date.now();
    for (const skewMs of [-REPLAY_WINDOW_MS - 2000, REPLAY_WINDOW_MS + 2000]) {
      const signed = await signOriginRequest(
        KEY,
        { method: 'POST', path: '/live-run', body, client: 'c' },
        now + skewMs,
      );
      const verdict = await verifyOriginRequest(
        KEY,
        headersOf(signed),
        { method: 'POST', path: '/live-run', body },
        new NonceCache(),
        now,
      );
      expect(verdict).toMatchObject({ status: 401, problem: expect.stringMatching(/replay window/) });
    }
  });

  it('keeps nonces for the window, and is busy rather than forgetful when full', () => {
    const cache = new NonceCache(2);
    const now = 1_000_000;
    expect(cache.admit('a', now)).toBe('fresh');
    expect(cache.admit('a', now + 1000)).toBe('seen');
    expect(cache.admit('b', now)).toBe('fresh');
    expect(cache.admit('c', now)).toBe('full');
    // Once the first two have aged out of the window, there is room again.
    expect(cache.admit('c', now + 2 * REPLAY_WINDOW_MS + 1)).toBe('fresh');
  });

  it('says what is wrong with a key', () => {
    expect(problemWithOriginKey(undefined)).toMatch(/no STATICMCP_ORIGIN_KEY is set/);
    expect(problemWithOriginKey('short')).toMatch(/5 characters, fewer than the 32 required/);
    expect(problemWithOriginKey(KEY)).toBeUndefined();
  });
});
