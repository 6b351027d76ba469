// A one-document edit of a content project whose resources are packed (issue #39, "Edits in a
// second"): the rebuilt tree is byte for byte the one a from-scratch build of the same input
// writes, and the files the edit does not touch stay the same files (same inodes): the other
// resource packs, and the index packs that hold none of the edited document's words and titles;
// then a page added and another removed in one rebuild give the from-scratch tree too, and so do
// an edit that keeps a page's size (with the from-scratch build's file count), an edit of a sidecar alone and a page claim that moves to a document whose bytes did not change,
// and an edit after a raw-name copy was deleted from the tree by hand.
// With every cache of the project damaged (the document cache, the pack record, the kept index
// shares, the kept resource files, the tree state and llms-full.txt entries), an edit still rebuilds that same tree; a kept resource file
// record that passes its checksum but names other bytes (or a tree state that gives a page another's
// key) fails the build, never a wrong tree; an
// edit build killed in its index stage leaves the previous tree, and the next build is the
// from-scratch one. Builds run in-process (test/helpers/in-process-build.ts), the killed one as the CLI.
// The project is built once and each test edits a copy (its timestamps kept, so the copy's first
// build reuses what the original's wrote); the from-scratch tree of one input is built once.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, promises as fs, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_FILES_IN_MARGIN_VARIABLE } from '../../src/builder/host-limits.js';
import { SCRATCH_MARK } from '../../src/tree-writer/swap-folders.js';
import { readTree } from '../helpers/files.js';
import { CLI } from '../helpers/paths.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

// Two files a resource: 120 files, past the 40 a tree keeps plain whatever its budget (a fixed
// margin of 500, not a setting: its test hook sets 40 for this file), so every document past the
// 20 mcp.json lists inline (limits.resourcesInManifest) is packed.
const DOCUMENTS = 60;
const RESOURCE_FILES_IN_MARGIN = '40';
const RESOURCES_IN_MANIFEST = 20;
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma'.split(
  ' ',
);

/** A project of DOCUMENTS Markdown pages whose resource files pass the file budget (packed). */
async function contentProject(root: string): Promise<void> {
  await fs.mkdir(path.join(root, 'resources'), { recursive: true });
  for (let number = 0; number < DOCUMENTS; number += 1) {
    const words = Array.from({ length: 30 }, (_, at) => `${WORDS[(number * 7 + at * at) % WORDS.length]}${at % 5}`);
    await fs.writeFile(
      path.join(root, 'resources', `page-${number}.md`),
      `---\ntitle: Page ${number}\n---\n\n# Page ${number}\n\n${words.join(' ')} word${number}.\n`,
    );
  }
  await fs.writeFile(
    path.join(root, 'staticmcp.json'),
    JSON.stringify({ limits: { maxCallFiles: 10, resourcesInManifest: RESOURCES_IN_MANIFEST } }),
  );
}

async function build(project: string, outDir: string, force = false) {
  const result = await buildInProcess(project, { outDir, ...(force ? { force } : {}) });
  expect(result.code, result.error?.message).toBe(0);
  return result.report;
}

function inodes(tree: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const name of readdirSync(tree, { recursive: true, encoding: 'utf8' })) {
    const stats = statSync(path.join(tree, name));
    if (stats.isFile()) found.set(name, stats.ino);
  }
  return found;
}

/** From-scratch trees by a digest of their input: two tests that make the same edit share one build. */
const freshTrees = new Map<string, Promise<Map<string, Buffer>>>();
/** The from-scratch builds' reports, by the same digest. */
const freshReports = new Map<string, Awaited<ReturnType<typeof build>>>();

/** A digest of what a build of `project` reads: its resources and staticmcp.json. */
async function digestInput(project: string): Promise<string> {
  const hash = createHash('sha256');
  for (const [name, bytes] of await readTree(path.join(project, 'resources'))) hash.update(`${name}\0`).update(bytes);
  return hash.update(await fs.readFile(path.join(project, 'staticmcp.json'))).digest('hex');
}

