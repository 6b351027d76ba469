// `resources/list` over a tree whose list is in parts (core/tree/resource-list.ts): the first pages
// come from mcp.json's inline entries, each later page from one part file, so a page reads at most
// one part (the first page none). The cursor names the part and the offset in it, bound to the
// build like every list cursor (pagination.ts): a cursor of another build is refused as stale.
import { isObject, type JsonObject } from '../tree/json-object.js';
import { entriesOfPart, type ResourceListParts } from '../tree/resource-list.js';
import { base64UrlFromText, textFromBase64Url } from '../tree/utf8.js';
import { answerableLists } from './answerable-lists.js';
import { INTERNAL_ERROR, INVALID_PARAMS, RpcError } from './json-rpc.js';
import { PAGE_SIZE, TOTAL_META_KEY } from './pagination.js';
import { shapeResource } from './protocol-versions.js';
import { documentUrlBase, resolveResourcePage } from '../search/document-url.js';
import type { RequestContext, ServerContext } from './server-context.js';

const LIST = 'resources';

interface PartCursor {
  l: string;
  h: string;
  /** 0: mcp.json's inline entries; n: the extension's part n - 1. */
  p: number;
  o: number;
}

function hashTag(manifestHash: string): string {
  return manifestHash.replace(/^sha256:/, '').slice(0, 16);
}

function decodePartCursor(cursor: unknown, manifestHash: string, list: ResourceListParts): { p: number; o: number } {
  if (typeof cursor !== 'string')
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: it must be a string from a previous page');
  let data: Partial<PartCursor> | undefined;
  try {
    data = JSON.parse(textFromBase64Url(cursor)) as Partial<PartCursor>;
  } catch {
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: not one this server gave out');
  }
  const { p, o } = isObject(data) ? data : {};
  if (
    data?.l !== LIST ||
    !Number.isSafeInteger(p) ||
    !Number.isSafeInteger(o) ||
    (p as number) < 0 ||
    (p as number) > list.parts.length ||
    (o as number) < 0
  )
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: not one this server gave out for this list');
  if (data.h !== hashTag(manifestHash))
    throw new RpcError(
      INVALID_PARAMS,
      'Stale cursor: the tree changed since it was given out; list again from the start',
    );
  return { p: p as number, o: o as number };
}

/** The entries of part `p` (0: inline), state resources left out when nothing runs live. */
async function entriesOf(
  server: ServerContext,
  list: ResourceListParts,
  p: number,
  request: RequestContext,
): Promise<JsonObject[]> {
  if (p === 0) return (await answerableLists(server)).resources.map((resource) => resource.definition);
  const part = list.parts[p - 1]!;
  const file = await server.reader.readJson(part.path, request.answerRoom, `the resource list part ${part.path}`);
  const entries = file.kind === 'ok' ? entriesOfPart(file.value, part) : undefined;
  if (entries === undefined || 'problem' in entries) {
    const reason = entries?.problem ?? (file.kind === 'broken' ? file.reason : `${part.path} is missing from the tree`);
    server.logProblem(`resources/list: ${reason}`);
    throw new RpcError(
      INTERNAL_ERROR,
      `This page of the resource list cannot be read (${reason}); deploy the whole tree again`,
    );
  }
  const stateResources = server.tree.extension?.stateResources ?? {};
  return server.live
    ? entries
    : entries.filter((entry) => typeof entry.uri !== 'string' || typeof stateResources[entry.uri] !== 'string');
}

export async function listResourcesInParts(
  server: ServerContext,
  list: ResourceListParts,
  params: Record<string, unknown> | undefined,
  request: RequestContext,
): Promise<Record<string, unknown>> {
  const { manifestHash } = server.tree;
  const { p, o } = params?.cursor === undefined ? { p: 0, o: 0 } : decodePartCursor(params.cursor, manifestHash, list);
  const entries = await entriesOf(server, list, p, request);
  if (o > 0 && o >= entries.length)
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: not one this server gave out for this list');
  const end = o + PAGE_SIZE;
  // A resource's page (its `_meta` "staticmcp/url") is stored relative to the tree: made absolute here.
  const pageBase = documentUrlBase(server.tree.extension?.publicUrl, server.requestOrigin);
  const next = end < entries.length ? { p, o: end } : p < list.parts.length ? { p: p + 1, o: 0 } : undefined;
  return {
    resources: entries
      .slice(o, end)
      .map((entry) => shapeResource(resolveResourcePage(entry, pageBase), request.version)),
    ...(next ? { nextCursor: base64UrlFromText(JSON.stringify({ l: LIST, h: hashTag(manifestHash), ...next })) } : {}),
    _meta: { [TOTAL_META_KEY]: list.total },
  };
}
