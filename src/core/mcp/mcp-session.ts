// The protocol core, the same on every host: one parsed message (or batch) in, the response out, notifications
// through callbacks the transport gives (stdout, an SSE stream). Each request's own _meta decides its era: a
// 2026-07-28 request goes to modern-dispatch.ts (loaded on the first one, so a legacy client's start never waits for
// it); this file answers the legacy era (handshake, negotiated version, log level, resource subscriptions through
// resource-subscriptions.ts) and owns what both share: the requests in flight (so `notifications/cancelled` can stop
// one) and, under `staticmcp dev`, the notifications a reloaded tree causes. It never throws on bad input: every
// request with an id gets exactly one answer, unless cancelled.
import * as answers from './answer-budget.js';
import type { AnswerLimits } from './answer-budget.js';
import type { AnswerRoom } from '../tree-reading/answer-room.js';
import { parseJsonRpcText } from './exact-ids.js';
import { readProgressToken } from './progress-token.js';
import {
  classifyMessage,
  errorResponse,
  resultResponse,
  RpcError,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RESOURCE_NOT_FOUND,
  type JsonRpcRequest,
  type RequestId,
} from './json-rpc.js';
import {
  acceptsBatches,
  LATEST_VERSION,
  negotiateVersion,
  shapeServerInfo,
  type ProtocolVersion,
} from './protocol-versions.js';
import { readRequestEra, type ModernRequest, type RequestEra } from './request-meta.js';
import { serverCapabilities } from './server-capabilities.js';
import type { ClientQuestions, Send } from './client-questions.js';
import type { ModernListeners } from './modern-listeners.js';
import {
  LOG_LEVELS,
  readLogLevel,
  RequestCancelled,
  type ServerContext,
  type RequestContext,
} from './server-context.js';
import type { LogLevel } from '../results/log-lines.js';
import type { ListChanges } from './tree-changes.js';
import { refuseBeforeInitialize } from './session-lifecycle.js';
import { loadHandlers, loadModernEra, planPreload } from './handler-table.js';
import { isInEra, methodRow, type SessionMethod, unhandledMethod } from './method-table.js';
import { isObject, type JsonObject } from '../tree/json-object.js';
import { answerOnCurrentTree } from './tree-switch-port.js';
import { PrecomputedAnswers, type QuickAnswer } from './precomputed-answers.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { LazyAbort } from './lazy-abort.js';

type Outgoing = Record<string, unknown>;
/** What is answered now, or a promise of it when it must wait. */
type Answer<T> = T | Promise<T>;

interface InFlight {
  controller: LazyAbort;
  promise: Promise<unknown>;
}

export type { Send };

export interface SessionOptions {
  /**
   * A version already agreed outside this session (a stateless HTTP request's MCP-Protocol-Version
   * header): the session then counts as initialized.
   */
  version?: ProtocolVersion;
  /** Caps on one batch: its length and its answers' bytes (answer-budget.ts has the defaults). */
  answerLimits?: Partial<AnswerLimits>;
}

export class McpSession {
  private version: ProtocolVersion | undefined;
  private minimumLogLevel: LogLevel = 'info';
  private readonly inFlight = new Map<string, InFlight>();
  private readonly precomputed = new PrecomputedAnswers();
  private closing = false;
  /** Set by `notifications/initialized` (or the client's first request after initialize). */
  private initialized = false;
  /** Set once `initialize` was answered on this session (a version given by the transport is not a handshake). */
  private handshakeDone = false;
  private readonly subscriptions: ResourceSubscriptions;
  /** The capabilities the client declared in initialize: what a script may ask it. */
  private clientCapabilities: JsonObject = {};
  /** Open `subscriptions/listen` requests (only under dev: a served tree never changes); made with the first modern request. */
  private listeners: ModernListeners | undefined;
  /** Our requests to the client (a live script's questions) still waiting for an answer; made with the first question. */
  private questions: ClientQuestions | undefined;
  private readonly answerLimits: AnswerLimits;

  /** `send` carries what no request is waiting for: list changes, resource updates, dev warnings. */
  constructor(
    private readonly server: ServerContext,
    private readonly send: Send,
    options: SessionOptions = {},
  ) {
    this.answerLimits = { ...answers.DEFAULT_ANSWER_LIMITS, ...options.answerLimits };
    this.subscriptions = new ResourceSubscriptions(server);
    if (options.version !== undefined) {
      this.version = options.version;
      this.initialized = true;
    }
  }

