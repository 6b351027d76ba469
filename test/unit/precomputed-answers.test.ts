// A session answers a repeated precomputed tools/call from the answer it kept (precomputed-answers.ts)
// only while the reader still holds the very file that answer came from: in-process, against a real
// tree folder whose call files are rewritten between calls. A new reader (a switched tree), a file
// the reader evicted, other arguments, a batch and a call with _meta all get the file's answer.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import type { ServerContext } from '../../src/core/mcp/server-context.js';
import { CachedTreeReader } from '../../src/core/tree-reading/cached-tree-reader.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { LOOKUP_MANIFEST } from '../helpers/lookup-manifest.js';

/** Writes the answer of lookup(n) as "value <n> <label>". */
async function writeCall(root: string, n: number, label: string): Promise<void> {
  await fs.mkdir(path.join(root, 'tools', 'lookup'), { recursive: true });
  await fs.writeFile(
    path.join(root, 'tools', 'lookup', `${n}.json`),
    JSON.stringify({
      content: [{ type: 'text', text: `value ${n} ${label}` }],
      _meta: { 'staticmcp/arguments': { n } },
    }),
  );
}

/** A tree with one tool lookup(n), n = 0…2, and a session serving it (2025-03-26: batches allowed). */
async function openLookupSession(): Promise<{ root: string; server: ServerContext; call: Call; session: McpSession }> {
  const root = await temporaryFolder('staticmcp-precomputed-answers-');
  for (const n of [0, 1, 2]) await writeCall(root, n, 'first');
  await fs.writeFile(path.join(root, 'mcp.json'), JSON.stringify(LOOKUP_MANIFEST));
  const server = await createNodeServerContext({ source: new FolderSource(root, 'lookup'), logProblem: () => {} });
  const session = new McpSession(server, () => {});
  let id = 0;
  const call: Call = async (n, extra = {}) => {
    const response = (await session.handleParsed(
      { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'lookup', arguments: { n }, ...extra } },
      () => {},
    )) as { result?: { content: { text: string }[] } };
    return response.result?.content[0]?.text;
  };
  await session.handleParsed(
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {} } },
    () => {},
  );
  return { root, server, call, session };
}

type Call = (n: number, extra?: Record<string, unknown>) => Promise<string | undefined>;

describe('a repeated precomputed call', () => {
  it('is answered the same, and from the file again once the reader is new (a switched tree)', async () => {
    const { root, server, call, session } = await openLookupSession();
    for (let time = 0; time < 4; time += 1) expect(await call(1)).toBe('value 1 first');
    expect(await call(2)).toBe('value 2 first');
    await writeCall(root, 1, 'second');
    // The reader holds the first file: the folder is immutable to it, kept answer or not.
    expect(await call(1)).toBe('value 1 first');
    server.reader = new CachedTreeReader(server.reader.source);
    expect(await call(1)).toBe('value 1 second');
    expect(await call(1, { _meta: { progressToken: 'p' } })).toBe('value 1 second');
    const batch = (await session.handleParsed(
      [1, 1].map((n, index) => ({
        jsonrpc: '2.0',
        id: 100 + index,
        method: 'tools/call',
        params: { name: 'lookup', arguments: { n } },
      })),
      () => {},
    )) as { result: { content: { text: string }[] } }[];
    expect(batch.map((response) => response.result.content[0]?.text)).toEqual(['value 1 second', 'value 1 second']);
    await session.close(0, 1_000);
  });

  it('goes the whole way again once the reader let its file go', async () => {
    const { root, server, call, session } = await openLookupSession();
    server.reader = new CachedTreeReader(server.reader.source, { maxEntries: 1 });
    for (let time = 0; time < 3; time += 1) expect(await call(1)).toBe('value 1 first');
    await writeCall(root, 1, 'second');
    // Read twice, n=2 takes the reader's one place.
    expect(await call(2)).toBe('value 2 first');
    expect(await call(2)).toBe('value 2 first');
    expect(await call(1)).toBe('value 1 second');
    await session.close(0, 1_000);
  });
});
