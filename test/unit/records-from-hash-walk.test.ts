// The packed tools' records digests taken during the content hash's walk
// (src/builder/records-from-hash-walk.ts): each must be the digest the pack step defines (its
// owners sorted as strings, each with its copies and its content's digest, pack-reuse.ts), since a
// build that walks and one that does not (its hash taken from the kept record) must find each
// other's packs; a tool whose owners' paths would sort otherwise as bytes than as strings (a
// character past U+FFFF) and a tool whose owners the walk did not all see are left to the pack step.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PackingPlan, ToolCallFiles } from '../../src/builder/pack-call-files.js';
import { ToolRecordsDigest } from '../../src/builder/pack-reuse.js';
import { RecordsFromHashWalk } from '../../src/builder/records-from-hash-walk.js';
import { TreeSlotList } from '../../src/builder/tree-slot-list.js';
import { ALL_FILES, hashSlotsBy } from '../../src/tree-writer/content-hash.js';
import { FileDigests } from '../../src/tree-writer/file-digests.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const GENERATOR = 'staticmcp test';
const TARGET = 256 * 1024;

const digestOf = (content: string) => createHash('sha256').update(content).digest();

/** A deterministic shuffle: calls finish out of their paths' order. */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  let seed = 7;
  for (let index = out.length - 1; index > 0; index--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const other = seed % (index + 1);
    [out[index], out[other]] = [out[other]!, out[index]!];
  }
  return out;
}

interface Tree {
  files: FileDigests;
  plan: PackingPlan;
  copies: Map<string, string[]>;
}

/**
 * A writer's files: `alpha` with 4,500 owners (digests past the ones held in memory), `beta` whose
 * owners have left-out-default copies, `gamma` with names that sort otherwise as UTF-8 bytes, and
 * files of no packed tool.
 */
async function writtenTree(): Promise<Tree> {
  const files = new FileDigests(path.join(await temporaryFolder(), 'digests'));
  const copies = new Map<string, string[]>();
  const alpha = Array.from({ length: 4500 }, (_, index) => `tools/alpha/k${index}.json`);
  const beta = Array.from({ length: 40 }, (_, index) => `tools/beta/x${index}.json`);
  const gamma = ['tools/gamma/a.json', 'tools/gamma/\u{1F600}.json', 'tools/gamma/\uFF58.json'];
  for (const owner of beta) copies.set(owner, [owner.replace('.json', '_b.json'), owner.replace('.json', '_a.json')]);
  const written = shuffled([...alpha, ...beta, ...gamma, ...[...copies.values()].flat()]);
  for (const filePath of ['index.html', 'tools/alpha.json', ...written, 'tools/alphabet/z.json'])
    files.set(filePath, digestOf(`body of ${filePath}`));
  const entry = (tool: string, owners: string[], copyNames: string[] = []): ToolCallFiles => {
    const list = new TreeSlotList(files);
    const copyList = new TreeSlotList(files);
    const [ownerSet, copySet] = [new Set(owners), new Set(copyNames)];
    for (const filePath of written) {
      if (ownerSet.has(filePath)) list.push(files.slotOf(filePath));
      if (copySet.has(filePath)) copyList.push(files.slotOf(filePath));
    }
    return { tool, owners: list, copies: copyList, recordBytes: 0, nameCount: 0 };
  };
  const plan: PackingPlan = {
    callFilesBefore: 0,
    callFilesAfter: 0,
    tools: [entry('alpha', alpha), entry('beta', beta, [...copies.values()].flat()), entry('gamma', gamma)],
    packedCopies: copies,
    targetPackBytes: TARGET,
  };
  return { files, plan, copies };
}

/** The pack step's definition: owners in string order, each with its copies and its body's digest. */
function definedRecords(tree: Tree, entry: ToolCallFiles): string {
  const owners = Array.from({ length: entry.owners.length }, (_, position) => entry.owners.at(position)).sort();
  const digest = new ToolRecordsDigest(GENERATOR, entry.tool, TARGET);
  for (const owner of owners) digest.add([owner, ...(tree.copies.get(owner) ?? [])], tree.files.get(owner)!);
  return digest.digest();
}

describe('the records digests taken in the content hash’s walk', () => {
  it('are the pack step’s own, with or without copies; a tool named past U+FFFF is left to the pack step', async () => {
    const tree = await writtenTree();
    const walk = new RecordsFromHashWalk(tree.files, tree.plan, GENERATOR);
    hashSlotsBy(tree.files.inHashOrder(), tree.files, [ALL_FILES], walk);
    walk.endWalk();
    const [alpha, beta, gamma] = tree.plan.tools as [ToolCallFiles, ToolCallFiles, ToolCallFiles];
    expect(walk.recordsOf(alpha, GENERATOR, TARGET)).toBe(definedRecords(tree, alpha));
    expect(walk.recordsOf(beta, GENERATOR, TARGET)).toBe(definedRecords(tree, beta));
    // As strings U+1F600 (a surrogate pair) sorts before U+FF58; as UTF-8 bytes after it.
    expect(walk.recordsOf(gamma, GENERATOR, TARGET)).toBeUndefined();
    tree.files.close();
  });

  it('are not given for another generator or pack size, nor where the walk did not see every owner', async () => {
    const tree = await writtenTree();
    const [alpha] = tree.plan.tools as [ToolCallFiles];
    // The hash taken from the kept record: no walk at all.
    const unwalked = new RecordsFromHashWalk(tree.files, tree.plan, GENERATOR);
    expect(unwalked.recordsOf(alpha, GENERATOR, TARGET)).toBeUndefined();
    const walk = new RecordsFromHashWalk(tree.files, tree.plan, GENERATOR);
    hashSlotsBy(tree.files.inHashOrder(), tree.files, [ALL_FILES], walk);
    expect(walk.recordsOf(alpha, 'staticmcp other', TARGET)).toBeUndefined();
    expect(walk.recordsOf(alpha, GENERATOR, TARGET * 2)).toBeUndefined();
    expect(walk.recordsOf(alpha, GENERATOR, TARGET)).toBe(definedRecords(tree, alpha));
    tree.files.close();
  });
});
