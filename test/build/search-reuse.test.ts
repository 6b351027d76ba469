// The search index is not written again when its documents did not change (issue #25), with the
// build command on a copy of the built fixtures/example (its build cache answers every call), whose
// no-op replay record is removed before each build (so every rebuild runs the search step, as it
// does after any edit; up-to-date.test.ts tests the replay): a repeated build links the
// previous index files (same inodes) and says `searchIndex: "reused"`, an edit elsewhere (a prompt)
// still reuses them, a resource edit writes the index again (the new word is found, the old one
// not), and an index file swapped for a copy of itself, or an edited record, means a rebuild.
// Whatever the path, the index is byte for byte the one a build into an empty folder writes (as
// `--force` does; `--force` itself, which reruns every script, is shown on a project of one text
// resource). The resource edit goes on from the first test's copy, and the two damage tests share
// one copy, each leaving it rebuilt. Every other damage and
// edit of the record is decided by the same function, tested in-process
// (test/unit/search-index-reuse.test.ts); here one of each shows what a user sees. Builds run
// in-process through the build command's decision (test/helpers/in-process-build.ts), searches
// in a session as serve opens it (test/helpers/in-process-session.ts).
import { promises as fs, readdirSync, readFileSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInProcess } from '../helpers/in-process-build.js';
import { copyBuiltExample } from '../helpers/example.js';
import { openTreeSession } from '../helpers/in-process-session.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const INDEX_FOLDER = 'packs/search.index';
const RECORD = '.staticmcp/search-index.json';
const KEPT = '.staticmcp/search-documents.bin';
const UP_TO_DATE_RECORD = '.staticmcp/up-to-date.json';

/** A copy of the built example: its cache answers the calls, and its index record names another
 * folder, so the copy's first build writes the index. */
function exampleProject(): string {
  return copyBuiltExample();
}

/** Builds with --json; fails the test with stderr when the build does not succeed. */
async function build(project: string, ...extra: string[]) {
  await fs.rm(path.join(project, UP_TO_DATE_RECORD), { force: true });
  const outIndex = extra.indexOf('--out');
  const result = await buildInProcess(project, {
    ...(outIndex >= 0 ? { outDir: extra[outIndex + 1] } : {}),
    ...(extra.includes('--force') ? { force: true } : {}),
  });
  expect(result.code, result.error?.message).toBe(0);
  expect(result.report.ok, JSON.stringify(result.report.failures)).toBe(true);
  return result.report;
}

/** The index's files → inode. */
function indexInodes(tree: string): Map<string, number> {
  const inodes = new Map<string, number>();
  for (const file of readdirSync(path.join(tree, INDEX_FOLDER), { recursive: true, encoding: 'utf8' })) {
    const stats = statSync(path.join(tree, INDEX_FOLDER, file));
    if (stats.isFile()) inodes.set(file, stats.ino);
  }
  return inodes;
}

