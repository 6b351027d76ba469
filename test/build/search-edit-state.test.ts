// The search edit state (tree-writer/search-edit-state.ts, issue #39 "Edits in a second"): a
// content project's edit build writes .staticmcp/search-edit-state.bin and its scratch files, and
// the next edit build takes every unchanged document from them (its kept entry and its
// llms-full.txt entry named as they are, its columns and scratch bytes copied in runs; an
// unchanged run of list entries' documents listed as a run). Each rebuild is byte for byte the tree a from-scratch
// build of the same input writes: one edit, then another, then a page added and one removed. A
// state that is corrupt, truncated, deleted, another project's, or whose scratch files or kept
// parts (the documents' or llms-full.txt's) were rewritten, and an output tree edited by hand,
// still give that tree.
// Builds run in-process (test/helpers/in-process-build.ts); each case builds its own project (a
// copy would have other inodes, which the state checks, so it would never be used), but for the
// damages, which take turns on one project.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTree } from '../helpers/files.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const DOCUMENTS = 40;
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma'.split(
  ' ',
);
const STATE = path.join('.staticmcp', 'search-edit-state.bin');
const SPILLS = path.join('.staticmcp', 'search-edit-state.spills');

async function contentProject(root: string): Promise<void> {
  await fs.mkdir(path.join(root, 'resources', 'guide'), { recursive: true });
  for (let number = 0; number < DOCUMENTS; number += 1) {
    const words = Array.from({ length: 40 }, (_, at) => `${WORDS[(number * 5 + at * at) % WORDS.length]}${at % 7}`);
    // Every fourth page long enough that its body is stored apart from its excerpt source.
    const long = number % 4 === 0 ? `\n\n${words.join(' ').repeat(30)}` : '';
    await fs.writeFile(
      path.join(root, 'resources', number % 3 === 0 ? 'guide' : '', `page-${number}.md`),
      `---\ntitle: Page ${number}\n---\n\n# Page ${number}\n\n${words.join(' ')} word${number}.${long}\n`,
    );
  }
  // List parts of 8: the lister takes an unchanged part's documents as a run (search-list-runs.ts).
  await fs.writeFile(
    path.join(root, 'staticmcp.json'),
    JSON.stringify({ limits: { resourcesInManifest: 10, resourcesPerListPart: 8 } }),
  );
}

async function build(project: string, force = false) {
  const result = await buildInProcess(project, { outDir: path.join(project, 'tree'), ...(force ? { force } : {}) });
  expect(result.code, result.error?.message).toBe(0);
  return result.report;
}

/** A new project (in a folder named `docs`: the server's name), built, edited and built again: its state written. */
async function projectWithState(prefix: string): Promise<string> {
  const project = path.join(await temporaryFolder(prefix), 'docs');
  await contentProject(project);
  await build(project);
  await edit(project, 5, 'first');
  await build(project);
  await fs.access(path.join(project, STATE));
  return project;
}

async function edit(project: string, number: number, word: string): Promise<void> {
  const folder = number % 3 === 0 ? 'guide' : '';
  await fs.appendFile(path.join(project, 'resources', folder, `page-${number}.md`), `\nAn edit: ${word}.\n`);
}

const freshTrees = new Map<string, Promise<Map<string, Buffer>>>();

/** The tree a from-scratch build of `project`'s input writes (once per input). */
async function freshTreeOf(project: string): Promise<Map<string, Buffer>> {
  const hash = createHash('sha256');
  for (const [name, bytes] of await readTree(path.join(project, 'resources'))) hash.update(`${name}\0`).update(bytes);
  const digest = hash.digest('hex');
  let tree = freshTrees.get(digest);
  if (!tree) {
    tree = (async () => {
      const copy = path.join(await temporaryFolder('staticmcp-edit-state-fresh-'), 'docs');
      await fs.cp(path.join(project, 'resources'), path.join(copy, 'resources'), { recursive: true });
      await fs.copyFile(path.join(project, 'staticmcp.json'), path.join(copy, 'staticmcp.json'));
      await build(copy, true);
      return readTree(path.join(copy, 'tree'));
    })();
    freshTrees.set(digest, tree);
  }
  return tree;
}

async function expectFreshTree(project: string): Promise<void> {
  const [rebuilt, fresh] = await Promise.all([readTree(path.join(project, 'tree')), freshTreeOf(project)]);
  expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
  for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
}

