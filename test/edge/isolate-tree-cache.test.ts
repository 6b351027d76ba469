// The worker keeps only mcp.json between requests: served from the isolate's copy for a minute,
// then revalidated with its ETag, so a redeployed site is noticed without a fetch per request.
import { beforeEach, describe, expect, it } from 'vitest';
import type { ReadOutcome, TreeSource } from '../../src/core/tree/tree-source.js';
import type { PackFileSource } from '../../src/core/packs/pack-reader.js';
import { forgetIsolateTree, loadTreeForIsolate, MANIFEST_RECHECK_MS } from '../../src/hosts/edge/isolate-tree-cache.js';

/** A site whose mcp.json can be replaced, answering If-None-Match like a static host. */
function site(): { source: TreeSource & PackFileSource; reads: string[]; publish(name: string): void } {
  let manifest = '';
  let etag = '';
  const reads: string[] = [];
  const publish = (name: string): void => {
    manifest = JSON.stringify({
      protocolVersion: '2025-06-18',
      serverInfo: { name, version: '1' },
      capabilities: { tools: [], resources: [] },
    });
    etag = `"${name}"`;
  };
  const source: TreeSource & PackFileSource = {
    displayName: 'https://site.example/',
    revalidateAfterMs: 30_000,
    read: async (relativePath, ifNoneMatch): Promise<ReadOutcome> => {
      reads.push(`${relativePath}${ifNoneMatch ? ` if-none-match ${ifNoneMatch}` : ''}`);
      if (relativePath !== 'mcp.json') return { status: 'missing' };
      return ifNoneMatch === etag ? { status: 'not-modified' } : { status: 'ok', text: manifest, etag };
    },
    // This site has no packs and no search index.
    readBytes: async () => ({ status: 'missing' }),
    close: () => {},
  };
  return { source, reads, publish };
}

beforeEach(forgetIsolateTree);

describe('the isolate copy of mcp.json', () => {
  it('is reused within a minute, revalidated after it, and replaced when the site changed', async () => {
    const { source, reads, publish } = site();
    publish('first');
    const first = await loadTreeForIsolate(source, 'assets', 0);
    expect(first.serverInfo.name).toBe('first');
    expect(await loadTreeForIsolate(source, 'assets', MANIFEST_RECHECK_MS - 1)).toBe(first);
    expect(reads).toEqual(['mcp.json']);

    expect(await loadTreeForIsolate(source, 'assets', MANIFEST_RECHECK_MS)).toBe(first);
    expect(reads.at(-1)).toBe('mcp.json if-none-match "first"');

    publish('second');
    const second = await loadTreeForIsolate(source, 'assets', 2 * MANIFEST_RECHECK_MS);
    expect(second.serverInfo.name).toBe('second');
  });

  it('keeps one copy per site, and never caches a failure', async () => {
    const { source, publish } = site();
    publish('one');
    await loadTreeForIsolate(source, 'https://a.example', 0);
    const broken: TreeSource & PackFileSource = { ...source, read: async () => ({ status: 'missing' }) };
    await expect(loadTreeForIsolate(broken, 'https://b.example', 1)).rejects.toThrow(/has no mcp\.json/);
    expect((await loadTreeForIsolate(source, 'https://b.example', 2)).serverInfo.name).toBe('one');
  });
});
