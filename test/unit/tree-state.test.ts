// The tree-state record an edit build lists unchanged documents from (tree-state.ts): a document
// recorded by one build is found by the next with the same kept-file key and the same listing
// entry bytes, whether the record was written whole (a first build) or from kept runs of the
// previous record and new entries between them (an edit). New entries wait in a scratch file
// until the record is written (tree-state-scratch.ts): entries longer than its window and many
// entries of every size come back byte for byte, and memory does not hold them meanwhile.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeState } from '../../src/builder/tree-state.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const GENERATOR = 'staticmcp-test';
const CONFIG = { search: { resources: true } };

function sha(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A document's listing entry: some of them past the scratch file's 64 KiB window. */
function entryOf(index: number, version: number): string {
  const length = index % 97 === 5 ? 70_000 + index : 40 + ((index * 37) % 900);
  return `{"uri": "resource://doc-${index}.md", "v": ${version}, "d": "${'é'.repeat(length % 5)}${'x'.repeat(length)}"}`;
}

/** A document's source digest and kept-file key, `version` of them. */
function sourceOf(index: number, version: number): Buffer {
  return sha(`source ${index} ${version}`);
}
function keyOf(index: number, version: number): Buffer {
  return sha(`key ${index} ${version}`);
}

function treePathOf(index: number): string {
  return `resources/doc-${String(index).padStart(5, '0')}.md.json`;
}

/** Records documents [0, count) as a first build does; some are then found by the next build. */
async function firstBuild(project: string, count: number): Promise<void> {
  const state = await TreeState.open(project, GENERATOR, CONFIG, true);
  for (let index = 0; index < count; index++) {
    expect(state.find(treePathOf(index), 'text/markdown', true, sourceOf(index, 1))).toBe(-1);
    const entry = state.record(
      treePathOf(index),
      'text/markdown',
      true,
      sourceOf(index, 1),
      keyOf(index, 1),
      entryOf(index, 1),
    );
    expect(entry.toString('utf8')).toBe(entryOf(index, 1));
  }
  state.save();
}

/** Checks each document is found with its key and entry, `version` of it (by `versionOf`). */
async function expectFound(project: string, count: number, versionOf: (index: number) => number): Promise<void> {
  const state = await TreeState.open(project, GENERATOR, CONFIG, true);
  for (let index = 0; index < count; index++) {
    const version = versionOf(index);
    const found = state.find(treePathOf(index), 'text/markdown', true, sourceOf(index, version));
    expect(found, `document ${index}`).toBeGreaterThanOrEqual(0);
    expect(state.keyAt(found).equals(keyOf(index, version).subarray(0, 16))).toBe(true);
    expect(state.entryAt(found).toString('utf8')).toBe(entryOf(index, version));
  }
}

describe('the tree-state record', () => {
  it('finds every document a first build recorded, entries past the scratch window included', async () => {
    const project = await temporaryFolder();
    await firstBuild(project, 1_500);
    // The scratch file is gone once the record is written.
    expect(readdirSync(path.join(project, '.staticmcp'))).toEqual(['tree-state.bin']);
    await expectFound(project, 1_500, () => 1);
  });

  it('finds kept and new entries alike after an edit build between kept runs', async () => {
    const project = await temporaryFolder();
    await firstBuild(project, 800);
    const edited = (index: number) => index % 50 === 7 || index === 799;
    const state = await TreeState.open(project, GENERATOR, CONFIG, true);
    for (let index = 0; index < 800; index++) {
      if (!edited(index)) {
        const found = state.find(treePathOf(index), 'text/markdown', true, sourceOf(index, 1));
        expect(found).toBeGreaterThanOrEqual(0);
        state.keep(found);
        continue;
      }
      expect(state.find(treePathOf(index), 'text/markdown', true, sourceOf(index, 2))).toBe(-1);
      state.record(treePathOf(index), 'text/markdown', true, sourceOf(index, 2), keyOf(index, 2), entryOf(index, 2));
    }
    state.save();
    await expectFound(project, 800, (index) => (edited(index) ? 2 : 1));
  });

  it('does not hold a first build of many documents in memory until it is written', async () => {
    const project = await temporaryFolder();
    const count = 40_000;
    const entry = `{"uri": "resource://doc.md", "description": "${'d'.repeat(1_000)}"}`;
    const state = await TreeState.open(project, GENERATOR, CONFIG, true);
    const key = sha('key');
    const before = process.memoryUsage().rss;
    for (let index = 0; index < count; index++) state.record(treePathOf(index), 'text/markdown', true, key, key, entry);
    // ~40 MB of entries recorded: held, they were all in RSS here.
    const grownBytes = process.memoryUsage().rss - before;
    state.save();
    expect(grownBytes).toBeLessThan(12 * 1024 * 1024);
  });
});
