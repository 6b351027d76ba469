// node:http ↔ the portable handler's exchange (core/mcp/http/http-exchange.ts), with no fetch
// Request or Response in between: building those, and pulling the body through a web stream, cost
// more than the rest of a precomputed call. The body is read from the socket only when the handler
// asks, and only up to its size cap (a huge body is never buffered); a JSON answer goes out as
// headers and body in one write; an SSE answer is piped with back-pressure and a write timeout.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAnswer, HttpExchange } from '../../../core/mcp/http/http-exchange.js';

export interface NodeExchange {
  exchange: HttpExchange;
  /**
   * What became of the body: read to its end (or there is none to read), never read (the request
   * was refused before it mattered), or cut short (too large, or the client went away mid-body).
   */
  bodyState(): 'read' | 'unread' | 'cut';
  /**
   * Reads and drops the rest of a body the handler refused, up to `maxBytes`: a client still
   * sending would otherwise get a connection reset instead of reading the answer (413, 415 …).
   * Resolves true when the body ended within the cap.
   */
  drainBody(maxBytes: number): Promise<boolean>;
}

/** Methods whose body the MCP handler reads; any other body is left to Node (it discards it). */
const METHODS_WITH_BODY = new Set(['POST']);

export function exchangeOfNodeRequest(incoming: IncomingMessage, outgoing: ServerResponse): NodeExchange {
  const method = incoming.method ?? 'GET';
  let ended = !METHODS_WITH_BODY.has(method);
  let started = false;
  const exchange: HttpExchange = {
    method,
    header(name) {
      const value = incoming.headers[name];
      if (value === undefined) return null;
      return typeof value === 'string' ? value : value.join(', ');
    },
    readBody(maxBytes) {
      const declared = Number(incoming.headers['content-length'] ?? '0');
      started = true;
      if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve('too large');
      return readBounded(incoming, maxBytes).then((read) => {
        if (typeof read !== 'string') ended = true;
        return read;
      });
    },
    onClientGone(listener) {
      const onClose = (): void => {
        if (!outgoing.writableFinished) listener();
      };
      outgoing.once('close', onClose);
      return () => outgoing.off('close', onClose);
    },
  };
  return {
    exchange,
    bodyState: () => (ended || incoming.readableEnded ? 'read' : started ? 'cut' : 'unread'),
    drainBody: (maxBytes) => (ended || incoming.readableEnded ? Promise.resolve(true) : drain(incoming, maxBytes)),
  };
}

/** The whole body as one buffer, or 'too large' past `maxBytes` (reading stops there), or 'unreadable'. */
function readBounded(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array | 'too large' | 'unreadable'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (result: Uint8Array | 'too large' | 'unreadable'): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onFailure);
      incoming.off('close', onFailure);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) {
        incoming.pause();
        finish('too large');
      } else chunks.push(chunk);
    };
    const onEnd = (): void => finish(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, total));
    const onFailure = (): void => finish('unreadable');
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onFailure);
    // Closed before its end: the client went away mid-body.
    incoming.on('close', onFailure);
  });
}

/** Reads and drops up to `maxBytes` more; true when the body ended within them. */
function drain(incoming: IncomingMessage, maxBytes: number): Promise<boolean> {
  return new Promise((resolve) => {
    let drained = 0;
    const finish = (endedWithin: boolean): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onFailure);
      incoming.off('close', onFailure);
      if (!endedWithin) incoming.pause();
      resolve(endedWithin);
    };
    const onData = (chunk: Buffer): void => {
      drained += chunk.length;
      if (drained > maxBytes) finish(false);
    };
    const onEnd = (): void => finish(true);
    const onFailure = (): void => finish(false);
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onFailure);
    incoming.on('close', onFailure);
    incoming.resume();
  });
}

/**
 * Writes the handler's answer to Node's response. A JSON answer: status, headers and body in one
 * write (Node sets Content-Length). A stream: headers at once (an SSE client sees the stream open
 * before the first event), then the events with back-pressure; stops when the client leaves, and
 * cuts a client that takes none of its answer for `writeTimeoutMs` (its buffered answer freed).
 */
export async function writeAnswer(
  answer: HttpAnswer,
  outgoing: ServerResponse,
  closeConnection: boolean,
  writeTimeoutMs = Number.POSITIVE_INFINITY,
): Promise<void> {
  const { body } = answer;
  const headers = closeConnection ? { ...answer.headers, connection: 'close' } : answer.headers;
  if (body === null || typeof body === 'string') {
    // With its length known, Node sends the head and the body as one piece (not chunked). A 204
    // carries no length at all.
    if (answer.status !== 204) headers['content-length'] = String(body === null ? 0 : Buffer.byteLength(body));
    outgoing.writeHead(answer.status, headers);
    outgoing.end(body ?? undefined);
    // The answer may still wait in our buffer for a client that does not read.
    if (!outgoing.writableFinished) void waitForDrain(outgoing, writeTimeoutMs, 'finish');
    return;
  }
  outgoing.writeHead(answer.status, headers);
  outgoing.flushHeaders();
  const reader = body.getReader();
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