/** Flips a byte in the middle of the first part in `.staticmcp/<folder>`. */
async function rewriteFirstPart(project: string, folder: string): Promise<void> {
  const parts = path.join(project, '.staticmcp', folder);
  const [name] = readdirSync(parts).sort();
  const file = path.join(parts, name!);
  const bytes = await fs.readFile(file);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  await fs.writeFile(file, bytes);
}

describe('the search edit state', () => {
  it("removes a killed build's unfinished state, never a running build's", async () => {
    const project = await projectWithState('staticmcp-edit-state-dead-');
    // A process that has ended, and one still running (the test runner's parent).
    const deadPid = spawnSync('true').pid;
    const dead = path.join(project, `${STATE}.new-${deadPid}`);
    const running = path.join(project, `${STATE}.new-${process.ppid}`);
    for (const file of [dead, running]) await fs.writeFile(file, 'half a state');
    await edit(project, 12, 'swept');
    await build(project);
    await expectFreshTree(project);
    await expect(fs.access(dead)).rejects.toThrow();
    expect(await fs.readFile(running, 'utf8')).toBe('half a state');
  });

  it('rebuilds the from-scratch tree edit after edit, and after a page added and one removed', async () => {
    const project = await projectWithState('staticmcp-edit-state-');
    const spillsBefore = readdirSync(path.join(project, SPILLS));
    expect(spillsBefore).toHaveLength(3);
    await edit(project, 12, 'second');
    const edited = await build(project);
    expect(edited.documents).toMatchObject({ parsed: 1, reused: DOCUMENTS - 1 });
    await expectFreshTree(project);
    // The state of this build replaced the previous one's: its scratch files only.
    const spillsAfter = readdirSync(path.join(project, SPILLS));
    expect(spillsAfter).toHaveLength(3);
    expect(spillsAfter.some((name) => spillsBefore.includes(name))).toBe(false);

    await fs.writeFile(path.join(project, 'resources', 'page-added.md'), '---\ntitle: Added\n---\n\nNumbat.\n');
    await fs.rm(path.join(project, 'resources', 'page-7.md'));
    await edit(project, 30, 'third');
    await build(project);
    await expectFreshTree(project);
    const full = (await fs.readFile(path.join(project, 'tree', 'llms-full.txt'), 'utf8')).toString();
    expect(full).not.toContain('\n# Page 7\n');
    expect(full).toContain('\n# Added\n');
  }, 120_000);

  it('rebuilds the from-scratch tree after a rename that moves a page in id order, as many pages as before', async () => {
    // The state's id order no longer sorts the ids: the build must not number by it.
    const project = await projectWithState('staticmcp-edit-state-renamed-');
    await fs.rename(path.join(project, 'resources', 'page-1.md'), path.join(project, 'resources', 'page-zz.md'));
    await edit(project, 12, 'second');
    await build(project);
    await expectFreshTree(project);
    // And the state of that build orders the next one's ids.
    await edit(project, 13, 'third');
    await build(project);
    await expectFreshTree(project);
  }, 120_000);

  it('answers with the new text after an edit of the same size, whose list part keeps its bytes', async () => {
    // The page's list entry (title, description, size) is as it was: only its file's digest
    // tells the edit, made to the last word of its long text (not its summary), in the first part.
    const project = await projectWithState('staticmcp-edit-state-same-size-');
    const page = path.join(project, 'resources', 'guide', 'page-36.md');
    const before = await fs.readFile(page, 'utf8');
    const lastWord = before.lastIndexOf(' ') + 1;
    const marker = 'Z'.repeat(before.length - 1 - lastWord);
    const after = `${before.slice(0, lastWord)}${marker}\n`;
    expect(Buffer.byteLength(after)).toBe(Buffer.byteLength(before));
    await fs.writeFile(page, after);
    const parts = async () => readdirSync(path.join(project, 'tree', 'lists', 'resources')).sort();
    const partsBefore = await parts();
    await build(project);
    expect(await parts()).toEqual(partsBefore);
    await expectFreshTree(project);
    const full = await fs.readFile(path.join(project, 'tree', 'llms-full.txt'), 'utf8');
    expect(full).toContain(` ${marker}\n`);
  }, 120_000);

  it('rebuilds the from-scratch tree when one list part holds many runs of entries', async () => {
    // Runs are cut within a part (core/search/resource-documents.ts): an edit, a rename (entries
    // whose files keep their digests), a page added and one removed, each in the middle of the part.
    const project = path.join(await temporaryFolder('staticmcp-edit-state-runs-'), 'docs');
    await fs.mkdir(path.join(project, 'resources'), { recursive: true });
    const page = (number: number) => path.join(project, 'resources', `note-${number}.md`);
    for (let number = 0; number < 250; number += 1)
      await fs.writeFile(page(number), `# Note ${number}\n\n${WORDS[number % WORDS.length]} word${number}.\n`);
    await fs.writeFile(
      path.join(project, 'staticmcp.json'),
      JSON.stringify({ limits: { resourcesInManifest: 10, resourcesPerListPart: 1000 } }),
    );
    await build(project);
    const steps: (() => Promise<void>)[] = [
      () => fs.appendFile(page(120), '\nAn edit.\n'),
      () => fs.rename(page(150), path.join(project, 'resources', 'note-150-renamed.md')),
      async () => {
        await fs.writeFile(path.join(project, 'resources', 'note-1300.md'), '# Added\n\nNumbat.\n');
        await fs.rm(page(200));
      },
    ];
    for (const step of steps) {
      await step();
      await build(project);
      await expectFreshTree(project);
    }
  }, 120_000);

  /**
   * The damage cases share one project, each damaging the state the case before it left: every
   * build of the project is an edit build, which writes a new state. Page 12 takes one of two
   * edits in turn, so each build has an edit and the fresh trees are two.
   */
  let damagedProject: Promise<string> | undefined;
  let damagePage = '';
  let damagePageText = '';
  let damageEdits = 0;
  function damagedProjectOnce(): Promise<string> {
    damagedProject ??= (async () => {
      const project = await projectWithState('staticmcp-edit-state-damaged-');
      damagePage = path.join(project, 'resources', 'guide', 'page-12.md');
      damagePageText = await fs.readFile(damagePage, 'utf8');
      return project;
    })();
    return damagedProject;
  }

  const damages: [string, (project: string) => Promise<void>][] = [
    [
      'a corrupt state',
      async (project) => {
        const bytes = await fs.readFile(path.join(project, STATE));
        bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
        await fs.writeFile(path.join(project, STATE), bytes);
      },
    ],
    ['a truncated state', (project) => fs.truncate(path.join(project, STATE), 200)],
    ['a deleted state', (project) => fs.rm(path.join(project, STATE))],
    [
      "another project's state",
      async (project) => {
        const other = await projectWithState('staticmcp-edit-state-other-');
        await fs.copyFile(path.join(other, STATE), path.join(project, STATE));
      },
    ],
    [
      'a scratch file rewritten with other bytes of its size',
      async (project) => {
        const folder = path.join(project, SPILLS);
        for (const name of readdirSync(folder)) {
          const file = path.join(folder, name);
          const bytes = await fs.readFile(file);
          await fs.writeFile(file, Buffer.alloc(bytes.length, 0x41));
        }
      },
    ],
    ['the scratch files deleted', (project) => fs.rm(path.join(project, SPILLS), { recursive: true })],
    ['a kept documents part rewritten', (project) => rewriteFirstPart(project, 'search-documents.bin.parts')],
    ["an llms-full.txt entries' part rewritten", (project) => rewriteFirstPart(project, 'llms-full-entries.bin.parts')],
    [
      'the output tree edited by hand',
      async (project) => {
        const tree = path.join(project, 'tree');
        await fs.writeFile(path.join(tree, 'llms-full.txt'), 'edited by hand\n');
        const titles = path.join(tree, 'packs', 'search.index', 'titles');
        for (const name of readdirSync(titles, { recursive: true, encoding: 'utf8' }))
          if (name.endsWith('.pack')) await fs.writeFile(path.join(titles, name), 'edited by hand\n');
      },
    ],
  ];
  it.each(damages)(
    'rebuilds the from-scratch tree after an edit with %s',
    async (_, damage) => {
      const project = await damagedProjectOnce();
      // The previous case's build (an edit build) wrote the state this case damages.
      await fs.access(path.join(project, STATE));
      await damage(project);
      damageEdits += 1;
      await fs.writeFile(damagePage, `${damagePageText}\nAn edit: ${damageEdits % 2 === 1 ? 'second' : 'third'}.\n`);
      await build(project);
      await expectFreshTree(project);
    },
    120_000,
  );
});
