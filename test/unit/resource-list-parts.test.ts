// The resource list's part files (resource-list-parts.ts) hold each entry as the tree's JSON
// writer prints it (treeJsonFile: two-space indent), whatever the entry holds: text past ASCII,
// quotes and control characters, a nested `_meta`, an empty one, fields left undefined, numbers
// and booleans. A reader parses a part either way; its bytes name the part and enter the content
// hash, so a build that printed one entry otherwise would name and hash another tree.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { treeJsonFile } from '../../src/core/tree/canonical-json.js';
import { ResourceListWriter } from '../../src/builder/resource-list-parts.js';
import { TreeOutput } from '../../src/builder/tree-output.js';
import { TreeWriter } from '../../src/tree-writer/tree-writer.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const ENTRIES: Record<string, unknown>[] = [
  { uri: 'resource://a.md', name: 'a.md', description: '', mimeType: 'text/markdown', size: 12 },
  {
    uri: 'resource://dossier/é "quoted" \\ back\tslash.md',
    name: 'Ünïcødé 😀 line\nbreak',
    title: undefined,
    description: 'control \u0001 and \u2028 separator',
    mimeType: 'text/plain',
    size: 0,
    _meta: { 'staticmcp/url': 'https://example.com/a', nested: { list: [1, 'two', { three: true }], empty: {} } },
  },
  { uri: 'resource://b', name: 'b', _meta: {}, flag: false, nothing: null, gone: undefined },
  { uri: 'resource://c', tags: ['x', 'y'], emptyList: [], ratio: 0.5 },
  {},
];

describe('resource list parts', () => {
  it('print every entry as the tree writes JSON', async () => {
    const writer = await TreeWriter.open(path.join(await temporaryFolder('staticmcp-list-parts-'), 'dist'));
    const output = new TreeOutput(writer);
    const parts = new ResourceListWriter<Record<string, unknown>>(output, {
      resourcesInManifest: 1,
      resourcesPerListPart: 2,
    });
    for (const entry of ENTRIES) await parts.add(entry);
    const listed = await parts.finish();
    expect(listed.inline).toEqual([ENTRIES[0]]);
    expect(listed.resourceList?.parts.map((part) => part.count)).toEqual([2, 2]);
    const texts = listed.resourceList!.parts.map((part) => output.read(part.path).toString('utf8'));
    expect(texts).toEqual([
      treeJsonFile({ resources: ENTRIES.slice(1, 3) }),
      treeJsonFile({ resources: ENTRIES.slice(3, 5) }),
    ]);
    await writer.discard();
  });
});