/** What a reader sees of the index: mcp.json and every file below packs/search.index/, as bytes. */
function indexBytes(tree: string): Map<string, string> {
  const files = new Map<string, string>([['mcp.json', readFileSync(path.join(tree, 'mcp.json'), 'utf8')]]);
  for (const file of readdirSync(path.join(tree, INDEX_FOLDER), { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(tree, INDEX_FOLDER, file);
    if (statSync(full).isFile()) files.set(`${INDEX_FOLDER}/${file}`, readFileSync(full).toString('base64'));
  }
  return files;
}

/** The same project built into an empty folder of its own: no previous index to reuse. */
async function forcedIndex(project: string): Promise<Map<string, string>> {
  const out = path.join(await temporaryFolder('staticmcp-search-forced-'), 'tree');
  await build(project, '--out', out);
  return indexBytes(out);
}

/** The ids the tree's search tool answers for `query`, in a session as `serve` opens it (in-process). */
async function searchIds(tree: string, query: string): Promise<string[]> {
  const session = await openTreeSession(tree);
  try {
    const found = await session.callTool('search', { query });
    expect(found.isError, JSON.stringify(found)).toBeFalsy();
    return (found.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id);
  } finally {
    await session.close();
  }
}

/** The first test's copy of the example, built and with a prompt edited: the second test goes on from it. */
let linkedProject: string | undefined;

/**
 * A copy of the built example after its first build, which writes the index as into an empty
 * folder, and those index bytes. The two damage tests share it: each leaves the tree it damaged
 * rebuilt to those bytes (as it asserts), and the project's input as it was.
 */
let freshCopyOnce: Promise<{ project: string; tree: string; fresh: Map<string, string> }> | undefined;
function freshCopy() {
  freshCopyOnce ??= (async () => {
    const project = exampleProject();
    const tree = (await build(project)).outDir;
    return { project, tree, fresh: indexBytes(tree) };
  })();
  return freshCopyOnce;
}

/** The id of a process that has exited (a killed build's). */
async function exitedProcessId(): Promise<number> {
  const child = spawn('true');
  await once(child, 'exit');
  return child.pid!;
}

describe('search index reuse', () => {
  it('links the previous index on a repeated build, and after an edit that leaves the documents as they were', async () => {
    const project = exampleProject();
    linkedProject = project;
    const first = await build(project);
    expect(first.searchIndex).toBe('written');
    const tree = first.outDir;
    const inodes = indexInodes(tree);
    expect(inodes.size).toBeGreaterThan(0);

    const again = await build(project);
    expect(again.unchanged).toBe(true);
    expect(again.searchIndex).toBe('reused');
    expect(indexInodes(tree)).toEqual(inodes);

    // A prompt is no document: the tree changes, its index files stay the same files.
    await fs.appendFile(path.join(project, 'prompts/explain-product.md'), '\nKeep it short.\n');
    const edited = await build(project);
    expect(edited.unchanged).toBe(false);
    expect(edited.searchIndex).toBe('reused');
    expect(indexInodes(tree)).toEqual(inodes);
    expect(indexBytes(tree)).toEqual(await forcedIndex(project));
    expect(await searchIds(tree, 'precomputes')).toEqual(['resources/guide_md.json']);
  });

  it('writes the index again when a resource text changes: the new word is found, the old one is not', async () => {
    // The previous test's copy (its index as --force writes it, as that test asserts), else a new one.
    const project = linkedProject ?? exampleProject();
    const tree = (await build(project)).outDir;
    expect(await searchIds(tree, 'precomputes')).toEqual(['resources/guide_md.json']);
    const guide = path.join(project, 'resources/guide.md');
    await fs.writeFile(guide, (await fs.readFile(guide, 'utf8')).replace('precomputes', 'prebakes'));
    // A build killed while writing the kept documents left its new file; one still running has its own.
    const deadWriters = path.join(project, `${KEPT}.new-${await exitedProcessId()}`);
    const runningWriters = path.join(project, `${KEPT}.new-${process.ppid}`);
    await Promise.all([fs.writeFile(deadWriters, 'half written'), fs.writeFile(runningWriters, 'being written')]);
    const edited = await build(project);
    expect(edited.searchIndex).toBe('written');
    await expect(fs.stat(deadWriters)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readFile(runningWriters, 'utf8')).toBe('being written');
    expect(await searchIds(tree, 'prebakes')).toEqual(['resources/guide_md.json']);
    expect(await searchIds(tree, 'precomputes')).toEqual([]);
    expect(indexBytes(tree)).toEqual(await forcedIndex(project));
  });

  it('writes the index again with --force even when nothing changed', async () => {
    // A project of one text resource: --force reruns every script, which the example has ~120 of.
    const project = await makeProject({ tools: { ok: 'ok' }, files: { 'resources/a.md': '# A\n\nA wombat.\n' } });
    const tree = (await build(project)).outDir;
    const written = indexBytes(tree);
    expect((await build(project)).searchIndex).toBe('reused');
    expect((await build(project, '--force')).searchIndex).toBe('written');
    expect(indexBytes(tree)).toEqual(written);
    expect(await searchIds(tree, 'wombat')).toEqual(['resources/a_md.json']);
  });

  it('writes the index again, as --force writes it, after a file of it was swapped for a copy of itself', async () => {
    const { project, tree, fresh } = await freshCopy();
    // The same bytes under a new inode: only the file's identity tells.
    const [file] = [...indexInodes(tree).keys()].filter((name) => name.endsWith('.pack'));
    const swapped = path.join(tree, INDEX_FOLDER, file!);
    await fs.copyFile(swapped, `${swapped}.copy`);
    await fs.rename(`${swapped}.copy`, swapped);
    const rebuilt = await build(project);
    expect(rebuilt.searchIndex).toBe('written');
    expect(indexBytes(tree)).toEqual(fresh);
    expect(await searchIds(tree, 'precomputes')).toEqual(['resources/guide_md.json']);
  });

  it('writes the index again when the record was edited, as --force does even with its kept documents damaged', async () => {
    const { project, tree, fresh } = await freshCopy();
    const record = path.join(project, RECORD);
    await build(project);
    const intact = await fs.readFile(record, 'utf8');
    const edited = intact.replace(/"inputs":"[0-9a-f]/, '"inputs":"z');
    expect(edited).not.toEqual(intact);
    await fs.writeFile(record, edited);
    // What the writer kept of each document, damaged in the middle: it is ignored, never trusted.
    const kept = readFileSync(path.join(project, KEPT));
    const middle = Math.floor(kept.length / 2);
    kept[middle] = kept[middle]! ^ 0xff;
    await fs.writeFile(path.join(project, KEPT), kept);
    const rebuilt = await build(project);
    expect(rebuilt.searchIndex).toBe('written');
    expect(indexBytes(tree)).toEqual(fresh);
    // And the record the last build left is intact again: the next build reuses.
    expect((await build(project)).searchIndex).toBe('reused');
  });
});
