// Discovery's saved runs (src/project/resource-runs.ts, document-runs.ts; issue #39): an edit
// build takes the untouched files of a folder whole from the runs the build before saved. Each
// rebuild here (a page edited; pages added, removed and renamed; a title changed; a page made
// binary) is byte for byte the tree a from-scratch build of the same input writes, and so is one
// whose saved runs were damaged, cut short, deleted or taken from another project. Pages hold
// titles and descriptions, some none, and a folder mixes Markdown with text and binary files (runs
// of one MIME type each). Builds run in-process (test/helpers/in-process-build.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTree } from '../helpers/files.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const RUNS_FILE = path.join('.staticmcp', 'cache', 'document-runs.bin');
/** Older than the two seconds within which a file's identity is not trusted (document-cache.ts). */
const AN_HOUR_AGO_S = Date.now() / 1000 - 3600;

function page(folder: string, number: number): string {
  if (number % 5 === 0) return `No heading here, only a line about ${folder} number ${number}.\n`;
  return `---\ntitle: ${folder} page ${number}\ndescription: About ${folder} ${number}.\n---\n\n# ${folder} ${number}\n\nText of ${folder} ${number}: ünïcode ✓.\n`;
}

/** Two folders of pages, a text file and a binary file among them, and a page at the top. */
async function contentProject(root: string): Promise<void> {
  for (const folder of ['alpha', 'beta']) {
    await fs.mkdir(path.join(root, 'resources', folder), { recursive: true });
    for (let number = 0; number < 24; number += 1)
      await fs.writeFile(path.join(root, 'resources', folder, `page-${number}.md`), page(folder, number));
  }
  await fs.writeFile(path.join(root, 'resources', 'alpha', 'page-12.txt'), 'plain text between pages\n');
  await fs.writeFile(path.join(root, 'resources', 'beta', 'logo.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
  await fs.writeFile(path.join(root, 'resources', 'top.md'), '# Top\n\nThe top page.\n');
  await fs.writeFile(path.join(root, 'staticmcp.json'), JSON.stringify({ search: { resources: true } }));
}

/** Every file under resources/ made older than the trust window, as files a user edited long ago are. */
async function age(root: string): Promise<void> {
  const folder = path.join(root, 'resources');
  for (const name of await fs.readdir(folder, { recursive: true })) {
    await fs.utimes(path.join(folder, name), AN_HOUR_AGO_S, AN_HOUR_AGO_S);
  }
}

async function build(project: string, force = false) {
  const result = await buildInProcess(project, { outDir: path.join(project, 'tree'), ...(force ? { force } : {}) });
  expect(result.code, result.error?.message).toBe(0);
  return result.report;
}

/** The tree a from-scratch build of `project`'s input writes (in a folder of the same name: the server's name). */
async function freshTreeOf(project: string): Promise<Map<string, Buffer>> {
  const copy = path.join(await temporaryFolder('staticmcp-runs-fresh-'), path.basename(project));
  await fs.cp(path.join(project, 'resources'), path.join(copy, 'resources'), { recursive: true });
  await fs.copyFile(path.join(project, 'staticmcp.json'), path.join(copy, 'staticmcp.json'));
  await build(copy, true);
  return readTree(path.join(copy, 'tree'));
}

async function expectFreshTree(project: string): Promise<void> {
  const [rebuilt, fresh] = await Promise.all([readTree(path.join(project, 'tree')), freshTreeOf(project)]);
  expect([...rebuilt.keys()].sort()).toEqual([...fresh.keys()].sort());
  for (const [name, bytes] of fresh) expect(rebuilt.get(name)?.equals(bytes), name).toBe(true);
}

/** A project built twice (the second build an edit: its runs describe every untouched file). */
async function builtProject(prefix: string): Promise<string> {
  const project = path.join(await temporaryFolder(prefix), 'docs');
  await contentProject(project);
  await age(project);
  await build(project);
  await fs.appendFile(path.join(project, 'resources', 'top.md'), '\nA first edit.\n');
  await age(project);
  await build(project);
  return project;
}

describe('discovery from saved runs', () => {
  it('rebuilds the from-scratch tree after edits, additions, removals and renames', async () => {
    const project = await builtProject('staticmcp-runs-edits-');
    const resources = path.join(project, 'resources');

    await fs.appendFile(path.join(resources, 'alpha', 'page-7.md'), '\nAn edit: wombat.\n');
    expect((await build(project)).documents).toMatchObject({ parsed: 1, reused: 50 });
    await expectFreshTree(project);

    await age(project);
    await fs.writeFile(path.join(resources, 'alpha', 'page-7b.md'), '---\ntitle: Added\n---\n\nAn added page.\n');
    await fs.rm(path.join(resources, 'beta', 'page-3.md'));
    await fs.rename(path.join(resources, 'beta', 'page-9.md'), path.join(resources, 'beta', 'page-99.md'));
    const changed = await build(project);
    expect(changed.documents).toMatchObject({ parsed: 1, reused: 50 });
    await expectFreshTree(project);

    // A title changed, and a page that became binary (its MIME type is its name's: text no more).
    await age(project);
    await fs.writeFile(path.join(resources, 'beta', 'page-14.md'), page('beta', 14).replace('beta page 14', 'Renamed'));
    await fs.writeFile(path.join(resources, 'beta', 'page-16.md'), Buffer.from([0, 0xff, 0xfe, 0]));
    await build(project);
    await expectFreshTree(project);
  }, 120_000);

  it('rebuilds the from-scratch tree when the saved runs are damaged, cut short, foreign or gone', async () => {
    const project = await builtProject('staticmcp-runs-damaged-');
    const other = await builtProject('staticmcp-runs-other-');
    const runsFile = path.join(project, RUNS_FILE);
    const edit = async (note: string) => {
      await fs.appendFile(path.join(project, 'resources', 'beta', 'page-2.md'), `\n${note}\n`);
      await build(project);
      await expectFreshTree(project);
      await age(project);
    };

    // A byte of every block's middle changed (each block is checked when it is read).
    const bytes = await fs.readFile(runsFile);
    for (let at = 200; at < bytes.length; at += 997) bytes[at]! ^= 0x5a;
    await fs.writeFile(runsFile, bytes);
    await edit('After damage.');

    const whole = await fs.readFile(runsFile);
    await fs.writeFile(runsFile, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await edit('After a cut.');

    // Another project's runs: the same names, other files.
    await fs.copyFile(path.join(other, RUNS_FILE), runsFile);
    await fs.appendFile(path.join(other, 'resources', 'alpha', 'page-1.md'), '\nOther.\n');
    await edit('After a swap.');

    await fs.rm(runsFile);
    await edit('After a removal.');
  }, 120_000);
});
