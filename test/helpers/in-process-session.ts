// A client session with a tree folder without starting `staticmcp serve`: the core's McpSession
// over the same Node server context serve builds (a folder source read through its packs when
// mcp.json names them, binary reads for the packs and the search index), initialized, answering one request at a time. What serve adds around it (stdio
// framing, stderr) is tested once through the real process elsewhere.
import path from 'node:path';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import { ManifestPackedSource } from '../../src/core/packs/manifest-packed-source.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';

export interface TreeSession {
  /** The JSON-RPC response to one request (its `result` or `error`). */
  request(method: string, params?: Record<string, unknown>): Promise<{ result?: unknown; error?: unknown }>;
  /** `tools/call`'s result; throws with the response when it is a protocol error. */
  callTool(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** What serve would have printed on stderr (a damaged pack table, a tree it cannot read). */
  problems: string[];
  close(): Promise<void>;
}

export interface CallResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
}

/** Opens an initialized session with the tree in `tree` (precomputed answers only, as `serve <tree>`). */
export async function openTreeSession(tree: string): Promise<TreeSession> {
  const problems: string[] = [];
  // As serve opens a folder (src/cli/commands/serve.ts): a packed tree answers from its packs.
  const packFiles = new FolderPackFiles(tree);
  const source = new ManifestPackedSource(new FolderSource(tree, path.basename(tree)), packFiles, {
    onProblem: (text) => problems.push(text),
  });
  const server = await createNodeServerContext({ source, packFiles, logProblem: (text) => problems.push(text) });
  const session = new McpSession(server, () => {});
  let nextId = 0;
  const request: TreeSession['request'] = async (method, params) =>
    (await session.handleParsed({ jsonrpc: '2.0', id: ++nextId, method, ...(params ? { params } : {}) }, () => {})) as {
      result?: unknown;
      error?: unknown;
    };
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'in-process-session', version: '1' },
  });
  await session.handleParsed({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => {});
  return {
    problems,
    request,
    async callTool(name, args) {
      const response = await request('tools/call', { name, arguments: args });
      if (!response.result)
        throw new Error(`tools/call ${name} failed: ${JSON.stringify(response)} ${problems.join('; ')}`);
      return response.result as CallResult;
    },
    async close() {
      await session.close(0, 1_000);
      source.close();
    },
  };
}