/** The tree a from-scratch build of `project`'s input writes, in a folder of the same name (the server's name). */
async function freshTreeOf(project: string): Promise<Map<string, Buffer>> {
  const digest = await digestInput(project);
  let tree = freshTrees.get(digest);
  if (!tree) {
    tree = (async () => {
      const copy = path.join(await temporaryFolder('staticmcp-content-fresh-'), path.basename(project));
      await fs.cp(path.join(project, 'resources'), path.join(copy, 'resources'), { recursive: true });
      await fs.copyFile(path.join(project, 'staticmcp.json'), path.join(copy, 'staticmcp.json'));
      freshReports.set(digest, await build(copy, path.join(copy, 'tree'), true));
      return readTree(path.join(copy, 'tree'));
    })();
    freshTrees.set(digest, tree);
  }
  return tree;
}

/** The project built once (its tree in tree/, its caches in .staticmcp/), copied by each test. */
let builtProject: string;

/** The hook's value before this file set it, put back after it (the killed CLI build inherits it). */
let marginBefore: string | undefined;

beforeAll(async () => {
  marginBefore = process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE];
  process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE] = RESOURCE_FILES_IN_MARGIN;
  builtProject = path.join(await temporaryFolder('staticmcp-content-built-'), 'docs');
  await contentProject(builtProject);
  await build(builtProject, path.join(builtProject, 'tree'));
}, 120_000);

afterAll(() => {
  if (marginBefore === undefined) delete process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE];
  else process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE] = marginBefore;
});

/** A copy of the built project, with the timestamps its caches recorded. */
async function copyBuiltProject(prefix: string): Promise<{ project: string; tree: string }> {
  const project = path.join(await temporaryFolder(prefix), 'docs');
  await fs.cp(builtProject, project, { recursive: true, preserveTimestamps: true });
  return { project, tree: path.join(project, 'tree') };
}