  /** The version agreed by initialize (or given at construction); undefined before. */
  get negotiatedVersion(): ProtocolVersion | undefined {
    return this.version;
  }

  /**
   * One line from a stream transport (already without its newline); answers go out through `send`.
   * An answer ready at once (a precomputed call cut from its file, an invalid message) is sent
   * before this returns, with no promise made for it.
   */
  handleFrame(text: string): void {
    let parsed: unknown;
    try {
      parsed = parseJsonRpcText(text);
    } catch {
      this.send(errorResponse(null, PARSE_ERROR, 'Parse error: the line is not valid JSON'));
      return;
    }
    let answer: Answer<Outgoing | Outgoing[] | undefined>;
    try {
      answer = this.answerParsed(parsed, this.send);
      if (!(answer instanceof Promise)) {
        if (answer) this.send(answer);
        return;
      }
    } catch (error) {
      answer = Promise.reject(error);
    }
    void answer
      .then((response) => {
        if (response) this.send(response);
      })
      .catch((error: unknown) =>
        this.server.logProblem(
          `a ${Array.isArray(parsed) ? 'batch' : 'request'} failed: ${(error as Error)?.stack ?? String(error)}`,
        ),
      );
  }

  /**
   * One parsed body (a message or a batch) from a request/response transport. Resolves with what
   * to answer (undefined when nothing: notifications and responses only); `notify` carries the
   * notifications that belong to these requests (progress, log messages) while they run.
   */
  handleParsed(parsed: unknown, notify: Send): Promise<Outgoing | Outgoing[] | undefined> {
    try {
      return Promise.resolve(this.answerParsed(parsed, notify));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** handleParsed's answer, not wrapped in a promise when it is ready now. */
  private answerParsed(parsed: unknown, notify: Send): Answer<Outgoing | Outgoing[] | undefined> {
    const tooMany = answers.refuseManyValues(parsed, this.answerLimits);
    if (tooMany) return tooMany;
    return Array.isArray(parsed) ? this.handleBatch(parsed, notify) : this.handleMessage(parsed, notify);
  }

  /** A frame larger than the transport accepts: answered like any invalid message. */
  handleOversizedFrame(limitBytes: number): void {
    this.send(errorResponse(null, INVALID_REQUEST, `Invalid request: the message is larger than ${limitBytes} bytes`));
  }

  private async handleBatch(items: unknown[], notify: Send = this.send): Promise<Outgoing | Outgoing[] | undefined> {
    if (!acceptsBatches(this.version)) {
      return errorResponse(
        null,
        INVALID_REQUEST,
        `Invalid request: batches are not supported in protocol version ${this.version ?? 'before initialize'}`,
      );
    }
    if (items.length === 0) return errorResponse(null, INVALID_REQUEST, 'Invalid request: empty batch');
    const refused = answers.refuseLongBatch(items.length, this.answerLimits);
    if (refused) return refused;
    const { maxAnswerBytes } = this.answerLimits;
    const answered = await answers.answerBatchWithin(items, maxAnswerBytes, async (item, room) =>
      this.handleMessage(item, notify, room),
    );
    return answered.length > 0 ? answered : undefined;
  }

  /** The response to send, or undefined (notification, response, cancelled); `room`: a batch entry's share. */
  private handleMessage(value: unknown, notify: Send, room?: AnswerRoom): Answer<Outgoing | undefined> {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'invalid':
        return classified.code === undefined
          ? errorResponse(classified.id, INVALID_REQUEST, `Invalid request: ${classified.reason}`)
          : errorResponse(classified.id, classified.code, `Invalid params: ${classified.reason}`);
      case 'response':
        this.questions?.deliver(classified.id, classified.result, classified.error);
        return undefined;
      case 'notification':
        this.handleNotification(classified.message.method, classified.message.params);
        return undefined;
      case 'request':
        return this.handleRequest(classified.message, notify, room);
    }
  }

  private handleNotification(method: string, params: JsonObject | undefined): void {
    if (method === 'notifications/cancelled') {
      const requestId = params?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        this.inFlight.get(inFlightKey(requestId))?.controller.abort();
      }
    } else if (method === 'notifications/initialized' && this.version !== undefined) {
      this.initialized = true;
    }
    // notifications/initialized and anything else: nothing to do, and never an answer.
  }

