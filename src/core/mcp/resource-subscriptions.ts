// A legacy session's resource subscriptions (`resources/subscribe` and `unsubscribe`), and which
// of them a reloaded tree changed. Where the tree can change (dev, a served folder) a fingerprint
// of each subscribed resource's content is kept, to tell after a rebuild whether it changed;
// other subscribers are simply never notified.
import { INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError } from './json-rpc.js';
import { MAX_SUBSCRIPTIONS, type ServerContext } from './server-context.js';
import type { JsonObject } from '../tree/json-object.js';

/** Only `staticmcp dev` needs these (and node:crypto): loaded on the first subscription or reload. */
const loadTreeChanges = (): Promise<typeof import('./tree-changes.js')> => import('./tree-changes.js');

export class ResourceSubscriptions {
  /** Subscribed resource URIs → a fingerprint of what a read answered at the last check. */
  private readonly fingerprints = new Map<string, string>();

  constructor(private readonly server: ServerContext) {}

  /** Any known resource (listed, a state resource, or an instance of a template) can be subscribed. */
  async subscribe(params: JsonObject | undefined): Promise<JsonObject> {
    const uri = params?.uri;
    if (typeof uri !== 'string') throw new RpcError(INVALID_PARAMS, 'resources/subscribe needs params.uri (a string)');
    const { tree } = this.server;
    const known =
      tree.resourcesByUri.has(uri) ||
      tree.extension?.stateResources?.[uri] !== undefined ||
      (await import('./template-reads.js')).findTemplateFor(tree, uri) !== undefined;
    if (!known) throw new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    // Template instances are unbounded: one session must not grow this map without end.
    if (!this.fingerprints.has(uri) && this.fingerprints.size >= MAX_SUBSCRIPTIONS) {
      throw new RpcError(
        INVALID_PARAMS,
        `resources/subscribe: at most ${MAX_SUBSCRIPTIONS} subscriptions per session; unsubscribe from some first`,
      );
    }
    if (!this.server.dev && this.server.treeSwitch === undefined) {
      this.fingerprints.set(uri, '');
      return {};
    }
    const { fingerprintResource } = await loadTreeChanges();
    this.fingerprints.set(uri, await fingerprintResource(tree, uri));
    return {};
  }

  unsubscribe(params: JsonObject | undefined): JsonObject {
    const uri = params?.uri;
    if (typeof uri !== 'string')
      throw new RpcError(INVALID_PARAMS, 'resources/unsubscribe needs params.uri (a string)');
    this.fingerprints.delete(uri);
    return {};
  }

  /** After a reloaded tree was swapped in: the subscribed URIs whose content changed (their fingerprints updated). */
  async changedByReload(): Promise<string[]> {
    const { fingerprintResource } = await loadTreeChanges();
    const { tree } = this.server;
    const updated: string[] = [];
    for (const [uri, previous] of this.fingerprints) {
      const current = await fingerprintResource(tree, uri);
      if (current === previous) continue;
      this.fingerprints.set(uri, current);
      updated.push(uri);
    }
    return updated;
  }
}
