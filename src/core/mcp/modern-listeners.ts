// `subscriptions/listen` (2026-07-28): each open request is a listener that opted in to list
// changes and resource updates. A served tree never changes, so it honours nothing and ends the
// subscription at once; under `staticmcp dev` the request stays open and carries, tagged with its
// subscription id, what a reloaded tree changed, until the client cancels it.
import { INVALID_PARAMS, RpcError, type JsonRpcRequest, type RequestId } from './json-rpc.js';
import { shapeServerInfo } from './protocol-versions.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID, type ModernRequest } from './request-meta.js';
import { MAX_SUBSCRIPTIONS, RequestCancelled, type ServerContext } from './server-context.js';
import type { Send } from './client-questions.js';
import { MAX_TEMPLATE_URI_LENGTH } from './template-reads.js';
import type { ListChanges } from './tree-changes.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

/** Only `staticmcp dev` needs these (and node:crypto): loaded on the first subscription or reload. */
const loadTreeChanges = (): Promise<typeof import('./tree-changes.js')> => import('./tree-changes.js');

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

/**
 * The request id tags every notification of a subscription, and a subscribed URI goes into each of
 * its updates: both are capped, so a small request cannot buy large notifications for as long as it
 * stays open. 256 characters hold any id a client makes (counters, UUIDs); URIs get the length
 * every URI-template read allows.
 */
const MAX_SUBSCRIPTION_ID_CHARS = 256;

function refuseLongCopiedValues(id: RequestId, uris: readonly string[] | undefined): void {
  if (typeof id === 'string' && id.length > MAX_SUBSCRIPTION_ID_CHARS)
    throw new RpcError(
      INVALID_PARAMS,
      `subscriptions/listen: the request id is ${id.length} characters long, more than the ${MAX_SUBSCRIPTION_ID_CHARS} this server copies into each notification of the subscription; use a shorter id`,
    );
  const long = uris?.find((uri) => uri.length > MAX_TEMPLATE_URI_LENGTH);
  if (long !== undefined)
    throw new RpcError(
      INVALID_PARAMS,
      `subscriptions/listen: a subscribed URI is ${long.length} characters long, more than the ${MAX_TEMPLATE_URI_LENGTH} this server reads`,
    );
}

export class ModernListeners {
  private readonly listeners = new Set<Listener>();

  /**
   * `subscriptions/listen`: acknowledged with the subset honoured. A served tree never changes, so
   * it honours nothing and ends the subscription at once (a graceful close, as the spec allows);
   * under dev the request stays open and carries list changes and resource updates until the
   * client cancels it.
   */
  async listen(
    server: ServerContext,
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
    refuseLongCopiedValues(request.id, wanted as string[] | undefined);
    const listener: Listener = {
      id: request.id,
      tools: false,
      prompts: false,
      resources: false,
      uris: new Map(),
      notify,
    };
    const honoured: JsonObject = {};
    if (server.dev) {
      listener.tools = filter.toolsListChanged === true;
      listener.prompts = filter.promptsListChanged === true;
      listener.resources = filter.resourcesListChanged === true;
      if (listener.tools) honoured.toolsListChanged = true;
      if (listener.prompts) honoured.promptsListChanged = true;
      if (listener.resources) honoured.resourcesListChanged = true;
      if (wanted !== undefined) {
        const { fingerprintResource } = await loadTreeChanges();
        for (const uri of (wanted as string[]).slice(0, MAX_SUBSCRIPTIONS))
          listener.uris.set(uri, await fingerprintResource(server.tree, uri));
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
      _meta: { ...subscriptionMeta, [META_SERVER_INFO]: shapeServerInfo(server.tree.serverInfo, era.version) },
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

  /** The modern subscribers: what each opted in to, tagged with its subscription id. */
  async notifyChanges(server: ServerContext, changes: ListChanges): Promise<void> {
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
        const current = await fingerprintResource(server.tree, uri);
        if (current === previous) continue;
        listener.uris.set(uri, current);
        listener.notify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: tag({ uri }) });
      }
    }
  }
}
