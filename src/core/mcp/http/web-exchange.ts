// The handler's exchange over fetch's Request and Response, for the hosts that speak them (the edge
// worker; tests in-process). A request body the answer did not need (a foreign Origin refused
// before the body was read, a 405, a 406 …) is read and dropped before the answer goes out, up to
// a cap: workerd closes a connection whose request body was left unread, without a
// `Connection: close`, so a keep-alive client's next request on it failed with ECONNRESET (Node's
// server needs the same drain: node-exchange.ts). A body past the cap is cancelled (that
// connection then closes, as a client sending that much after a refusal deserves).
import type { HttpAnswer, HttpExchange } from './http-exchange.js';

export function exchangeOfRequest(request: Request): HttpExchange {
  return {
    method: request.method,
    header: (name) => request.headers.get(name),
    readBody: (maxBytes) => readRequestBody(request, maxBytes),
    onClientGone(listener) {
      const signal = request.signal;
      if (!signal) return () => {};
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}

export function responseOfAnswer(answer: HttpAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** The body's bytes, reading at most `maxBytes` (a larger body is refused before it is buffered). */
async function readRequestBody(request: Request, maxBytes: number): Promise<Uint8Array | 'too large' | 'unreadable'> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > maxBytes) return 'too large';
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => {});
        return 'too large';
      }
      chunks.push(value);
    }
  } catch {
    return 'unreadable';
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads and drops what is left of `request`'s body, at most `maxBytes`; never throws. */
export async function discardUnreadBody(request: Request, maxBytes: number): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  const reader = request.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}
