// One SSE stream the HTTP handler writes to (a POST's answer or a session's GET stream), with
// back-pressure: what the client has not read yet is counted in bytes, and once that passes the
// cap, notifications (progress, log lines, list changes) are dropped instead of queued. Messages
// with an id (results, errors, our questions to the client) are always queued: a request is never
// left without its answer, and answers are bounded elsewhere (answer-budget.ts). A client that reads
// nothing at all is cut by the host's write timeout. The keep-alive comment is a constant and is
// skipped while anything is queued (a stream with unread data is not idle).
import { stringifyJsonRpc } from '../exact-ids.js';

type Outgoing = Record<string, unknown>;

/** An idle SSE stream gets a comment this often, so proxies and idle timeouts keep it open. */
const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = ': keep-alive\n\n';
/**
 * Unread bytes a stream may hold before its notifications are dropped. A client that reads keeps
 * this near zero (one chunk at a time); 1 MiB is thousands of progress or log notifications of
 * slack for a slow reader, and bounds what each non-reading stream costs.
 */
export const DEFAULT_MAX_QUEUED_STREAM_BYTES = 1024 * 1024;

export class BoundedEventStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  closed = false;
  /** Notifications not sent because the client was not reading. */
  dropped = 0;

  constructor(
    onCancel: () => void,
    private readonly maxQueuedBytes = DEFAULT_MAX_QUEUED_STREAM_BYTES,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        cancel: () => {
          this.markClosed();
          onCancel();
        },
      },
      // desiredSize is then the cap minus the unread bytes.
      { highWaterMark: maxQueuedBytes, size: (chunk) => chunk.byteLength },
    );
    this.keepAlive = setInterval(() => {
      if (this.queuedBytes() === 0) this.write(this.encoder.encode(KEEP_ALIVE));
    }, KEEP_ALIVE_MS);
    (this.keepAlive as { unref?: () => void }).unref?.();
  }

  send(message: Outgoing | Outgoing[]): void {
    if (this.closed) return;
    const isNotification = !Array.isArray(message) && message.id === undefined;
    // A notification is dropped, unread, before it is even serialised.
    if (isNotification && this.queuedBytes() >= this.maxQueuedBytes) {
      this.dropped += 1;
      return;
    }
    const bytes = this.encoder.encode(`event: message\ndata: ${stringifyJsonRpc(message)}\n\n`);
    if (isNotification && this.queuedBytes() + bytes.byteLength > this.maxQueuedBytes) {
      this.dropped += 1;
      return;
    }
    this.write(bytes);
  }

  close(): void {
    if (this.closed) return;
    this.markClosed();
    try {
      this.controller.close();
    } catch {
      // Already cancelled by the reader.
    }
  }

  /** Bytes enqueued and not yet taken by the host. */
  private queuedBytes(): number {
    return this.maxQueuedBytes - (this.controller.desiredSize ?? this.maxQueuedBytes);
  }

  private write(bytes: Uint8Array): void {
    if (this.closed) return;
    try {
      this.controller.enqueue(bytes);
    } catch {
      this.markClosed();
    }
  }

  private markClosed(): void {
    this.closed = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
