// How a POST body is answered once its session is known, in both eras: JSON when the answer comes
// before any notification, else an SSE stream that carries the notifications and then the answer.
// Notifications and responses only: 202. A client that goes away cancels its requests.
import { INTERNAL_ERROR, INVALID_REQUEST } from '../json-rpc.js';
import type { McpSession, Send } from '../mcp-session.js';
import { acceptsBatches } from '../protocol-versions.js';
import { BoundedEventStream } from './bounded-event-stream.js';
import type { HttpAnswer, HttpExchange } from './http-exchange.js';
import { CLOSE_GRACE_MS, CLOSE_WAIT_MS, type HandlerScope } from './http-options.js';
import { emptyAnswer, jsonAnswer, jsonError } from './json-answers.js';
import { type Accepts, SSE_HEADERS } from './media-types.js';
import type { ParsedBody } from './request-body.js';

type Outgoing = Record<string, unknown>;

/** The status and extra headers of a JSON answer (the modern era derives them from the answer). */
export type AnswerStatus = (answer: Outgoing | Outgoing[]) => { status: number; headers?: Record<string, string> };

export interface PostAnswer {
  exchange: HttpExchange;
  parsed: ParsedBody;
  session: McpSession;
  accepts: Accepts;
  /** Headers every answer carries (the Mcp-Session-Id of a new session). */
  extraHeaders: Record<string, string>;
  /** Runs once the session is done with the body (for SSE, when the stream ends). */
  finished: () => void;
  statusOf?: AnswerStatus;
}

const OK: AnswerStatus = () => ({ status: 200 });

/** Answers a POST with a session made for this one request (no session table), closed once it is answered. */
export function answerWithOneShotSession(
  scope: HandlerScope,
  post: Omit<PostAnswer, 'extraHeaders' | 'finished'>,
): Promise<HttpAnswer> {
  scope.oneShotSessions.add(post.session);
  return answerPost(scope, {
    ...post,
    extraHeaders: {},
    finished: () => {
      scope.oneShotSessions.delete(post.session);
      void post.session.close(CLOSE_GRACE_MS, CLOSE_WAIT_MS);
    },
  });
}

export async function answerPost(scope: HandlerScope, post: PostAnswer): Promise<HttpAnswer> {
  const { exchange, parsed, session, accepts, extraHeaders, finished } = post;
  const statusOf = post.statusOf ?? OK;
  if (parsed.isBatch && !acceptsBatches(session.negotiatedVersion)) {
    finished();
    return jsonError(
      400,
      INVALID_REQUEST,
      `Invalid Request: batches are only accepted under protocol version 2025-03-26 (this one speaks ${session.negotiatedVersion ?? 'no version yet'})`,
    );
  }
  if (parsed.requestIds.length === 0) {
    const answer = await session.handleParsed(parsed.value, () => {}).finally(finished);
    // Nothing to answer: accepted. An invalid message: its error, with a 4xx as the spec asks.
    return answer === undefined ? emptyAnswer(202, { ...extraHeaders }) : jsonAnswer(400, answer, extraHeaders);
  }

  let stream: BoundedEventStream | undefined;
  let settle!: (answer: HttpAnswer) => void;
  const responded = new Promise<HttpAnswer>((resolve) => {
    settle = resolve;
  });
  let cancelled = false;
  const cancel = (): void => {
    if (cancelled) return;
    cancelled = true;
    // Same effect as the client sending notifications/cancelled for each of its requests.
    for (const requestId of parsed.requestIds) {
      void session.handleParsed(
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId, reason: 'the HTTP request was closed' },
        },
        () => {},
      );
    }
  };
  const startStream = (): BoundedEventStream => {
    stream = new BoundedEventStream(cancel, scope.options.maxQueuedStreamBytes);
    settle({ status: 200, headers: { ...SSE_HEADERS, ...extraHeaders }, body: stream.body });
    return stream;
  };
  const notify: Send = (message) => {
    if (cancelled || !accepts.sse) return;
    (stream ?? startStream()).send(message);
  };
  const stopWatching = exchange.onClientGone(cancel);

  const failed = (error: unknown): void => {
    scope.logProblem(`an HTTP request failed: ${(error as Error)?.stack ?? String(error)}`);
    if (stream) stream.close();
    else settle(jsonError(500, INTERNAL_ERROR, 'Internal error'));
  };
  const work = session
    .handleParsed(parsed.value, notify)
    .then((answer) => {
      if (stream) {
        if (answer !== undefined) stream.send(answer);
        stream.close();
      } else if (answer !== undefined && accepts.json) {
        const { status, headers } = statusOf(answer);
        settle(jsonAnswer(status, answer, headers ? { ...extraHeaders, ...headers } : extraHeaders));
      } else if (answer !== undefined) {
        const opened = startStream();
        opened.send(answer);
        opened.close();
      } else {
        // Every request was cancelled: nothing to answer, and the HTTP exchange must still end.
        settle(emptyAnswer(204, { ...extraHeaders }));
      }
    })
    // The request failed, or writing its answer did (one too large to serialise): this request
    // alone fails, with a 500 or its stream closed, never a rejection nobody handles.
    .catch(failed);
  void work.finally(() => {
    stopWatching();
    finished();
  });
  return responded;
}
