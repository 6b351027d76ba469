// The protocol core, the same on every host: one parsed message (or batch) in, the response out,
// notifications through callbacks the transport gives (stdout, an SSE stream). Owns the negotiated
// version, the log level, the requests in flight (so `notifications/cancelled` can stop one) and,
// under `staticmcp dev`, the resource subscriptions and the notifications a reloaded tree causes.
// It never throws on bad input: every request with an id gets exactly one answer, unless cancelled.
import { parseJsonRpcText } from './exact-ids.js';
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
  CAPABILITY_BY_METHOD,
  LATEST_VERSION,
  LEGACY_ONLY_METHODS,
  negotiateVersion,
  shapeServerInfo,
  type ProtocolVersion,
} from './protocol-versions.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID, readRequestEra, type ModernRequest } from './request-meta.js';
import { completeModernResult, discoverResult, serverCapabilities, type AnswerSource } from './modern-results.js';
import { CLIENT_CAPABILITY_BY_METHOD } from './client-capabilities.js';
import type { LiveRunner } from './live-port.js';
import {
  LOG_LEVELS,
  RequestCancelled,
  type ClientAnswer,
  type ServerContext,
  type RequestContext,
} from './server-context.js';
import type { LogLevel } from '../script/log-lines.js';
import type { ListChanges } from './tree-changes.js';
import { refuseBeforeInitialize } from './session-lifecycle.js';

type JsonObject = Record<string, unknown>;
type Handlers = typeof import('./request-handlers.js');

let handlersLoading: Promise<Handlers> | undefined;
function loadHandlers(): Promise<Handlers> {
  handlersLoading ??= import('./request-handlers.js');
  return handlersLoading;
}
/** Only `staticmcp dev` needs these (and node:crypto): loaded on the first subscription or reload. */
const loadTreeChanges = (): Promise<typeof import('./tree-changes.js')> => import('./tree-changes.js');
type Outgoing = Record<string, unknown>;
/** Subscriptions one session may hold at once. */
const MAX_SUBSCRIPTIONS = 1000;
/** What a script may ask the client, and the client capability each needs. */
/** JSON-RPC's "request cancelled" code (used by MCP SDKs), for a question abandoned before its answer. */
const REQUEST_CANCELLED = -32800;

/** Methods answered by the lazily loaded handlers (a Map: a method named `constructor` is just unknown). */
const HANDLER_BY_METHOD = new Map<string, keyof Handlers>([
  ['tools/list', 'listTools'],
  ['tools/call', 'callTool'],
  ['resources/list', 'listResources'],
  ['resources/templates/list', 'listResourceTemplates'],
  ['resources/read', 'readResource'],
  ['prompts/list', 'listPrompts'],
  ['prompts/get', 'getPrompt'],
  ['completion/complete', 'complete'],
]);

/** One open `subscriptions/listen` (modern era, under dev): what it asked for and where it goes. */
interface Listener {
  id: RequestId;
  tools: boolean;
  prompts: boolean;
  resources: boolean;
  /** Subscribed URIs → a fingerprint of what a read answered at the last check. */
  uris: Map<string, string>;
  notify: Send;
}

interface InFlight {
  controller: AbortController;
  promise: Promise<unknown>;
}

export type Send = (message: Outgoing | Outgoing[]) => void;

export interface SessionOptions {
  /**
   * A version already agreed outside this session (a stateless HTTP request's MCP-Protocol-Version
   * header): the session then counts as initialized.
   */
  version?: ProtocolVersion;
}

export class McpSession {
  private version: ProtocolVersion | undefined;
  private minimumLogLevel: LogLevel = 'info';
  private readonly inFlight = new Map<string, InFlight>();
  private closing = false;
  /** Set by `notifications/initialized` (or the client's first request after initialize). */
  private initialized = false;
  /** Set once `initialize` was answered on this session (a version given by the transport is not a handshake). */
  private handshakeDone = false;
  /** Subscribed resource URIs → a fingerprint of what a read answered at the last check. */
  private readonly subscriptions = new Map<string, string>();
  /** The capabilities the client declared in initialize: what a script may ask it. */
  private clientCapabilities: JsonObject = {};
  private clientRequestCount = 0;
  /** Open `subscriptions/listen` requests (only under dev: a served tree never changes). */
  private readonly listeners = new Set<Listener>();
  /** Our requests to the client still waiting for an answer, by id → how to deliver it. */
  private readonly clientRequests = new Map<string, (answer: ClientAnswer) => void>();

