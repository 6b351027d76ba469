// INTERIM: a stateless Streamable HTTP handler with the contract of src/mcp/streamable-http.ts,
// which is being written on the `http` branch. The worker needs one now to be built and tested in
// workerd; once that branch is merged, the worker imports the shared handler and this file goes.
// Only what a stateless endpoint needs: POST of JSON-RPC → JSON (202 when nothing is answered),
// GET/DELETE → 405, Origin checks and CORS, content type, size and protocol-version checks.
import { errorResponse, INVALID_REQUEST, PARSE_ERROR } from '../mcp/json-rpc.js';
import { McpSession } from '../mcp/mcp-session.js';
import { SUPPORTED_VERSIONS, type ProtocolVersion } from '../mcp/protocol-versions.js';
import type { ServerContext } from '../mcp/server-context.js';

export interface McpHttpOptions {
  server: () => ServerContext;
  sessions: boolean;
  allowedHosts?: readonly string[];
  isAllowedOrigin(origin: string, request: Request): boolean;
  maxBodyBytes?: number;
  maxSessions?: number;
  maxLiveRunsPerSession?: number;
}

export interface McpHttpHandler {
  handle(request: Request): Promise<Response>;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** What the spec says a server assumes when a client sends no MCP-Protocol-Version header. */
const VERSION_WITHOUT_HEADER: ProtocolVersion = '2025-03-26';
const ALLOWED_METHODS = 'POST, OPTIONS';
const ALLOWED_HEADERS = 'content-type, accept, authorization, mcp-protocol-version, mcp-session-id, last-event-id';

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, errorResponse(null, code, message), headers);
}

/** Past the limit, a body is still read (and dropped) up to this many times it, so the client finishes sending and sees the 413 instead of a reset connection. */
const DRAIN_FACTOR = 4;

/** Reads at most `limitBytes` of the body; undefined when it is longer. */
async function readBodyText(request: Request, limitBytes: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes * DRAIN_FACTOR || (total > limitBytes && declared > limitBytes * DRAIN_FACTOR)) {
      await reader.cancel();
      return undefined;
    }
    if (total <= limitBytes) chunks.push(value);
  }
  if (total > limitBytes) return undefined;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function isInitialize(parsed: unknown): boolean {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some((message) => message !== null && typeof message === 'object' && (message as { method?: unknown }).method === 'initialize');
}

export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    async handle(request: Request): Promise<Response> {
      const origin = request.headers.get('origin');
      if (origin !== null && !options.isAllowedOrigin(origin, request)) {
        return rpcError(403, INVALID_REQUEST, `Forbidden: requests from origin ${origin} are not allowed`);
      }
      const cors: Record<string, string> = origin !== null ? { 'access-control-allow-origin': origin, vary: 'Origin' } : {};
      if (request.method === 'OPTIONS') {
        return new Response(null, {
          status: 204,
          headers: { ...cors, 'access-control-allow-methods': ALLOWED_METHODS, 'access-control-allow-headers': ALLOWED_HEADERS, 'access-control-max-age': '86400' },
        });
      }
      if (request.method !== 'POST') {
        return rpcError(405, INVALID_REQUEST, `Method not allowed: this endpoint is stateless and answers POST only`, { ...cors, allow: 'POST' });
      }
      const contentType = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (contentType !== 'application/json') {
        return rpcError(415, INVALID_REQUEST, 'Unsupported Media Type: send the JSON-RPC message as application/json', cors);
      }
      const versionHeader = request.headers.get('mcp-protocol-version');
      if (versionHeader !== null && !(SUPPORTED_VERSIONS as readonly string[]).includes(versionHeader)) {
        return rpcError(400, INVALID_REQUEST, `Bad Request: unsupported MCP-Protocol-Version ${versionHeader} (supported: ${SUPPORTED_VERSIONS.join(', ')})`, cors);
      }
      const text = await readBodyText(request, maxBodyBytes);
      if (text === undefined) return rpcError(413, INVALID_REQUEST, `Payload Too Large: the body is over ${maxBodyBytes} bytes`, cors);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return rpcError(400, PARSE_ERROR, 'Parse error: the body is not valid JSON', cors);
      }
      // Stateless: a request other than initialize carries its version in the header.
      const version = isInitialize(parsed) ? undefined : ((versionHeader ?? VERSION_WITHOUT_HEADER) as ProtocolVersion);
      const session = new McpSession(options.server(), () => {}, { version });
      const answer = await session.handleParsed(parsed, () => {});
      if (answer === undefined) return new Response(null, { status: 202, headers: cors });
      return jsonResponse(200, answer, cors);
    },
    async close() {},
  };
}