  /**
   * `share`: a batch entry's share of the answer cap; a request alone may take the whole cap. A
   * refused request and a precomputed call answered from its file are answered now; the rest
   * goes the whole way (answerRequest).
   */
  private handleRequest(request: JsonRpcRequest, notify: Send, share?: AnswerRoom): Answer<Outgoing | undefined> {
    // Each request's own _meta decides its era: nothing about the connection is assumed.
    const era = readRequestEra(request.method, request.params);
    if (era.era === 'invalid') return errorResponse(request.id, era.error.code, era.error.message, era.error.data);
    const plain = era.era === 'legacy' && !share && !this.closing;
    const quick = plain ? this.precomputed.lookUp(request, this.server, this.version, this.answerLimits) : undefined;
    if (quick?.response) return quick.response;
    return this.answerRequest(request, era, notify, share, quick);
  }

  private async answerRequest(
    request: JsonRpcRequest,
    era: Exclude<RequestEra, { era: 'invalid' }>,
    notify: Send,
    share: AnswerRoom | undefined,
    quick: QuickAnswer | undefined,
  ): Promise<Outgoing | undefined> {
    const room = share ?? new answers.AnswerBudget(this.answerLimits.maxAnswerBytes).openRoom();
    const key = inFlightKey(request.id);
    const controller = new LazyAbort();
    const work = answerOnCurrentTree(this.server, request, () =>
      era.era === 'legacy'
        ? this.dispatch(request, controller, notify, room)
        : this.dispatchModern(request, era, controller.signal, notify, room),
    );
    // A client may reuse an id while the first request still runs; only the newest is cancellable.
    const entry = { controller, promise: work.catch(() => undefined) };
    this.inFlight.set(key, entry);
    try {
      const result = await work;
      if (controller.aborted || this.closing) return undefined;
      quick?.keep(result);
      return resultResponse(request.id, result);
    } catch (error) {
      if (error instanceof RequestCancelled || controller.aborted || this.closing) return undefined;
      if (error instanceof RpcError) {
        // 2026-07-28 answers an unknown resource with Invalid Params; -32002 is legacy only.
        const code = era.era === 'modern' && error.code === RESOURCE_NOT_FOUND ? INVALID_PARAMS : error.code;
        return errorResponse(request.id, code, error.message, error.data);
      }
      this.server.logProblem(`${request.method} failed: ${(error as Error).stack ?? String(error)}`);
      return errorResponse(request.id, INTERNAL_ERROR, `Internal error while handling ${request.method}`);
    } finally {
      if (this.inFlight.get(key) === entry) this.inFlight.delete(key);
    }
  }

  private async dispatchModern(
    request: JsonRpcRequest,
    era: ModernRequest,
    signal: AbortSignal,
    notify: Send,
    answerRoom: AnswerRoom,
  ): Promise<unknown> {
    const [{ dispatchModern }, { ModernListeners }] = await loadModernEra();
    if (!this.listeners) {
      this.listeners = new ModernListeners();
      // A 2026-07-28 client sends no initialize: its first request is when to plan loading the rest.
      planPreload(this.server, true);
    }
    const listeners = this.listeners;
    return dispatchModern(this.server, request, era, signal, notify, {
      isClosing: () => this.closing,
      handlers: loadHandlers,
      listen: (listenSignal) => listeners.listen(this.server, request, era, listenSignal, notify),
      answerRoom,
    });
  }

  private requestContext(
    params: JsonObject | undefined,
    abort: LazyAbort,
    notify: Send,
    answerRoom: AnswerRoom,
  ): RequestContext {
    return {
      version: this.version ?? LATEST_VERSION,
      get signal() {
        return abort.signal;
      },
      answerRoom,
      progressToken: readProgressToken(params?._meta),
      notify: (method, notificationParams) => {
        if (!abort.aborted && !this.closing) notify({ jsonrpc: '2.0', method, params: notificationParams });
      },
      wantsLog: (level) => LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(this.minimumLogLevel),
      askClient: async (method, askParams, askSignal) =>
        (await this.clientQuestions()).ask(method, askParams, this.clientCapabilities, notify, [
          abort.signal,
          askSignal,
        ]),
      // Known once this session's initialize declared them (a stateless POST never knows them).
      ...(this.handshakeDone ? { clientCapabilities: this.clientCapabilities } : {}),
    };
  }

