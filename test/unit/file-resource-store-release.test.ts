// What the resource store keeps after the assembly let go of its listing (file-resource-store.ts
// releaseAssembled): an edit build's deferred resource files still read each document's source
// (path, MIME type, identity, text or not), while a title or description asked for then is an
// error, never a wrong or missing value in the tree.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileResourceStore, releaseAssembled } from '../../src/project/file-resource-store.js';

describe('a resource store after the assembly', () => {
  it('keeps every source for deferred files, and refuses titles and descriptions', () => {
    const store = new FileResourceStore('/project/resources', '/project');
    const resources = Array.from({ length: 300 }, (_, index) =>
      store.add({
        relativePath: `part/doc-${index}.md`,
        mimeType: index % 2 === 0 ? 'text/markdown' : 'application/octet-stream',
        text: index % 2 === 0,
        stats: {
          ino: BigInt(10 + index),
          size: BigInt(100 + index),
          mtimeNs: 1_700_000_000_000_000_000n + BigInt(index),
        },
        sha256: 'ab'.repeat(32),
        title: `Title ${index}`,
        description: `The description of document ${index}.`,
      }),
    );
    expect(resources[7]!.title).toBe('Title 7');
    expect(resources[7]!.content.source.sha256).toBeDefined();
    releaseAssembled(resources);
    resources.forEach((resource, index) => {
      const { source } = resource.content;
      expect(source.file).toBe(path.join('/project/resources', `part/doc-${index}.md`));
      expect(source.text).toBe(index % 2 === 0);
      expect(source.stats).toEqual({
        ino: BigInt(10 + index),
        size: BigInt(100 + index),
        mtimeNs: 1_700_000_000_000_000_000n + BigInt(index),
      });
      expect(source.sha256).toBeUndefined();
      expect(resource.uri).toBe(`resource://part/doc-${index}.md`);
      expect(resource.mimeType).toBe(index % 2 === 0 ? 'text/markdown' : 'application/octet-stream');
    });
    expect(() => resources[7]!.title).toThrow(/after the assembly/);
    expect(() => resources[7]!.description).toThrow(/after the assembly/);
  });
});
