// The document lister over a resource list in parts (core/search/tree-documents.ts with
// core/tree/resource-list.ts): every resource of mcp.json's inline list and of each part the
// extension names is a document once, in list order; a repeated URI is listed once; a missing part
// is told and the parts after it are still listed.
import { describe, expect, it } from 'vitest';
import { listTreeDocuments } from '../../src/core/search/tree-documents.js';
import { resourceFilePaths } from '../../src/core/tree/resource-key.js';
import type { JsonObject } from '../../src/core/tree/json-object.js';

const entry = (n: number) => ({ uri: `resource://notes/n${n}.md`, name: `Note ${n}`, mimeType: 'text/markdown' });

describe('the document lister over a resource list in parts', () => {
  it('lists the inline entries, then each part in order, once each, telling a missing part', async () => {
    const parts = {
      'lists/resources/0.json': { resources: [entry(3), entry(4), entry(5)] },
      'lists/resources/2.json': { resources: [entry(8), entry(3)] },
    };
    const manifest: JsonObject = {
      capabilities: { resources: [entry(0), entry(1), entry(2)] },
      staticmcp: {
        tools: {},
        resourceList: {
          total: 10,
          parts: [
            { path: 'lists/resources/0.json', count: 3 },
            { path: 'lists/resources/1.json', count: 2 },
            { path: 'lists/resources/2.json', count: 2 },
          ],
        },
      },
    };
    const files = new Map<string, Uint8Array>();
    for (const [treePath, value] of Object.entries(parts)) files.set(treePath, Buffer.from(JSON.stringify(value)));
    for (let n = 0; n < 10; n += 1) {
      const { uri } = entry(n);
      files.set(
        resourceFilePaths(uri, true)[0]!,
        Buffer.from(JSON.stringify({ contents: [{ uri, text: `text ${n}` }] })),
      );
    }
    const skipped: string[] = [];
    const listed: string[] = [];
    const tree = {
      manifest,
      paths: () => files.keys(),
      has: (treePath: string) => files.has(treePath),
      read: async (treePath: string) => files.get(treePath),
    };
    for await (const document of listTreeDocuments(tree, { resources: true, tools: {} }, (treePath, reason) => {
      skipped.push(`${treePath}: ${reason}`);
    }))
      listed.push(`${document.title}: ${document.text}`);
    expect(listed).toEqual([0, 1, 2, 3, 4, 5, 8].map((n) => `Note ${n}: text ${n}`));
    expect(skipped).toEqual(['lists/resources/1.json: is missing: the resources it lists are left out']);
  });
});
