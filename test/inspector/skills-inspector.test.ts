// The Inspector CLI's skill verification (`--method skills/list --verify --require-digests`: the
// SEP-2640 conformance checks, then every listed file read and held against its digest and size,
// and the SKILL.md front matter against the entry) on a built copy of
// test/fixtures/skills-project: over stdio, over `serve --http` in the 2026-07-28 era and against
// the tree's worker in workerd it passes; over stdio on a copy whose skill file was edited after
// the build it fails (exit 7), naming the file. The three passing runs share one Inspector process
// (runInspectorBatch: the CLI entry the launcher calls, its start paid once); the failing one runs
// the launcher itself, as a user's `npx @modelcontextprotocol/inspector --cli` does.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { startWorkerdSite } from '../edge/workerd-site.js';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { type InspectorRun, runInspector, runInspectorBatch } from '../helpers/inspector-cli.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const VERIFY = ['--method', 'skills/list', '--verify', '--require-digests'];
const TAMPERED_URI = 'skill://greeting-etiquette/SKILL.md';

const tree = path.join(buildFixtureProject('skills-project'), 'dist');
// The same tree, with one skill file edited after the build (its size kept: only the digest can tell).
const tampered = path.join(temporaryFolderSync('staticmcp-skills-tampered-'), 'dist');
cpSync(tree, tampered, { recursive: true });
const skillFile = path.join(tampered, 'skills/files/greeting-etiquette/skill_md.json');
writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace('shout: true', 'shout: TRUE'));
const server = await HttpServe.start([tree]);
const worker = await startWorkerdSite(tree);

afterAll(async () => {
  await Promise.all([server.stop(), worker.close()]);
});

// Started now, so no test waits for a batch a slot of vitest's concurrency has not started.
const passing = runInspectorBatch([
  { target: [process.execPath, CLI, 'serve', tree], options: VERIFY },
  { target: [server.endpoint.href, '--transport', 'http'], options: ['--protocol-era', 'modern', ...VERIFY] },
  { target: [new URL('mcp', worker.url).href, '--transport', 'http'], options: VERIFY },
]);
passing.catch(() => {});

/** Run number `position` of the passing batch. */
async function passingRun(position: number): Promise<InspectorRun> {
  const run = (await passing)[position];
  if (!run) throw new Error(`no Inspector run ${position} in the batch`);
  return run;
}

/** The one JSON report per skill the Inspector prints on stdout under --verify. */
function reportsOf(run: InspectorRun): { uri: string; ok: boolean; files: { uri: string; status: string }[] }[] {
  return run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{"uri"'))
    .map((line) => JSON.parse(line) as ReturnType<typeof reportsOf>[number]);
}

// A passing test waits for the whole batch (three runs one after the other): room for a loaded machine.
const BATCH_WAIT_MS = 180_000;

describe.concurrent('the Inspector CLI verifies the skills', { timeout: BATCH_WAIT_MS }, () => {
  it('over stdio (serve <tree>)', async ({ expect }) => {
    const run = await passingRun(0);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('Verified 3 skills and 6 files: no conformance errors.');
    expect(reportsOf(run).map((report) => [report.uri, report.ok])).toEqual([
      ['skill://acme/billing/refunds/SKILL.md', true],
      ['skill://acme/billing/refunds/chargebacks/SKILL.md', true],
      ['skill://greeting-etiquette/SKILL.md', true],
    ]);
  });

  it('over HTTP in the 2026-07-28 era (serve --http)', async ({ expect }) => {
    const run = await passingRun(1);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('Verified 3 skills and 6 files');
  });

  it('against the worker in workerd', async ({ expect }) => {
    const run = await passingRun(2);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('Verified 3 skills and 6 files: no conformance errors.');
  });

  it('fails a tree whose skill file was edited after the build', async ({ expect }) => {
    const run = await runInspector([process.execPath, CLI, 'serve', tampered], VERIFY);
    expect(run.code, run.stdout + run.stderr).toBe(7);
    const report = reportsOf(run).find((candidate) => candidate.uri === TAMPERED_URI);
    expect(report?.ok).toBe(false);
    expect(report?.files).toEqual([expect.objectContaining({ uri: TAMPERED_URI, status: 'mismatch' })]);
    expect(run.stderr).toContain('1 of 3 skills failed verification');
  });
});
