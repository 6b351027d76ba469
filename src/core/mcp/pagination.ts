// Opaque cursors for the list methods: bound to one list and one manifest hash, so a cursor from
// another list, another tree or another build is refused (-32602) instead of silently skipping items.
import { base64UrlFromText, textFromBase64Url } from '../tree/utf8.js';
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import type { ProtocolVersion } from './protocol-versions.js';
import type { RequestContext, ServerContext } from './server-context.js';

export const PAGE_SIZE = 100;
export const TOTAL_META_KEY = 'staticmcp/total';

interface CursorData {
  l: string;
  h: string;
  o: number;
}

/** A short tag of the manifest hash: enough to tell builds apart, small enough for a cursor. */
function hashTag(manifestHash: string): string {
  return manifestHash.replace(/^sha256:/, '').slice(0, 16);
}

function encodeCursor(data: CursorData): string {
  return base64UrlFromText(JSON.stringify(data));
}

function decodeCursor(cursor: unknown, list: string, manifestHash: string, total: number): number {
  if (typeof cursor !== 'string')
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: it must be a string from a previous page');
  let data: Partial<CursorData>;
  try {
    data = JSON.parse(textFromBase64Url(cursor)) as Partial<CursorData>;
  } catch {
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: not one this server gave out');
  }
  if (
    !data ||
    data.l !== list ||
    typeof data.o !== 'number' ||
    !Number.isInteger(data.o) ||
    data.o <= 0 ||
    data.o >= total
  ) {
    throw new RpcError(INVALID_PARAMS, 'Invalid cursor: not one this server gave out for this list');
  }
  if (data.h !== hashTag(manifestHash))
    throw new RpcError(
      INVALID_PARAMS,
      'Stale cursor: the tree changed since it was given out; list again from the start',
    );
  return data.o;
}

/**
 * A list method (`tools/list`, `prompts/list` …): one page of `itemsOf(tree)`, each shaped for the
 * request's version, as `{[field]: page; nextCursor (only when more follow); _meta with the total}`.
 * `list` names the list in the cursor, so a cursor from another list, another tree or another
 * build is refused (-32602).
 */
export function listHandler<T>(
  field: string,
  list: string,
  itemsOf: (server: ServerContext) => readonly T[] | Promise<readonly T[]>,
  shape: (item: T, version: ProtocolVersion, server: ServerContext) => unknown,
  pageSize = PAGE_SIZE,
): (
  server: ServerContext,
  params: Record<string, unknown> | undefined,
  request: RequestContext,
) => Promise<Record<string, unknown>> {
  return async (server, params, request) => {
    const { manifestHash } = server.tree;
    const items = await itemsOf(server);
    const cursor = params?.cursor;
    const offset = cursor === undefined ? 0 : decodeCursor(cursor, list, manifestHash, items.length);
    const next = offset + pageSize;
    return {
      [field]: items.slice(offset, next).map((item) => shape(item, request.version, server)),
      ...(next < items.length ? { nextCursor: encodeCursor({ l: list, h: hashTag(manifestHash), o: next }) } : {}),
      _meta: { [TOTAL_META_KEY]: items.length },
    };
  };
}
