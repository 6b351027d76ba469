// The playground's client of the site's own /mcp (the tree's worker, or `staticmcp serve --http`):
// found by an `initialize` POST that must come back as a JSON-RPC answer (a static host answers a
// POST with 404, 405 or its HTML page), then one request per call, with the session the server
// gave, as JSON or as a Server-Sent Events stream.
import { isObject, type JsonObject } from '../core/tree/json-object.js';

const PROTOCOL_VERSION = '2025-06-18';

export interface McpEndpoint {
  url: URL;
  serverInfo: JsonObject;
  request(method: string, params: JsonObject): Promise<{ result: JsonObject } | { error: string }>;
}

/** The JSON-RPC message answering `id` in a JSON body or an SSE stream, or undefined. */
function findAnswer(text: string, contentType: string, id: number): JsonObject | undefined {
  const bodies = contentType.includes('text/event-stream')
    ? text.split(/\r?\n\r?\n/).map((event) =>
        event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n'),
      )
    : [text];
  for (const body of bodies) {
    try {
      const message: unknown = JSON.parse(body);
      if (isObject(message) && message.id === id && ('result' in message || 'error' in message)) return message;
    } catch {
      // Not JSON: a host's page, or an SSE comment.
    }
  }
  return undefined;
}

/** Connects to `url`, or undefined when nothing answers MCP there. */
export async function connectMcp(url: URL): Promise<McpEndpoint | undefined> {
  let nextId = 1;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  async function post(method: string, params: JsonObject): Promise<JsonObject | undefined> {
    const id = nextId++;
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    const session = response.headers.get('mcp-session-id');
    if (session) headers['mcp-session-id'] = session;
    return findAnswer(await response.text(), response.headers.get('content-type') ?? '', id);
  }
  let answer: JsonObject | undefined;
  try {
    answer = await post('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'staticmcp-playground', version: '1' },
    });
  } catch {
    return undefined;
  }
  if (!answer || !isObject(answer.result)) return undefined;
  const result = answer.result;
  headers['mcp-protocol-version'] =
    typeof result.protocolVersion === 'string' ? result.protocolVersion : PROTOCOL_VERSION;
  await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).catch(() => undefined);
  return {
    url,
    serverInfo: isObject(result.serverInfo) ? result.serverInfo : {},
    async request(method, params) {
      try {
        const reply = await post(method, params);
        if (!reply) return { error: `${url.href} gave no answer to ${method}` };
        if (isObject(reply.result)) return { result: reply.result };
        const error = isObject(reply.error) ? reply.error : {};
        return { error: `${typeof error.message === 'string' ? error.message : 'error'} (code ${String(error.code)})` };
      } catch (error) {
        return { error: `${url.href} cannot be reached (${(error as Error).message})` };
      }
    },
  };
}
