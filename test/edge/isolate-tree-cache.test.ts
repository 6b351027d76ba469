// The worker keeps one site object per manifest version between requests: served from the
// isolate's copy for a minute, then revalidated with its ETag, so a redeployed site is noticed
// without a fetch per request, and a redeploy of the same version keeps the object.
import { beforeEach, describe, expect, it } from 'vitest';
import type { ReadOutcome, TreeSource } from '../../src/core/tree/tree-source.js';
import type { PackFileSource } from '../../src/core/packs/pack-reader.js';
import type { LoadedTree } from '../../src/core/tree-reading/loaded-tree.js';
import { forgetIsolateTree, loadSiteForIsolate, MANIFEST_RECHECK_MS } from '../../src/hosts/edge/isolate-tree-cache.js';

/** A site whose mcp.json can be replaced, answering If-None-Match like a static host. */
function site(): {
  source: TreeSource & PackFileSource;
  reads: string[];
  publish(name: string, etagSuffix?: string): void;
} {
  let manifest = '';
  let etag = '';
  const reads: string[] = [];
  const publish = (name: string, etagSuffix = ''): void => {
    manifest = JSON.stringify({
      protocolVersion: '2025-06-18',
      serverInfo: { name, version: '1' },
      capabilities: { tools: [], resources: [] },
    });
    etag = `"${name}${etagSuffix}"`;
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

/** The tree of `source`'s site object, as the worker would get it (a site object that is just its tree). */
async function loadTreeForIsolate(
  source: TreeSource & PackFileSource,
  siteKey: string,
  nowMs: number,
): Promise<LoadedTree> {
  return (
    await loadSiteForIsolate(
      () => source,
      siteKey,
      (tree) => ({ tree }),
      nowMs,
    )
  ).tree;
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

    // The same manifest under a new ETag (a redeploy of the same build): read, and the same object kept.
    publish('second', '-redeployed');
    expect(await loadTreeForIsolate(source, 'assets', 3 * MANIFEST_RECHECK_MS)).toBe(second);
    expect(reads.at(-1)).toBe('mcp.json if-none-match "second"');
    expect(await loadTreeForIsolate(source, 'assets', 4 * MANIFEST_RECHECK_MS)).toBe(second);
    expect(reads.at(-1)).toBe('mcp.json if-none-match "second-redeployed"');
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