  /** `send` carries what no request is waiting for: list changes, resource updates, dev warnings. */
  constructor(
    private readonly server: ServerContext,
    private readonly send: Send,
    options: SessionOptions = {},
  ) {
    if (options.version !== undefined) {
      this.version = options.version;
      this.initialized = true;
    }
  }

  /** The version agreed by initialize (or given at construction); undefined before. */
  get negotiatedVersion(): ProtocolVersion | undefined {
    return this.version;
  }

  /** One line from a stream transport (already without its newline); answers go out through `send`. */
  handleFrame(text: string): void {
    let parsed: unknown;
    try {
      parsed = parseJsonRpcText(text);
    } catch {
      this.send(errorResponse(null, PARSE_ERROR, 'Parse error: the line is not valid JSON'));
      return;
    }
    if (Array.isArray(parsed)) {
      void this.handleBatch(parsed).then((responses) => {
        if (responses) this.send(responses);
      });
      return;
    }
    void this.handleMessage(parsed, this.send).then((response) => {
      if (response) this.send(response);
    });
  }

  /**
   * One parsed body (a message or a batch) from a request/response transport. Resolves with what
   * to answer (undefined when nothing: notifications and responses only); `notify` carries the
   * notifications that belong to these requests (progress, log messages) while they run.
   */
  handleParsed(parsed: unknown, notify: Send): Promise<Outgoing | Outgoing[] | undefined> {
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
    const responses = await Promise.all(items.map((item) => this.handleMessage(item, notify)));
    const answered = responses.filter((response): response is Outgoing => response !== undefined);
    return answered.length > 0 ? answered : undefined;
  }

