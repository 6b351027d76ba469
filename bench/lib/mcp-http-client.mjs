// The benches' MCP client over Streamable HTTP, as plain fetch calls: a session's initialize and a
// timed tools/call (the SDK client's own cost would hide the servers' differences).
let nextId = 1;
export const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/** initialize (+ initialized); returns the headers later calls send (with Mcp-Session-Id when one was issued). */
export async function initialize(endpoint) {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  await response.text();
  const session = response.headers.get('mcp-session-id');
  const headers = session ? { ...HEADERS, 'mcp-session-id': session } : HEADERS;
  await (
    await fetch(endpoint, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
  ).text();
  return headers;
}

/** A tools/call request's body, with a fresh id. */
export function toolCallBody(name, args) {
  return JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } });
}

/** One tools/call; resolves with the JSON-RPC answer and the milliseconds it took. */
export async function timeToolCall(endpoint, headers, name, args) {
  const startedAt = performance.now();
  const response = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: toolCallBody(name, args),
  });
  const answer = await response.json();
  return { answer, elapsedMs: performance.now() - startedAt };
}
