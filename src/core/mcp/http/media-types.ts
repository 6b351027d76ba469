// The media types of Streamable HTTP: what a client accepts (Accept), whether a body is JSON
// (Content-Type), and the headers an SSE answer goes out with.

export const JSON_TYPE = 'application/json';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** Which of the two answer forms the client can read. */
export interface Accepts {
  json: boolean;
  sse: boolean;
}

/**
 * What the client can read. The spec wants both listed; a client that lists only one gets only
 * that one (JSON: progress and log notifications are dropped), and one that sends no Accept, or a
 * wildcard, gets either.
 */
export function parseAccept(header: string | null): Accepts {
  if (header === null || header.trim() === '') return { json: true, sse: true };
  const types = header.split(',').map((part) => (part.split(';')[0] ?? '').trim().toLowerCase());
  const any = types.includes('*/*');
  return {
    json: any || types.includes(JSON_TYPE) || types.includes('application/*'),
    sse: any || types.includes('text/event-stream') || types.includes('text/*'),
  };
}

/** The media type, not a substring: `application/json; charset=utf-8` yes, `application/jsonx` no. */
export function isJsonContentType(header: string | null): boolean {
  return header !== null && (header.split(';')[0] ?? '').trim().toLowerCase() === JSON_TYPE;
}
