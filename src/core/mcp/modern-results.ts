// What the 2026-07-28 era adds to answers, in one place for every host: the discover result, and
// the fields every modern result carries (`resultType`, `serverInfo` in `_meta`, and on cacheable
// results `ttlMs` and `cacheScope`). Precomputed answers are the same for everyone until the tree
// changes, so they are `public` with the owner's TTL; anything a script produced live (or a tree
// under `dev`, which changes on every edit) is `private` with 0.
import { cacheTtlSeconds } from '../tree/manifest.js';
import { methodRow } from './method-table.js';
import { shapeServerInfo, type ProtocolVersion } from './protocol-versions.js';
import { META_SERVER_INFO, supportedModernVersions } from './request-meta.js';
import type { ServerContext } from './server-context.js';
import { serverCapabilities } from './server-capabilities.js';
import { INPUT_REQUIRED } from './input-required.js';
import { isObject, type JsonObject } from '../tree/json-object.js';

/** Where an answer came from, for its cache hints. */
export type AnswerSource = 'tree' | 'live';

export function discoverResult(server: ServerContext, version: ProtocolVersion): JsonObject {
  const { tree } = server;
  return {
    supportedVersions: supportedModernVersions(),
    capabilities: serverCapabilities(server, version, true),
    ...(tree.instructions !== undefined ? { instructions: tree.instructions } : {}),
  };
}

/** `ttlMs` and `cacheScope` for an answer from this source (0/private under dev: the tree changes). */
export function cacheHints(
  server: ServerContext,
  source: AnswerSource,
): { ttlMs: number; cacheScope: 'public' | 'private' } {
  if (source === 'live' || server.dev) return { ttlMs: 0, cacheScope: 'private' };
  return { ttlMs: cacheTtlSeconds(server.tree.extension) * 1000, cacheScope: 'public' };
}

/** A handler's result as a modern answer: resultType, serverInfo, and cache hints where the schema puts them. */
export function completeModernResult(
  server: ServerContext,
  method: string,
  version: ProtocolVersion,
  result: unknown,
  source: AnswerSource,
): JsonObject {
  const body = isObject(result) ? result : {};
  const givenMeta = isObject(body._meta) ? body._meta : {};
  return {
    ...body,
    // complete, unless a live tool call stopped for its client's input (SEP-2322).
    resultType: INPUT_REQUIRED in body ? 'input_required' : 'complete',
    ...(methodRow(method)?.cacheable ? cacheHints(server, source) : {}),
    _meta: { ...givenMeta, [META_SERVER_INFO]: shapeServerInfo(server.tree.serverInfo, version) },
  };
}
