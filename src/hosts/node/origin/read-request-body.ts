// How the origin answers a request it refuses before reading its body (at once, closing the
// connection, the body left unread), and how it reads the body of one whose headers passed: within
// a deadline of its own (Node checks `requestTimeout` only on a periodic sweep), up to the largest
// run request, and within a byte budget shared by every request not yet proven signed.
import type http from 'node:http';

/** Answers `status` with a JSON body and closes the connection: nothing more of the request is read. */
export function answerAndClose(
  outgoing: http.ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  if (outgoing.headersSent) {
    outgoing.destroy();
    return;
  }
  outgoing.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    connection: 'close',
    ...headers,
  });
  // Node would otherwise read the rest of the body to keep the connection: it is closed once the
  // answer is out instead.
  outgoing.end(`${JSON.stringify(body)}\n`, () => outgoing.socket?.destroy());
}

/** Bytes of bodies held by requests whose signature is not checked yet, over every request. */
export class PendingBytes {
  private held = 0;

  constructor(readonly limit: number) {}

  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

export type BodyOutcome = { body: Uint8Array } | { refused: 'too large' | 'body too slow' | 'origin full' | 'aborted' };

/** The body, read within `timeoutMs` and `maxBytes`, its bytes counted in `pending` while it is read. */
export async function readRequestBody(
  incoming: http.IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
  pending: PendingBytes,
): Promise<BodyOutcome> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    return await new Promise<BodyOutcome>((resolve) => {
      const finish = (outcome: BodyOutcome): void => {
        clearTimeout(timer);
        incoming.off('data', onData);
        incoming.off('end', onEnd);
        incoming.off('aborted', onAborted);
        incoming.off('error', onAborted);
        incoming.pause();
        resolve(outcome);
      };
      const timer = setTimeout(() => finish({ refused: 'body too slow' }), timeoutMs);
      const onData = (chunk: Buffer): void => {
        if (size + chunk.length > maxBytes) finish({ refused: 'too large' });
        else if (!pending.take(chunk.length)) finish({ refused: 'origin full' });
        else {
          size += chunk.length;
          chunks.push(chunk);
        }
      };
      const onEnd = (): void => finish({ body: new Uint8Array(Buffer.concat(chunks, size)) });
      const onAborted = (): void => finish({ refused: 'aborted' });
      incoming.on('data', onData);
      incoming.once('end', onEnd);
      incoming.once('aborted', onAborted);
      incoming.once('error', onAborted);
    });
  } finally {
    pending.give(size);
  }
}