describe('a one-document edit of a packed content project', () => {
  // Four builds of the whole project, two from scratch: past the default 60 s on a loaded machine.
  it('rebuilds the tree a from-scratch build writes, keeping the files the edit does not touch', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-edit-');
    const resourcePacks = [...inodes(tree).keys()].filter((name) => name.startsWith('packs/resources'));
    expect(resourcePacks.length).toBeGreaterThan(1);
    const before = inodes(tree);

    // The edit the other tests make too: they share its from-scratch tree.
    await fs.appendFile(path.join(project, 'resources', 'page-42.md'), '\nAn edit: wombat.\n');
    const edited = await build(project, tree);
    expect(edited.documents).toMatchObject({ parsed: 1, reused: DOCUMENTS - 1 });

    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);

    const after = inodes(tree);
    const rewritten = [...after.keys()].filter((name) => before.get(name) !== after.get(name));
    const packs = (folder: string, names: Iterable<string>) =>
      [...names].filter((name) => name.startsWith(folder) && name.endsWith('.pack'));
    // One resource pack holds the page (past the resources mcp.json lists inline, which stay plain);
    // every other keeps its inode.
    expect(packs('packs/resources', rewritten), rewritten.join()).toHaveLength(1);
    // The index: its title block's pack (which holds its excerpt source, the page's fetch record
    // too: its text fits in it, so no document pack holds it), and the packs of its words only.
    expect(packs('packs/search.index/documents/', rewritten)).toHaveLength(0);
    expect(packs('packs/search.index/titles/', rewritten)).toHaveLength(1);
    expect(rewritten.length).toBeLessThan(after.size / 2);

    // One page added and another removed in one rebuild (renumbered documents: the index's
    // records are merged again, not patched): still the from-scratch tree.
    await fs.writeFile(
      path.join(project, 'resources', 'page-added.md'),
      '---\ntitle: Added\n---\n\nAn added page: numbat.\n',
    );
    await fs.rm(path.join(project, 'resources', 'page-7.md'));
    const changed = await build(project, tree);
    expect(changed.documents).toMatchObject({ parsed: 1, reused: DOCUMENTS - 1 });
    const [again, freshAgain] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...again.keys()].sort()).toEqual([...freshAgain.keys()].sort());
    for (const [name, bytes] of freshAgain) expect(again.get(name)?.equals(bytes), name).toBe(true);
    // The removed page is gone from llms-full.txt and the title packs, the added one is in both.
    const full = again.get('llms-full.txt')!.toString('utf8');
    expect(full).not.toContain('\n# Page 7\n');
    expect(full).toContain('\n# Added\n');
    const titles = [...again].filter(([name]) => name.startsWith('packs/search.index/titles/'));
    expect(titles.some(([, bytes]) => bytes.includes('"Page 7"'))).toBe(false);
    expect(titles.some(([, bytes]) => bytes.includes('"Added"'))).toBe(true);
  }, 120_000);

  it("takes an edit that keeps a page's size into its pack, and counts the files as a fresh build", async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-same-size-');
    // Same bytes long: the packed records' sizes are the previous build's, so their digest decides.
    const page = path.join(project, 'resources', 'page-33.md');
    await fs.writeFile(page, (await fs.readFile(page, 'utf8')).replace('word33', 'WORD33'));
    const edited = await build(project, tree);
    expect(edited.documents).toMatchObject({ parsed: 1, reused: DOCUMENTS - 1 });
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
    expect(rebuilt.get('llms-full.txt')?.includes('WORD33')).toBe(true);
    // The packed files are taken out of the tree's count as a from-scratch build takes them.
    const freshReport = freshReports.get(await digestInput(project))!;
    expect(edited.files).toBe(freshReport.files);
    expect(edited.warnings).toEqual(freshReport.warnings);
  }, 120_000);

  it('writes a raw-name copy deleted from the tree by hand again, from its own document', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-hand-');
    // An unchanged page listed inline (plain files): the copy at its raw name, which other bridges
    // read, is kept by its digest alone, and made from that page's source once the tree lacks it.
    const copy = path.join(tree, 'resources', 'page-1.md.json');
    const before = await fs.readFile(copy);
    await fs.rm(copy);
    await fs.appendFile(path.join(project, 'resources', 'page-42.md'), '\nAn edit: wombat.\n');
    const edited = await build(project, tree);
    expect(edited.documents).toMatchObject({ parsed: 1, reused: DOCUMENTS - 1 });
    expect((await fs.readFile(copy)).equals(before)).toBe(true);
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
  }, 120_000);

  it('takes an edit of a sidecar alone into the tree: no chunk of the listing or the packs is reused stale', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-sidecar-');
    // Past the entries mcp.json lists inline: the page's listing is in a list part, its file in a pack.
    await fs.writeFile(
      path.join(project, 'resources', 'page-50.md.meta.json'),
      JSON.stringify({ description: 'Overridden: a quokka page', title: 'Quokka' }),
    );
    const edited = await build(project, tree);
    // The page's bytes did not change: nothing is parsed, yet its listing and its file are new.
    expect(edited.documents).toMatchObject({ parsed: 0, reused: DOCUMENTS });
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
    const listing = [...rebuilt].filter(([name]) => name.startsWith('lists/') || name === 'mcp.json');
    expect(listing.some(([, bytes]) => bytes.includes('Overridden: a quokka page'))).toBe(true);
    // The new title reaches the title pack of its block, whose other entries are unchanged.
    const titlePacksHolding = (files: Map<string, Buffer>, text: string) =>
      [...files].filter(([name, bytes]) => name.startsWith('packs/search.index/titles/') && bytes.includes(text));
    expect(titlePacksHolding(rebuilt, '"Quokka"')).toHaveLength(1);
    // llms-full.txt, written from the kept entries of the other pages, has the page's new heading.
    expect(rebuilt.get('llms-full.txt')?.toString('utf8')).toContain('\n# Quokka\n');

    // The override taken back: the listing is the original's again, not the override's kept.
    await fs.rm(path.join(project, 'resources', 'page-50.md.meta.json'));
    await build(project, tree);
    const [back, freshBack] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    for (const [name, bytes] of freshBack) expect(back.get(name)?.equals(bytes), name).toBe(true);
    expect([...back.values()].some((bytes) => bytes.includes('Overridden: a quokka page'))).toBe(false);
    expect(titlePacksHolding(back, '"Quokka"')).toHaveLength(0);
    expect(back.get('llms-full.txt')?.toString('utf8')).not.toContain('# Quokka');
    expect(back.get('llms-full.txt')?.toString('utf8')).toContain('\n# Page 50\n');
  });

  it('takes a page claim that moves to an unchanged document into the tree: no listing or pack of it reused stale', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-claim-');
    const shared = 'https://example.com/shared-page';
    const page = (number: number, url?: string) =>
      `---\ntitle: Page ${number}\n${url ? `url: ${url}\n` : ''}---\n\n# Page ${number}\n\nclaimed word${number}.\n`;
    // page-15 claims the page first; page-58's entry is in a list part and its file in a pack.
    await fs.writeFile(path.join(project, 'resources', 'page-15.md'), page(15, shared));
    await fs.writeFile(path.join(project, 'resources', 'page-58.md'), page(58, shared));
    await build(project, tree);
    // A page's listing entry: inline in mcp.json or in a list part (page-58's: the first RESOURCES_IN_MANIFEST in name order are inline).
    const entryOf = (files: Map<string, Buffer>, uri: string) => {
      for (const [name, bytes] of files) {
        const list = name.startsWith('lists/')
          ? JSON.parse(bytes.toString('utf8')).resources
          : name === 'mcp.json'
            ? JSON.parse(bytes.toString('utf8')).capabilities.resources
            : [];
        const found = list.find((entry: { uri: string }) => entry.uri === uri);
        if (found !== undefined) return { ...found, inline: name === 'mcp.json' };
      }
      return undefined;
    };
    const before = await readTree(tree);
    expect(entryOf(before, 'resource://page-15.md')?._meta?.['staticmcp/url']).toBe(shared);
    expect(entryOf(before, 'resource://page-58.md')).toMatchObject({ inline: false });
    expect(entryOf(before, 'resource://page-58.md')?._meta?.['staticmcp/url']).toBeUndefined();

    // page-15 gives the page up: page-58, whose bytes did not change, now holds it.
    await fs.writeFile(path.join(project, 'resources', 'page-15.md'), page(15));
    const edited = await build(project, tree);
    expect(edited.documents).toMatchObject({ parsed: 1, reused: DOCUMENTS - 1 });
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
    expect(entryOf(rebuilt, 'resource://page-58.md')?._meta?.['staticmcp/url']).toBe(shared);
    expect(entryOf(rebuilt, 'resource://page-15.md')?._meta?.['staticmcp/url']).toBeUndefined();
  });

  it('rebuilds that same tree after an edit when every cache of the project is damaged', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-damaged-');
    const cache = path.join(project, '.staticmcp');
    // The pack record stays JSON but names another pack for each records digest.
    const record = JSON.parse(await fs.readFile(path.join(cache, 'packs.json'), 'utf8'));
    const packs = record.tools['resources.files'].files.filter(
      (file: { records?: string }) => file.records !== undefined,
    );
    expect(packs.length).toBeGreaterThan(0);
    const digests = [...packs.map((file: { records: string }) => file.records), 'f'.repeat(64)];
    packs.forEach((file: { records: string }, at: number) => {
      file.records = digests[(at + 1) % digests.length];
    });
    await fs.writeFile(path.join(cache, 'packs.json'), JSON.stringify(record));
    const documents = path.join(cache, 'cache', 'documents.bin');
    const documentBytes = await fs.readFile(documents);
    documentBytes[Math.floor(documentBytes.length / 2)]! ^= 0xff;
    await fs.writeFile(documents, documentBytes);
    const kept = path.join(cache, 'search-documents.bin');
    const keptBytes = await fs.readFile(kept);
    keptBytes[Math.floor(keptBytes.length / 2)]! ^= 0xff;
    await fs.writeFile(kept, keptBytes);
    const files = path.join(cache, 'resource-files.bin');
    const filesBytes = await fs.readFile(files);
    filesBytes[filesBytes.length - 7]! ^= 0xff;
    await fs.writeFile(files, filesBytes);
    const entries = path.join(cache, 'llms-full-entries.bin');
    const entriesBytes = await fs.readFile(entries);
    entriesBytes[Math.floor(entriesBytes.length / 2)]! ^= 0xff;
    await fs.writeFile(entries, entriesBytes);
    // The tree state's listing entries (its last bytes): one changed, its checksum not made again.
    const state = path.join(cache, 'tree-state.bin');
    const stateBytes = await fs.readFile(state);
    stateBytes[stateBytes.length - 9]! ^= 0x01;
    await fs.writeFile(state, stateBytes);
    // The content hash's record: one byte of its entries changed, its checksum not made again.
    const hashRecord = path.join(cache, 'content-hash.bin');
    const hashBytes = await fs.readFile(hashRecord);
    hashBytes[hashBytes.indexOf('resources/') + 'resources/'.length + 40]! ^= 0x01;
    await fs.writeFile(hashRecord, hashBytes);

    await fs.appendFile(path.join(project, 'resources', 'page-42.md'), '\nAn edit: wombat.\n');
    const edited = await build(project, tree);
    expect(edited.documents).toMatchObject({ parsed: DOCUMENTS });
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
  });

  it('builds again reading every document when the kept resource files name other bytes', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-kept-');
    // Two entries' digests and sizes swapped, the checksum made again: a record that reads well
    // and is wrong about two documents (the first ones written, listed inline: plain files).
    const file = path.join(project, '.staticmcp', 'resource-files.bin');
    const bytes = await fs.readFile(file);
    const entry = (at: number) => 44 + at * 52 + 16;
    const first = Buffer.from(bytes.subarray(entry(0), entry(0) + 36));
    bytes.copy(bytes, entry(0), entry(1), entry(1) + 36);
    first.copy(bytes, entry(1));
    createHash('sha256').update(bytes.subarray(44)).digest().copy(bytes, 12);
    await fs.writeFile(file, bytes);

    await fs.appendFile(path.join(project, 'resources', 'page-42.md'), '\nAn edit: wombat.\n');
    const built = await buildInProcess(project, { outDir: tree });
    expect(built.code).toBe(0);
    expect(built.report.warnings.map((warning) => warning.message).join('\n')).toMatch(
      /resource-files\.bin, tree-state\.bin\) do not match resources\/page-\d+\.md; the records were removed; this build read every document again/,
    );
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, content] of fresh) expect(rebuilt.get(name)?.equals(content), name).toBe(true);
  });

  it('builds again reading every document when the tree state gives a page the key of another', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-state-');
    // Two entries' kept-file keys swapped, the checksum made again: a tree state that reads well and
    // is wrong about two documents (listed in parts, their files packed). Layout: tree-state.ts.
    const file = path.join(project, '.staticmcp', 'tree-state.bin');
    const bytes = await fs.readFile(file);
    const body = 8 + 4;
    const fixed = body + 4 + bytes.readUInt32LE(body) + 12;
    const key = (at: number) => fixed + at * 60 + 44;
    const first = Buffer.from(bytes.subarray(key(0), key(0) + 16));
    bytes.copy(bytes, key(0), key(1), key(1) + 16);
    first.copy(bytes, key(1));
    bytes.writeUInt32LE(crc32(bytes.subarray(body)), 8);
    await fs.writeFile(file, bytes);

    await fs.appendFile(path.join(project, 'resources', 'page-42.md'), '\nAn edit: wombat.\n');
    const built = await buildInProcess(project, { outDir: tree });
    expect(built.code).toBe(0);
    expect(built.report.warnings.map((warning) => warning.message).join('\n')).toMatch(
      /tree-state\.bin\) do not match resources\/page-\d+\.md; the records were removed; this build read every document again/,
    );
    const [rebuilt, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, content] of fresh) expect(rebuilt.get(name)?.equals(content), name).toBe(true);
  });

  it('keeps the previous tree when an edit build is killed mid-way, and the next build is the fresh one', async () => {
    const { project, tree } = await copyBuiltProject('staticmcp-content-killed-');
    const before = await readTree(tree);

    await fs.appendFile(path.join(project, 'resources', 'page-42.md'), '\nAn edit: wombat.\n');
    const child = spawn(process.execPath, [CLI, 'build', project, '--out', tree, '--json'], { stdio: 'ignore' });
    const closed = once(child, 'close');
    // Killed once its search index stage has begun: the resource files and packs are written by then.
    const scratch = `${tree}${SCRATCH_MARK}${child.pid}`;
    let reached = false;
    while (!reached && child.exitCode === null && child.signalCode === null) {
      reached = existsSync(scratch);
      if (!reached) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    child.kill('SIGKILL');
    await closed;
    expect(reached, 'the build reached its index stage before it was killed').toBe(true);
    const after = await readTree(tree);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [name, bytes] of before) expect(after.get(name)?.equals(bytes), name).toBe(true);

    // What the killed build kept is true for the bytes it names (its document cache may already
    // hold the edited page's parse): the next build is the from-scratch tree.
    const rebuilt = await build(project, tree);
    expect(rebuilt.documents!.parsed).toBeLessThanOrEqual(1);
    expect(rebuilt.documents!.parsed + rebuilt.documents!.reused).toBe(DOCUMENTS);
    const [again, fresh] = await Promise.all([readTree(tree), freshTreeOf(project)]);
    expect([...again.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, bytes] of fresh) expect(again.get(name)?.equals(bytes), name).toBe(true);
    expect(readdirSync(project).filter((name) => name.includes(SCRATCH_MARK))).toEqual([]);
  });
});
