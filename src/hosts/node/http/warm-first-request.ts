// `serve --http`'s first request, answered once in-process before a client sends one: node:http's
// parser, request and response objects, the exchange and the handler's whole way for a tools/call
// are compiled the first time they run, which made a new server's first call several times the
// CPU of the next (bench/first-call.mjs). The request comes over an in-memory stream handed to the
// server as a connection (node:http accepts any duplex stream there): no socket is opened, and its
// answer is dropped. It is a 2026-07-28 tools/call of a tool that runs no script (made-up arguments,
// core/mcp/warm-cut-calls.ts), so nothing runs, is sent to a client or kept; without such a tool it
// is a ping (so too for a tree read over the network).
import type { Server } from 'node:http';
import { Duplex } from 'node:stream';
import { MODERN_VERSIONS } from '../../../core/mcp/protocol-versions.js';
import type { ServerContext } from '../../../core/mcp/server-context.js';
import { sampleArguments } from '../../../core/mcp/warm-cut-calls.js';

/** Long enough for any answer of a local tree; a warm request still open then is dropped. */
const WARM_TIMEOUT_MS = 5_000;

/** The made-up request's JSON-RPC body and its `mcp-method` and `mcp-name` headers. */
export function warmMessage(context: ServerContext): { body: string; method: string; name?: string } {
  const [version] = MODERN_VERSIONS;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  // A tree read over the network would be asked for a made-up file: only a local tree is.
  const local = context.reader.source.revalidateAfterMs === undefined;
  const tool = context.tree.tools.find((candidate) => candidate.searchTool === undefined && !candidate.extension?.live);
  if (tool === undefined || !local)
    return { body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping', params: { _meta } }), method: 'ping' };
  const name = tool.definition.name;
  const params = { name, arguments: sampleArguments(tool.definition.inputSchema), _meta };
  return { body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/call', params }), method: 'tools/call', name };
}

/** A name as the Mcp-Name header carries it: plain when it is visible ASCII, else Base64 (modern-http-headers.ts). */
function headerValue(name: string): string {
  return /^[\x21-\x7e]+$/.test(name) ? name : `=?base64?${Buffer.from(name).toString('base64')}?=`;
}

/**
 * Answers one made-up request through `server`'s own handlers, as if `host` had been asked;
 * resolves once its answer is written (or dropped), never rejects.
 */
export function warmFirstRequest(server: Server, context: ServerContext, host: string): Promise<void> {
  const { body, method, name } = warmMessage(context);
  const request =
    `POST /mcp HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\nmcp-protocol-version: ${MODERN_VERSIONS[0]}\r\n` +
    `mcp-method: ${method}\r\n${name === undefined ? '' : `mcp-name: ${headerValue(name)}\r\n`}` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
  return new Promise<void>((resolve) => {
    const connection = new Duplex({
      read() {},
      // The answer is dropped.
      write(_chunk, _encoding, callback) {
        callback();
      },
    });
    const timer = setTimeout(() => connection.destroy(), WARM_TIMEOUT_MS);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    // `connection: close`: the server ends its side once the answer is written.
    connection.once('finish', () => connection.destroy());
    connection.once('close', done);
    connection.on('error', () => {});
    server.emit('connection', connection);
    connection.push(request);
  });
}
