// node:http ↔ Web Request/Response, so the portable MCP handler runs under Node's own server.
// The body is pulled from the socket only as fast as the handler reads it (the handler stops at
// its size cap, so a huge body is never buffered); the Request's signal aborts when the client
// goes away before the answer is complete, which cancels the work behind it.
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Node loads fetch's Request and Response (undici) the first time either is touched, ~18 ms that
 * the first request to a new server would otherwise wait for.
 */
export function preloadWebClasses(): void {
  void globalThis.Request;
}

/** Methods whose body the MCP handler reads; any other body is left unread. */
const METHODS_WITH_BODY = new Set(['POST']);

export interface WebExchange {
  request: Request;
  /** Whether the handler stopped reading the body before its end (the connection is then closed). */
  bodyLeftUnread(): boolean;
  /**
   * Reads and drops the rest of a body the handler refused, up to `maxBytes`: a client still
   * sending would otherwise get a connection reset instead of reading the answer (413, 415 …).
   * Resolves true when the body ended within the cap.
   */
  drainBody(maxBytes: number): Promise<boolean>;
}

export function toWebRequest(incoming: IncomingMessage, response: ServerResponse, baseUrl: string): WebExchange {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    try {
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
    } catch {
      // A header value the Fetch API refuses: dropped, as a proxy would.
    }
  }
  let url: URL;
  try {
    url = new URL(incoming.url ?? '/', baseUrl);
  } catch {
    url = new URL('/', baseUrl);
  }
  const method = incoming.method ?? 'GET';
  let ended = !METHODS_WITH_BODY.has(method);
  let body: ReadableStream<Uint8Array> | undefined;
  let chunks: AsyncIterator<unknown> | undefined;
  if (!ended) {
    chunks = incoming[Symbol.asyncIterator]();
    body = new ReadableStream<Uint8Array>(
      {
        async pull(stream) {
          try {
            const next = await chunks!.next();
            if (next.done) {
              ended = true;
              stream.close();
            } else {
              stream.enqueue(new Uint8Array(next.value as Buffer));
            }
          } catch (error) {
            stream.error(error);
          }
        },
      },
      { highWaterMark: 0 },
    );
  }
  const request = new Request(url, {
    method,
    headers,
    signal: controller.signal,
    ...(body ? { body, duplex: 'half' } : {}),
  } as RequestInit);
  const drainBody = async (maxBytes: number): Promise<boolean> => {
    if (ended || incoming.readableEnded || !chunks) return true;
    let drained = 0;
    try {
      for (;;) {
        const next = await chunks.next();
        if (next.done) return true;
        drained += (next.value as Buffer).length;
        if (drained > maxBytes) return false;
      }
    } catch {
      return false;
    }
  };
  return { request, bodyLeftUnread: () => !ended && !incoming.readableEnded, drainBody };
}

/**
 * Writes a Web Response to Node's response, respecting back-pressure; stops when the client leaves,
 * and cuts a client that takes none of its answer for `writeTimeoutMs` (its buffered answer freed).
 */
export async function writeWebResponse(
  response: Response,
  outgoing: ServerResponse,
  closeConnection: boolean,
  writeTimeoutMs = Number.POSITIVE_INFINITY,
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (closeConnection) headers.connection = 'close';
  outgoing.writeHead(response.status, headers);
  // Headers out now: an SSE client sees the stream open before the first event.
  outgoing.flushHeaders();
  if (!response.body) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = (): void => {
    void reader.cancel().catch(() => {});
  };
  outgoing.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (outgoing.destroyed) break;
      if (!outgoing.write(value)) await waitForDrain(outgoing, writeTimeoutMs);
    }
  } catch {
    // The stream failed or was cancelled: end what we have.
  } finally {
    outgoing.off('close', onClose);
    if (!outgoing.destroyed) {
      outgoing.end();
      // The last chunks may still wait in our buffer for a client that does not read.
      if (!outgoing.writableFinished) void waitForDrain(outgoing, writeTimeoutMs, 'finish');
    }
  }
}

/**
 * Resolves once `outgoing` takes more (`drain`), finishes, or closes; after `timeoutMs` without
 * that, the connection is destroyed: a client that stopped reading must not hold its answer in
 * this process's memory (nor the socket) for longer.
 */
function waitForDrain(outgoing: ServerResponse, timeoutMs: number, event: 'drain' | 'finish' = 'drain'): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          outgoing.destroy();
          settle();
        }, timeoutMs)
      : undefined;
    const settle = (): void => {
      clearTimeout(timer);
      outgoing.off(event, settle);
      outgoing.off('close', settle);
      resolve();
    };
    outgoing.on(event, settle);
    outgoing.on('close', settle);
  });
}
