// What the resource store keeps after the assembly let go of its listing (file-resource-store.ts
// releaseAssembled): an edit build's deferred resource files still read each document's source
// (path, MIME type, identity, text or not), while a title or description asked for then is an
// error, never a wrong or missing value in the tree. A store made with room for a number of
// documents holds more or fewer just as right.
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

describe('a resource store told how many documents to expect', () => {
  it('holds every document right whether the count was too small or too large', () => {
    for (const [expected, count] of [
      [300, 1_000],
      [5_000, 10],
    ] as const) {
      const store = new FileResourceStore('/project/resources', '/project', expected);
      const digest = (index: number) => new Uint8Array(32).fill(index % 256);
      const resources = Array.from({ length: count }, (_, index) =>
        store.add({
          relativePath: `part/doc-${index}.md`,
          mimeType: index % 3 === 0 ? 'text/plain' : 'text/markdown',
          text: index % 5 !== 0,
          stats: { ino: BigInt(10 + index), size: BigInt(100 + index), mtimeNs: BigInt(index) },
          sha256: digest(index),
          title: `Title ${index}`,
          description: `Document ${index}.`,
        }),
      );
      const wrong = resources.filter((resource, index) => {
        const { source } = resource.content;
        return (
          resource.title !== `Title ${index}` ||
          resource.description !== `Document ${index}.` ||
          resource.mimeType !== (index % 3 === 0 ? 'text/plain' : 'text/markdown') ||
          source.text !== (index % 5 !== 0) ||
          source.stats.ino !== BigInt(10 + index) ||
          source.stats.size !== BigInt(100 + index) ||
          source.stats.mtimeNs !== BigInt(index) ||
          !Buffer.from(source.sha256 ?? []).equals(digest(index))
        );
      });
      expect(wrong).toEqual([]);
    }
  });
});
