// How the origin answers a request it refuses before reading its body (at once, closing the
// connection, the body left unread), and how it reads the body of one whose headers passed: within
// a deadline of its own (Node checks `requestTimeout` only on a periodic sweep), up to the largest
// run request, and within a byte budget (per peer and in total) for requests not yet proven signed.
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
  // answer is out instead (the response lets go of its socket by then, so it is held here).
  const socket = outgoing.socket;
  outgoing.end(`${JSON.stringify(body)}\n`, () => socket?.destroy());
}

/**
 * Bytes of bodies held by requests whose signature is not checked yet: over every request, and
 * per remote address (so one stranger cannot fill the whole budget and starve the edge).
 */
export class PendingBytes {
  private held = 0;
  private readonly heldByPeer = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly limitPerPeer: number,
  ) {}

  take(peer: string, bytes: number): boolean {
    const peerHeld = this.heldByPeer.get(peer) ?? 0;
    if (this.held + bytes > this.limit || peerHeld + bytes > this.limitPerPeer) return false;
    this.held += bytes;
    this.heldByPeer.set(peer, peerHeld + bytes);
    return true;
  }

  give(peer: string, bytes: number): void {
    this.held -= bytes;
    const peerHeld = (this.heldByPeer.get(peer) ?? 0) - bytes;
    if (peerHeld <= 0) this.heldByPeer.delete(peer);
    else this.heldByPeer.set(peer, peerHeld);
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
  const peer = incoming.socket?.remoteAddress ?? 'unknown';
  // A body of announced length takes its place in the budget before a byte of it is read.
  const announced =
    incoming.headers['content-length'] === undefined ? undefined : Number(incoming.headers['content-length']);
  const reserved = announced !== undefined && Number.isSafeInteger(announced) ? announced : 0;
  if (reserved > 0 && !pending.take(peer, reserved)) return { refused: 'origin full' };
  let taken = 0;
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
        // Bytes past what was reserved (a body without Content-Length) are taken as they come.
        const beyond = Math.max(0, size + chunk.length - Math.max(size, reserved));
        if (size + chunk.length > maxBytes) finish({ refused: 'too large' });
        else if (beyond > 0 && !pending.take(peer, beyond)) finish({ refused: 'origin full' });
        else {
          taken += beyond;
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
    pending.give(peer, reserved + taken);
  }
}
