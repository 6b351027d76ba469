// One table of requests the MCP endpoint must refuse, each with the answer a client gets: the HTTP
// status and a JSON-RPC error body (id null unless the request's own id is echoed) whose code and
// message say what was wrong. bad-input.test.ts replays it through `serve --http` (on an open
// session) and the edge worker in workerd (stateless): where the two differ by design (no
// sessions, no Host check, only POST on the edge) the row says what the worker answers instead.
export interface ExpectedRefusal {
  status: number;
  code: number;
  message: RegExp;
  /** Answer headers that must be there (lower-case names). */
  headers?: Record<string, string>;
  /** The error body's id (default null: a transport error). */
  id?: number | null;
}

export interface BadInputCase {
  name: string;
  /** Default POST. */
  method?: string;
  /**
   * Added to the host's usual headers (content-type and accept for JSON-RPC, MCP-Protocol-Version
   * 2025-11-25 and, on serve --http, the session's Mcp-Session-Id); undefined removes one.
   */
  headers?: Record<string, string | undefined>;
  /** Default: a ping on POST, none otherwise. */
  body?: string | Buffer;
  expected: ExpectedRefusal;
  /** What the edge worker answers instead, or 'not applicable' (a rule of serve --http alone). */
  onWorker?: ExpectedRefusal | 'not applicable';
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const OVER_4_MIB = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}}`;
const BATCH = JSON.stringify([
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'greet', arguments: { language: 'de' } } },
]);
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bad-input', version: '1' },
};
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-session-id': undefined };
const NO_SESSION_ON_THE_EDGE: ExpectedRefusal = {
  status: 405,
  code: -32000,
  message: /Method Not Allowed/,
  headers: { allow: 'POST' },
};

export const BAD_INPUT_CASES: BadInputCase[] = [
  {
    name: 'malformed JSON → 400 with -32700',
    body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    expected: { status: 400, code: -32700, message: /Parse error: the body is not valid JSON/ },
  },
  {
    name: 'bytes that are not UTF-8 → 400 with -32700',
    body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    expected: { status: 400, code: -32700, message: /Parse error: the body could not be read as UTF-8/ },
  },
  {
    name: 'a body that is not JSON by content type → 415',
    headers: { 'content-type': 'text/plain' },
    expected: { status: 415, code: -32000, message: /Unsupported Media Type/ },
  },
  {
    name: 'a body without a content type → 415',
    headers: { 'content-type': undefined },
    expected: { status: 415, code: -32000, message: /Unsupported Media Type/ },
  },
  {
    name: 'a body over 4 MiB, its length announced → 413',
    body: OVER_4_MIB,
    expected: { status: 413, code: -32000, message: /Payload Too Large/ },
  },
  {
    name: 'a body over 4 MiB, streamed (chunked) → 413',
    headers: { 'transfer-encoding': 'chunked' },
    body: OVER_4_MIB,
    expected: { status: 413, code: -32000, message: /Payload Too Large/ },
  },
  {
    name: 'an unknown session → 404 with -32001',
    headers: { 'mcp-session-id': 'not-a-session' },
    expected: { status: 404, code: -32001, message: /Session not found/ },
    onWorker: 'not applicable',
  },
  {
    name: 'a request without its session → 400 that names Mcp-Session-Id',
    headers: { 'mcp-session-id': undefined },
    expected: { status: 400, code: -32000, message: /Mcp-Session-Id/ },
    onWorker: 'not applicable',
  },
  {
    name: 'DELETE of an unknown session → 404 with -32001',
    method: 'DELETE',
    headers: { 'mcp-session-id': 'not-a-session' },
    expected: { status: 404, code: -32001, message: /Session not found/ },
    onWorker: NO_SESSION_ON_THE_EDGE,
  },
  {
    name: 'a method /mcp does not answer → 405 with Allow',
    method: 'PUT',
    body: '{}',
    expected: { status: 405, code: -32000, message: /Method Not Allowed/, headers: { allow: 'GET, POST, DELETE' } },
    onWorker: NO_SESSION_ON_THE_EDGE,
  },
  {
    name: 'a foreign Host → 403',
    headers: { host: 'evil.example:8080' },
    expected: { status: 403, code: -32000, message: /Host/ },
    // The edge platform routes by Host before the worker runs: there is no rebinding to refuse.
    onWorker: 'not applicable',
  },
  {
    name: 'a foreign Origin → 403',
    headers: { origin: 'https://evil.example' },
    expected: { status: 403, code: -32000, message: /requests from this Origin are not allowed/ },
  },
  {
    name: 'the opaque Origin "null" → 403',
    headers: { origin: 'null' },
    expected: { status: 403, code: -32000, message: /Origin/ },
  },
  {
    name: 'a preflight from a foreign Origin → 403',
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    expected: { status: 403, code: -32000, message: /Origin/ },
  },
  {
    name: 'an unsupported MCP-Protocol-Version → 400',
    headers: { 'mcp-protocol-version': '1999-01-01' },
    expected: { status: 400, code: -32000, message: /unsupported MCP-Protocol-Version "1999-01-01"/ },
  },
  {
    name: 'a client that accepts neither JSON nor SSE → 406',
    headers: { accept: 'text/html' },
    expected: { status: 406, code: -32000, message: /Not Acceptable/ },
  },
  {
    name: 'a GET stream for a client that does not accept SSE → 406',
    method: 'GET',
    headers: { accept: 'application/json' },
    expected: { status: 406, code: -32000, message: /text\/event-stream/ },
    onWorker: NO_SESSION_ON_THE_EDGE,
  },
  {
    name: 'a batch under a version without batches → 400 with -32600',
    body: BATCH,
    expected: { status: 400, code: -32600, message: /batches are only accepted under protocol version 2025-03-26/ },
  },
  {
    name: 'initialize in a batch → 400 with -32600',
    headers: { 'mcp-session-id': undefined, 'mcp-protocol-version': undefined },
    body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }]),
    expected: { status: 400, code: -32600, message: /initialize must be sent on its own/ },
  },
  {
    name: 'an invalid message alone → 400 with its error',
    body: JSON.stringify({ jsonrpc: '1.0', method: 'ping' }),
    expected: { status: 400, code: -32600, message: /Invalid request: jsonrpc must be "2.0"/ },
  },
  {
    name: 'a 2026-07-28 POST holding a batch → 400 with -32600',
    headers: MODERN_HEADERS,
    body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } }]),
    expected: { status: 400, code: -32600, message: /carries exactly one JSON-RPC request/ },
  },
  {
    name: 'a 2026-07-28 GET or DELETE → 405 (that era has no sessions)',
    method: 'DELETE',
    headers: MODERN_HEADERS,
    expected: NO_SESSION_ON_THE_EDGE,
  },
];

export { PING };
