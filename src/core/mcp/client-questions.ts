// Requests the server sends the client for a live script (sampling, elicitation, roots: legacy
// era only), on the stream of the call that caused them, and the client's answers matched back
// by id. Only what MCP lets a server ask, and only what the client declared in initialize.
import { CLIENT_CAPABILITY_BY_METHOD } from './client-capabilities.js';
import { INTERNAL_ERROR, METHOD_NOT_FOUND, type RequestId } from './json-rpc.js';
import type { ClientAnswer } from './server-context.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

export type Send = (message: Record<string, unknown> | Record<string, unknown>[]) => void;

/** JSON-RPC's "request cancelled" code (used by MCP SDKs), for a question abandoned before its answer. */
export const REQUEST_CANCELLED = -32800;

export class ClientQuestions {
  private count = 0;
  /** Our requests still waiting for an answer, by id → how to deliver it. */
  private readonly waiting = new Map<string, (answer: ClientAnswer) => void>();
  /** Set when the session ends: nothing more is sent. */
  private closed = false;

  /**
   * One request to the client, sent on the stream of the request that caused it (the POST's SSE
   * stream over HTTP, stdout over stdio). Only what MCP lets a server ask, and only when the client
   * declared the capability; otherwise the answer is an error at once and nothing is sent.
   */
  ask(
    method: string,
    params: JsonObject,
    capabilities: JsonObject,
    notify: Send,
    signals: (AbortSignal | undefined)[],
  ): Promise<ClientAnswer> {
    const capability = CLIENT_CAPABILITY_BY_METHOD.get(method);
    if (capability === undefined) {
      return Promise.resolve({
        error: {
          code: METHOD_NOT_FOUND,
          message: `a script may ask the client ${[...CLIENT_CAPABILITY_BY_METHOD.keys()].join(', ')}; not ${method}`,
        },
      });
    }
    if (!isObject(capabilities[capability])) {
      return Promise.resolve({
        error: {
          code: METHOD_NOT_FOUND,
          message: `the client did not declare the ${capability} capability, so it cannot be asked ${method}`,
        },
      });
    }
    if (this.closed || signals.some((signal) => signal?.aborted)) {
      return Promise.resolve({
        error: { code: REQUEST_CANCELLED, message: `${method} was not sent: the call was cancelled` },
      });
    }
    this.count += 1;
    const id = `staticmcp-${this.count}`;
    return new Promise((resolve) => {
      const settle = (answer: ClientAnswer): void => {
        this.waiting.delete(id);
        for (const signal of signals) signal?.removeEventListener('abort', abandon);
        resolve(answer);
      };
      const abandon = (): void => {
        if (!this.waiting.has(id)) return;
        // Tell the client it need not answer any more (the call ended or was cancelled).
        notify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'the script that asked is no longer running' },
        });
        settle({ error: { code: REQUEST_CANCELLED, message: `${method} was abandoned before the client answered` } });
      };
      this.waiting.set(id, settle);
      for (const signal of signals) signal?.addEventListener('abort', abandon, { once: true });
      notify({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** The client's response to one of our requests; a response to nothing we asked is ignored. */
  deliver(id: RequestId | null, result: unknown, error: unknown): void {
    const settle = id === null ? undefined : this.waiting.get(String(id));
    if (!settle) return;
    if (error !== undefined) {
      const given = isObject(error) ? error : {};
      settle({
        error: {
          code: typeof given.code === 'number' ? given.code : INTERNAL_ERROR,
          message: typeof given.message === 'string' ? given.message : 'the client answered with an error',
          ...(given.data !== undefined ? { data: given.data } : {}),
        },
      });
    } else {
      settle({ result });
    }
  }

  /** The session ended: every question still waiting is answered with a cancellation. */
  close(): void {
    this.closed = true;
    for (const settle of [...this.waiting.values()])
      settle({ error: { code: REQUEST_CANCELLED, message: 'the session ended' } });
  }
}