  /** Resolves with the response to send, or undefined (notification, response, cancelled). */
  private async handleMessage(value: unknown, notify: Send): Promise<Outgoing | undefined> {
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'invalid':
        return errorResponse(classified.id, INVALID_REQUEST, `Invalid request: ${classified.reason}`);
      case 'response':
        this.deliverClientAnswer(classified.id, classified.result, classified.error);
        return undefined;
      case 'notification':
        this.handleNotification(classified.message.method, classified.message.params);
        return undefined;
      case 'request':
        return this.handleRequest(classified.message, notify);
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

  private async handleRequest(request: JsonRpcRequest, notify: Send): Promise<Outgoing | undefined> {
    // Each request's own _meta decides its era: nothing about the connection is assumed.
    const era = readRequestEra(request.method, request.params);
    if (era.era === 'invalid') return errorResponse(request.id, era.error.code, era.error.message, era.error.data);
    const key = inFlightKey(request.id);
    const controller = new AbortController();
    const work =
      era.era === 'legacy'
        ? this.dispatch(request, controller.signal, notify)
        : this.dispatchModern(request, era, controller.signal, notify);
    // A client may reuse an id while the first request still runs; only the newest is cancellable.
    const entry = { controller, promise: work.catch(() => undefined) };
    this.inFlight.set(key, entry);
    try {
      const result = await work;
      if (controller.signal.aborted || this.closing) return undefined;
      return resultResponse(request.id, result);
    } catch (error) {
      if (error instanceof RequestCancelled || controller.signal.aborted || this.closing) return undefined;
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

  private requestContext(params: JsonObject | undefined, signal: AbortSignal, notify: Send): RequestContext {
    const meta = params?._meta;
    const token = meta && typeof meta === 'object' ? (meta as JsonObject).progressToken : undefined;
    return {
      version: this.version ?? LATEST_VERSION,
      signal,
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      notify: (method, notificationParams) => {
        if (!signal.aborted && !this.closing) notify({ jsonrpc: '2.0', method, params: notificationParams });
      },
      wantsLog: (level) => LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(this.minimumLogLevel),
      askClient: (method, askParams, askSignal) => this.askClient(method, askParams, notify, [signal, askSignal]),
      // Known once this session's initialize declared them (a stateless POST never knows them).
      ...(this.handshakeDone ? { clientCapabilities: this.clientCapabilities } : {}),
    };
  }

  /**
   * One request to the client, sent on the stream of the request that caused it (the POST's SSE
   * stream over HTTP, stdout over stdio). Only what MCP lets a server ask, and only when the client
   * declared the capability; otherwise the answer is an error at once and nothing is sent.
   */
  private askClient(
    method: string,
    params: JsonObject,
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
    if (!isObject(this.clientCapabilities[capability])) {
      return Promise.resolve({
        error: {
          code: METHOD_NOT_FOUND,
          message: `the client did not declare the ${capability} capability, so it cannot be asked ${method}`,
        },
      });
    }
    if (this.closing || signals.some((signal) => signal?.aborted)) {
      return Promise.resolve({
        error: { code: REQUEST_CANCELLED, message: `${method} was not sent: the call was cancelled` },
      });
    }
    this.clientRequestCount += 1;
    const id = `staticmcp-${this.clientRequestCount}`;
    return new Promise((resolve) => {
      const settle = (answer: ClientAnswer): void => {
        this.clientRequests.delete(id);
        for (const signal of signals) signal?.removeEventListener('abort', abandon);
        resolve(answer);
      };
      const abandon = (): void => {
        if (!this.clientRequests.has(id)) return;
        // Tell the client it need not answer any more (the call ended or was cancelled).
        notify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'the script that asked is no longer running' },
        });
        settle({ error: { code: REQUEST_CANCELLED, message: `${method} was abandoned before the client answered` } });
      };
      this.clientRequests.set(id, settle);
      for (const signal of signals) signal?.addEventListener('abort', abandon, { once: true });
      notify({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** The client's response to one of our requests; a response to nothing we asked is ignored. */
  private deliverClientAnswer(id: RequestId | null, result: unknown, error: unknown): void {
    const settle = id === null ? undefined : this.clientRequests.get(String(id));
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

  private async dispatch(request: JsonRpcRequest, signal: AbortSignal, notify: Send): Promise<unknown> {
    const { params } = request;
    refuseBeforeInitialize(request.method, this.version);
    // A client that skips `notifications/initialized` but goes on working is initialized too.
    if (this.version !== undefined && request.method !== 'initialize' && request.method !== 'ping')
      this.initialized = true;
    switch (request.method) {
      case 'initialize':
        return this.initialize(params);
      case 'ping':
        return {};
      case 'resources/subscribe':
        return this.subscribe(params);
      case 'resources/unsubscribe':
        return this.unsubscribe(params);
      case 'logging/setLevel': {
        const level = params?.level;
        if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
          throw new RpcError(INVALID_PARAMS, `logging/setLevel needs params.level, one of ${LOG_LEVELS.join(', ')}`);
        }
        this.minimumLogLevel = level as LogLevel;
        return {};
      }
      default: {
        const handlerName = HANDLER_BY_METHOD.get(request.method);
        if (!handlerName) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method}`);
        return (await loadHandlers())[handlerName](this.server, params, this.requestContext(params, signal, notify));
      }
    }
  }

  /**
   * A 2026-07-28 request: stateless, answered from its own _meta (version, capabilities, log level);
   * the handshake-only methods do not exist, and neither does a method whose capability this
   * server does not declare (so server/discover and the methods always agree).
   */
  private async dispatchModern(
    request: JsonRpcRequest,
    era: ModernRequest,
    signal: AbortSignal,
    notify: Send,
  ): Promise<unknown> {
    const { method, params } = request;
    if (LEGACY_ONLY_METHODS.has(method)) {
      throw new RpcError(
        METHOD_NOT_FOUND,
        `Method not found: ${method} does not exist in protocol version ${era.version} (it needs an initialize handshake)`,
      );
    }
    if (method === 'server/discover')
      return completeModernResult(this.server, method, era.version, discoverResult(this.server, era.version), 'tree');
    if (method === 'subscriptions/listen') return this.listen(request, era, signal, notify);
    const handlerName = HANDLER_BY_METHOD.get(method);
    if (!handlerName) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    const capability = CAPABILITY_BY_METHOD.get(method);
    if (capability !== undefined && !(capability in serverCapabilities(this.server, era.version, true))) {
      throw new RpcError(
        METHOD_NOT_FOUND,
        `Method not found: ${method} (this server declares no ${capability} capability)`,
      );
    }
    // Whether a script ran decides the cache hints: a live answer is nobody else's to reuse.
    let source: AnswerSource = 'tree';
    const live = this.server.live;
    const server = live
      ? { ...this.server, live: { run: (run) => ((source = 'live'), live.run(run)) } satisfies LiveRunner }
      : this.server;
    const result = await (await loadHandlers())[handlerName](
      server,
      params,
      this.modernContext(params, era, signal, notify),
    );
    return completeModernResult(this.server, method, era.version, result, source);
  }

  private modernContext(
    params: JsonObject | undefined,
    era: ModernRequest,
    signal: AbortSignal,
    notify: Send,
  ): RequestContext {
    const meta = params?._meta as JsonObject;
    const token = meta.progressToken;
    const minimum = era.logLevel === undefined ? -1 : LOG_LEVELS.indexOf(era.logLevel);
    return {
      version: era.version,
      signal,
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      notify: (method, notificationParams) => {
        if (!signal.aborted && !this.closing) notify({ jsonrpc: '2.0', method, params: notificationParams });
      },
      // Only a request that names a level gets notifications/message (never by default).
      wantsLog: (level) => minimum >= 0 && LOG_LEVELS.indexOf(level) >= minimum,
      // Server-to-client requests do not exist in this era: a tool call turns a script's question
      // into an InputRequiredResult instead (multiRoundTrip); anything else that asks is refused.
      askClient: (method) =>
        Promise.resolve({
          error: {
            code: METHOD_NOT_FOUND,
            message: `${method} cannot be sent as a request in protocol version ${era.version}: questions travel in an InputRequiredResult of tools/call`,
          },
        }),
      clientCapabilities: era.clientCapabilities,
      multiRoundTrip: true,
    };
  }

  /**
   * `subscriptions/listen`: acknowledged with the subset honoured. A served tree never changes, so
   * it honours nothing and ends the subscription at once (a graceful close, as the spec allows);
   * under dev the request stays open and carries list changes and resource updates until the
   * client cancels it.
   */
  private async listen(
    request: JsonRpcRequest,
    era: ModernRequest,
    signal: AbortSignal,
    notify: Send,
  ): Promise<unknown> {
    const filter = request.params?.notifications;
    if (!isObject(filter))
      throw new RpcError(
        INVALID_PARAMS,
        'subscriptions/listen needs params.notifications (an object such as {"toolsListChanged": true})',
      );
    const wanted = filter.resourceSubscriptions;
    if (wanted !== undefined && (!Array.isArray(wanted) || wanted.some((uri) => typeof uri !== 'string'))) {
      throw new RpcError(
        INVALID_PARAMS,
        'subscriptions/listen: notifications.resourceSubscriptions must be an array of URI strings',
      );
    }
    const listener: Listener = {
      id: request.id,
      tools: false,
      prompts: false,
      resources: false,
      uris: new Map(),
      notify,
    };
    const honoured: JsonObject = {};
    if (this.server.dev) {
      listener.tools = filter.toolsListChanged === true;
      listener.prompts = filter.promptsListChanged === true;
      listener.resources = filter.resourcesListChanged === true;
      if (listener.tools) honoured.toolsListChanged = true;
      if (listener.prompts) honoured.promptsListChanged = true;
      if (listener.resources) honoured.resourcesListChanged = true;
      if (wanted !== undefined) {
        const { fingerprintResource } = await loadTreeChanges();
        for (const uri of (wanted as string[]).slice(0, MAX_SUBSCRIPTIONS))
          listener.uris.set(uri, await fingerprintResource(this.server.tree, uri));
        honoured.resourceSubscriptions = [...listener.uris.keys()];
      }
    }
    const subscriptionMeta = { [META_SUBSCRIPTION_ID]: request.id };
    notify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: subscriptionMeta, notifications: honoured },
    });
    const closed = {
      resultType: 'complete',
      _meta: { ...subscriptionMeta, [META_SERVER_INFO]: shapeServerInfo(this.server.tree.serverInfo, era.version) },
    };
    if (Object.keys(honoured).length === 0) return closed;
    this.listeners.add(listener);
    try {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      this.listeners.delete(listener);
    }
    throw new RequestCancelled();
  }

  private initialize(params: JsonObject | undefined): JsonObject {
    // The version is agreed once per connection; a second handshake would change it under
    // requests still in flight, so it is refused as the lifecycle requires.
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
    // Compile the handlers once this answer is out, before the client's next request arrives.
    setTimeout(() => void loadHandlers(), 0);
    const { tree } = this.server;
    return {
      protocolVersion: version,
      capabilities: serverCapabilities(this.server, version, false),
      serverInfo: shapeServerInfo(tree.serverInfo, version),
      ...(tree.instructions !== undefined ? { instructions: tree.instructions } : {}),
    };
  }

  /**
   * Any known resource (listed, a state resource, or an instance of a template) can be subscribed.
   * Only under dev is a fingerprint of its content kept, to tell after a rebuild whether it changed;
   * a statically served tree never changes, so its subscribers are simply never notified.
   */
  private async subscribe(params: JsonObject | undefined): Promise<JsonObject> {
    const uri = params?.uri;
    if (typeof uri !== 'string') throw new RpcError(INVALID_PARAMS, 'resources/subscribe needs params.uri (a string)');
    const { tree } = this.server;
    const known =
      tree.resourcesByUri.has(uri) ||
      tree.extension?.stateResources?.[uri] !== undefined ||
      (await import('./template-reads.js')).findTemplateFor(tree, uri) !== undefined;
    if (!known) throw new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    // Template instances are unbounded: one session must not grow this map without end.
    if (!this.subscriptions.has(uri) && this.subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new RpcError(
        INVALID_PARAMS,
        `resources/subscribe: at most ${MAX_SUBSCRIPTIONS} subscriptions per session; unsubscribe from some first`,
      );
    }
    if (!this.server.dev) {
      this.subscriptions.set(uri, '');
      return {};
    }
    const { fingerprintResource } = await loadTreeChanges();
    this.subscriptions.set(uri, await fingerprintResource(tree, uri));
    return {};
  }

  private unsubscribe(params: JsonObject | undefined): JsonObject {
    const uri = params?.uri;
    if (typeof uri !== 'string')
      throw new RpcError(INVALID_PARAMS, 'resources/unsubscribe needs params.uri (a string)');
    this.subscriptions.delete(uri);
    return {};
  }

  /**
   * After the bridge swapped in a reloaded tree: one list_changed per kind whose list changed, and
   * `resources/updated` for each subscribed resource whose content changed. Nothing is sent before
   * the client is initialized (it lists everything then anyway). Returns the updated URIs.
   */
  async treeReloaded(changes: ListChanges): Promise<string[]> {
    const { fingerprintResource } = await loadTreeChanges();
    const { tree } = this.server;
    const updated: string[] = [];
    for (const [uri, previous] of this.subscriptions) {
      const current = await fingerprintResource(tree, uri);
      if (current === previous) continue;
      this.subscriptions.set(uri, current);
      updated.push(uri);
    }
    if (!this.closing) await this.notifyListeners(changes);
    if (!this.initialized || this.closing) return updated;
    if (changes.tools) this.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    if (changes.resources) this.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    if (changes.prompts) this.send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    for (const uri of updated)
      this.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
    return updated;
  }

  /** The modern subscribers: what each opted in to, tagged with its subscription id. */
  private async notifyListeners(changes: ListChanges): Promise<void> {
    if (this.listeners.size === 0) return;
    const { fingerprintResource } = await loadTreeChanges();
    for (const listener of this.listeners) {
      const tag = (params: JsonObject = {}): JsonObject => ({
        ...params,
        _meta: { [META_SUBSCRIPTION_ID]: listener.id },
      });
      if (changes.tools && listener.tools)
        listener.notify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: tag() });
      if (changes.resources && listener.resources)
        listener.notify({ jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: tag() });
      if (changes.prompts && listener.prompts)
        listener.notify({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: tag() });
      for (const [uri, previous] of listener.uris) {
        const current = await fingerprintResource(this.server.tree, uri);
        if (current === previous) continue;
        listener.uris.set(uri, current);
        listener.notify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: tag({ uri }) });
      }
    }
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
    await Promise.race([this.pending(), delay(graceMs)]);
    this.closing = true;
    for (const entry of this.inFlight.values()) entry.controller.abort();
    for (const settle of [...this.clientRequests.values()])
      settle({ error: { code: REQUEST_CANCELLED, message: 'the session ended' } });
    await Promise.race([this.pending(), delay(waitMs)]);
  }

  private pending(): Promise<unknown> {
    return Promise.allSettled([...this.inFlight.values()].map((entry) => entry.promise));
  }
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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
