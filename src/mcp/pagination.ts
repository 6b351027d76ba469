// Opaque cursors for the list methods: bound to one list and one manifest hash, so a cursor from
// another list, another tree or another build is refused (-32602) instead of silently skipping items.
import { base64UrlFromText, textFromBase64Url } from '../tree/utf8.js';
import { INVALID_PARAMS, RpcError } from './json-rpc.js';

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

/** One page of `items`, with `nextCursor` only when more follow and the total in `_meta`. */
export function paginate<T>(
  items: readonly T[],
  params: Record<string, unknown> | undefined,
  list: string,
  manifestHash: string,
  pageSize = PAGE_SIZE,
): { page: T[]; nextCursor?: string; _meta: Record<string, unknown> } {
  const cursor = params?.cursor;
  const offset = cursor === undefined ? 0 : decodeCursor(cursor, list, manifestHash, items.length);
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return {
    page,
    ...(next < items.length ? { nextCursor: encodeCursor({ l: list, h: hashTag(manifestHash), o: next }) } : {}),
    _meta: { [TOTAL_META_KEY]: items.length },
  };
}
