// The Inspector CLI's skill verification (`--method skills/list --verify --require-digests`: the
// SEP-2640 conformance checks, then every listed file read and held against its digest and size,
// and the SKILL.md front matter against the entry) on a built copy of
// test/fixtures/skills-project: over stdio and over `serve --http` in the 2026-07-28 era it
// passes; over stdio on a copy whose skill file was edited after the build it fails (exit 7),
// naming the file. The three runs are independent processes, so they run concurrently.
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { requireTool } from '../helpers/runtime-tools.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const INSPECTOR_PACKAGE = path.dirname(requireTool.resolve('@modelcontextprotocol/inspector/package.json'));
const INSPECTOR = path.join(
  INSPECTOR_PACKAGE,
  (JSON.parse(readFileSync(path.join(INSPECTOR_PACKAGE, 'package.json'), 'utf8')) as { bin: { inspector: string } }).bin
    .inspector,
);
const VERIFY = ['--method', 'skills/list', '--verify', '--require-digests'];
const TAMPERED_URI = 'skill://greeting-etiquette/SKILL.md';

const tree = path.join(buildFixtureProject('skills-project'), 'dist');
// The same tree, with one skill file edited after the build (its size kept: only the digest can tell).
const tampered = path.join(temporaryFolderSync('staticmcp-skills-tampered-'), 'dist');
cpSync(tree, tampered, { recursive: true });
const skillFile = path.join(tampered, 'skills/files/greeting-etiquette/skill_md.json');
writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace('shout: true', 'shout: TRUE'));
const server = await HttpServe.start([tree]);
const inspectorHome = temporaryFolderSync('staticmcp-inspector-home-');

afterAll(async () => {
  await server.stop();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `inspector --cli <target…> --format json <options>` to its end (bounded). */
function inspector(target: string[], options: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', ...target, '--format', 'json', '--connect-timeout', '15000', ...options],
      {
        cwd: temporaryFolderSync('staticmcp-inspector-cwd-'),
        env: { ...process.env, HOME: inspectorHome, NO_COLOR: '1' },
        timeout: 45_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/** The one JSON report per skill the Inspector prints on stdout under --verify. */
function reportsOf(run: Run): { uri: string; ok: boolean; files: { uri: string; status: string }[] }[] {
  return run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{"uri"'))
    .map((line) => JSON.parse(line) as ReturnType<typeof reportsOf>[number]);
}

describe.concurrent('the Inspector CLI verifies the skills', () => {
  it('over stdio (serve <tree>)', async ({ expect }) => {
    const run = await inspector([process.execPath, CLI, 'serve', tree], VERIFY);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('Verified 3 skills and 6 files: no conformance errors.');
    expect(reportsOf(run).map((report) => [report.uri, report.ok])).toEqual([
      ['skill://acme/billing/refunds/SKILL.md', true],
      ['skill://acme/billing/refunds/chargebacks/SKILL.md', true],
      ['skill://greeting-etiquette/SKILL.md', true],
    ]);
  });

  it('over HTTP in the 2026-07-28 era (serve --http)', async ({ expect }) => {
    const run = await inspector([server.endpoint.href, '--transport', 'http'], ['--protocol-era', 'modern', ...VERIFY]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('Verified 3 skills and 6 files');
  });

  it('fails a tree whose skill file was edited after the build', async ({ expect }) => {
    const run = await inspector([process.execPath, CLI, 'serve', tampered], VERIFY);
    expect(run.code, run.stdout + run.stderr).toBe(7);
    const report = reportsOf(run).find((candidate) => candidate.uri === TAMPERED_URI);
    expect(report?.ok).toBe(false);
    expect(report?.files).toEqual([expect.objectContaining({ uri: TAMPERED_URI, status: 'mismatch' })]);
    expect(run.stderr).toContain('1 of 3 skills failed verification');
  });
});
