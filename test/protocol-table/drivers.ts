// The hosts the protocol table is replayed through. Each driver opens one client connection to a
// tree (initialize done) and sends one request at a time; a new host is one more driver here.
import path from 'node:path';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import { ManifestPackedSource } from '../../src/core/packs/manifest-packed-source.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { HttpServe, openSession, post, sseMessages } from '../helpers/http-serve.js';
import { startStaticHost } from '../hosts/host-runtimes.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import type { ProtocolResponse } from './cases.js';

// The runtime hosts (workerd, wrangler, Deno) are in runtime-drivers.ts, apart, so that the core
// and cli tiers never load miniflare.

export const TABLE_PROTOCOL_VERSION = '2025-11-25';

/** The headers a 2026-07-28 client mirrors from the body (the version defaults to the modern one when _meta has none). */
export function modernHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.['io.modelcontextprotocol/protocolVersion'];
  const name =
    method === 'resources/read'
      ? params?.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params?.name
        : undefined;
  return {
    'mcp-protocol-version': typeof version === 'string' ? version : '2026-07-28',
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
}

export const INITIALIZE_PARAMS = {
  protocolVersion: TABLE_PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'protocol-table', version: '1' },
};

export interface Connection {
  /** `modern`: a 2026-07-28 request (over HTTP: no session, MCP-Protocol-Version/Mcp-Method/Mcp-Name from the body). */
  request(id: string, method: string, params?: Record<string, unknown>, era?: 'modern'): Promise<ProtocolResponse>;
  close(): Promise<void>;
}

export interface Driver {
  name: string;
  /** Every request stands alone (the edge worker): cases that need a session are skipped. */
  stateless?: boolean;
  /** Opens an initialized connection to the tree in `treeRoot` (precomputed answers only). */
  open(treeRoot: string): Promise<Connection>;
}

/** The core itself, no transport: the reference every other host is compared with. */
export const inProcessDriver: Driver = {
  name: 'in-process',
  async open(treeRoot) {
    // Binary reads, as serve gives them: the search and fetch tools answer from the tree's index.
    const packFiles = new FolderPackFiles(treeRoot);
    const server = await createNodeServerContext({
      // As serve opens a folder (src/cli/commands/serve.ts): a packed tree answers from its packs.
      source: new ManifestPackedSource(new FolderSource(treeRoot, path.basename(treeRoot)), packFiles),
      packFiles,
      logProblem: () => {},
    });
    const session = new McpSession(server, () => {});
    const ask = async (message: Record<string, unknown>): Promise<ProtocolResponse> =>
      (await session.handleParsed(message, () => {})) as unknown as ProtocolResponse;
    await ask({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INITIALIZE_PARAMS });
    await session.handleParsed({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => {});
    return {
      request: (id, method, params) => ask({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }),
      close: () => session.close(0, 1_000),
    };
  },
};

/** `staticmcp serve <tree>` as a real process over stdio. */
export const stdioDriver: Driver = {
  name: 'stdio',
  async open(treeRoot) {
    const bridge = new RawBridge([treeRoot]);
    await bridge.initialize(TABLE_PROTOCOL_VERSION);
    return {
      request: async (id, method, params) => {
        bridge.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
        return (await bridge.responseTo(id)) as ProtocolResponse;
      },
      close: async () => {
        await bridge.close();
      },
    };
  },
};

/** One Streamable HTTP session on a running `serve --http`; closing it stops the server when `stop`. */
async function openHttpSession(serve: HttpServe, stop: boolean): Promise<Connection> {
  const sessionId = await openSession(serve.port, TABLE_PROTOCOL_VERSION);
  return {
    request: async (id, method, params, era) => {
      const headers =
        era === 'modern'
          ? modernHeaders(method, params)
          : { 'mcp-session-id': sessionId, 'mcp-protocol-version': TABLE_PROTOCOL_VERSION };
      const answer = await post(serve.port, { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, headers);
      const messages = String(answer.headers['content-type']).startsWith('text/event-stream')
        ? sseMessages(answer.text)
        : [answer.json()];
      return messages.at(-1) as unknown as ProtocolResponse;
    },
    close: async () => {
      if (stop) await serve.stop();
    },
  };
}

/** `staticmcp serve <tree> --http` as a real process: one Streamable HTTP session over loopback. */
export const nodeHttpDriver: Driver = {
  name: 'node-http',
  open: async (treeRoot) => openHttpSession(await HttpServe.start([treeRoot]), true),
};

/**
 * The node-http driver on a server the file started (`serve` resolves it) and stops itself, so
 * that its other tests (an SDK client's) talk to the same process instead of starting another.
 */
export function sharedNodeHttpDriver(serve: () => Promise<HttpServe>): Driver {
  return { name: 'node-http', open: async () => openHttpSession(await serve(), false) };
}

/** `staticmcp serve <URL>` over stdio, reading the tree from a plain static host. */
export const serveUrlDriver: Driver = {
  name: 'serve-url',
  async open(treeRoot) {
    const host = await startStaticHost(treeRoot);
    const bridge = new RawBridge([host.url.href]);
    await bridge.initialize(TABLE_PROTOCOL_VERSION);
    return {
      request: async (id, method, params) => {
        bridge.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
        return (await bridge.responseTo(id)) as ProtocolResponse;
      },
      close: async () => {
        await bridge.close();
        await host.close();
      },
    };
  },
};
