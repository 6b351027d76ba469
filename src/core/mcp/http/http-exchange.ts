// What the portable Streamable HTTP handler sees of one HTTP exchange, and what it answers: plain
// objects rather than fetch's Request and Response, so a host with its own server (Node's
// node:http) hands a request in and writes the answer out without building either (on Node the
// two cost more than the rest of a precomputed call; see node-exchange.ts). web-exchange.ts adapts
// a Web Request and Response for the hosts that speak them (the edge worker, tests).

/** A request header by its lower-case name: its value (repeated headers joined by ", "), or null. */
export type HeaderReader = (lowerCaseName: string) => string | null;

export interface HttpExchange {
  /** The HTTP method, upper case. */
  readonly method: string;
  readonly header: HeaderReader;
  /**
   * The body, read only as far as `maxBytes` (a larger one is refused before it is buffered);
   * 'unreadable' when the client went away mid-body. Called at most once.
   */
  readBody(maxBytes: number): Promise<Uint8Array | 'too large' | 'unreadable'>;
  /** Calls `listener` once if the client goes away before its answer is complete; returns the unsubscribe. */
  onClientGone(listener: () => void): () => void;
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** A JSON text (written in one piece), an SSE stream, or nothing. */
  body: string | ReadableStream<Uint8Array> | null;
}