  private async clientQuestions(): Promise<ClientQuestions> {
    if (!this.questions) {
      const { ClientQuestions } = await import('./client-questions.js');
      this.questions ??= new ClientQuestions();
      if (this.closing) this.questions.close();
    }
    return this.questions;
  }

  private async dispatch(request: JsonRpcRequest, abort: LazyAbort, notify: Send, room: AnswerRoom) {
    const { params } = request;
    const known = methodRow(request.method);
    const row = known && isInEra(known, 'legacy') ? known : undefined;
    if (row) refuseBeforeInitialize(request.method, row, this.version);
    // A client that skips `notifications/initialized` but goes on working is initialized too.
    if (this.version !== undefined && !row?.beforeInitialize) this.initialized = true;
    if (!row) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method}`);
    if (row.handler !== 'session')
      return (await loadHandlers())[row.handler](this.server, params, this.requestContext(params, abort, notify, room));
    const own = request.method as SessionMethod<'legacy'>;
    switch (own) {
      case 'initialize':
        return this.initialize(params);
      case 'ping':
        return {};
      case 'resources/subscribe':
        return this.subscriptions.subscribe(params);
      case 'resources/unsubscribe':
        return this.subscriptions.unsubscribe(params);
      case 'logging/setLevel':
        this.minimumLogLevel = readLogLevel(params);
        return {};
      default:
        return unhandledMethod(own);
    }
  }

  private initialize(params: JsonObject | undefined): JsonObject {
    // Agreed once per connection: a second handshake, which would change it under requests in flight, is refused.
    if (this.handshakeDone) {
      throw new RpcError(
        INVALID_REQUEST,
        `Invalid request: this connection is already initialized (protocol version ${this.version}); open a new connection to initialize again`,
      );
    }
    if (params !== undefined && params.protocolVersion !== undefined && typeof params.protocolVersion !== 'string') {
      throw new RpcError(INVALID_PARAMS, 'initialize needs params.protocolVersion (a string)');
    }
    this.handshakeDone = true;
    const version = negotiateVersion(params?.protocolVersion);
    this.version = version;
    this.clientCapabilities = isObject(params?.capabilities) ? params.capabilities : {};
    // The handlers once this answer is out, before the client's next request arrives; the rest later.
    setTimeout(() => void loadHandlers(), 0);
    planPreload(this.server, false);
    const { tree } = this.server;
    return {
      protocolVersion: version,
      capabilities: serverCapabilities(this.server, version, false),
      serverInfo: shapeServerInfo(tree.serverInfo, version),
      ...(tree.instructions !== undefined ? { instructions: tree.instructions } : {}),
    };
  }

  /**
   * After the bridge swapped in a reloaded tree: one list_changed per kind whose list changed, and
   * `resources/updated` for each subscribed resource whose content changed. Nothing is sent before
   * the client is initialized (it lists everything then anyway). Returns the updated URIs.
   */
  async treeReloaded(changes: ListChanges): Promise<string[]> {
    const updated = await this.subscriptions.changedByReload();
    if (!this.closing) await this.listeners?.notifyChanges(this.server, changes);
    if (!this.initialized || this.closing) return updated;
    if (changes.tools) this.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    if (changes.resources) this.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    if (changes.prompts) this.send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    for (const uri of updated)
      this.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
    return updated;
  }

  /** A log message for the client (`notifications/message`), when initialized and at the level it asked for. */
  logToClient(level: LogLevel, logger: string, data: unknown): void {
    if (!this.initialized || this.closing) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(this.minimumLogLevel)) return;
    this.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level, logger, data } });
  }

  /**
   * Ends the session: requests in flight get `graceMs` to answer (a client that pipes a few
   * requests and closes stdin still gets its answers), then the rest are cancelled (live scripts
   * killed) and awaited for at most `waitMs`.
   */
  async close(graceMs: number, waitMs: number): Promise<void> {
    const pending = () => Promise.allSettled([...this.inFlight.values()].map((entry) => entry.promise));
    await Promise.race([pending(), delay(graceMs)]);
    this.closing = true;
    for (const entry of this.inFlight.values()) entry.controller.abort();
    this.questions?.close();
    await Promise.race([pending(), delay(waitMs)]);
  }
}

function inFlightKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer: unknown = setTimeout(resolve, ms);
    // On Node, a pending grace period must not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
  });
}
