// The official conformance suite (0.1.13, as pinned) against the tree's own `_worker.js` in workerd:
// every scenario a static, precomputed-only server can answer must pass. The others need a live
// project or a session (logging and progress during a call, sampling, elicitation, the GET stream)
// or a Host check the edge platform does instead (it routes by host name, so DNS rebinding cannot
// reach a worker through another name): they run against `serve --http --live` in
// conformance-suite.test.ts.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildFixtureProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import { startWorkerdSite, type WorkerdSite } from '../edge/workerd-site.js';

const STATIC_SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

const SUITE_CLI = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

let site: WorkerdSite;

/** Runs the whole active suite in one process (one Node start instead of one per scenario; the
 * scenarios that need a live project fail and are not read), killed after two minutes. */
function runSuite(url: string, outputDir: string): Promise<number | null> {
  return new Promise((resolve) => {
    const suite = spawn(process.execPath, [SUITE_CLI, 'server', '--url', url, '-o', outputDir], { stdio: 'ignore' });
    const timer = setTimeout(() => suite.kill('SIGKILL'), 120_000);
    suite.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

beforeAll(async () => {
  site = await startWorkerdSite(path.join(buildFixtureProject('fixtures/conformance'), 'dist'));
});

afterAll(async () => {
  await site?.close();
});

it('passes every scenario a precomputed-only server can answer, in workerd', { timeout: 180_000 }, async () => {
  const outputDir = temporaryFolderSync('staticmcp-conformance-worker-');
  const endpoint = new URL('mcp', site.url).href;
  await runSuite(endpoint, outputDir);
  const folders = readdirSync(outputDir);
  const failed: string[] = [];
  for (const scenario of STATIC_SCENARIOS) {
    const folder = folders.find((name) => /^server-(.*)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(name)?.[1] === scenario);
    const checks = folder
      ? (JSON.parse(readFileSync(path.join(outputDir, folder, 'checks.json'), 'utf8')) as Check[])
      : [];
    const bad = checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');
    if (checks.length === 0 || bad.length > 0) {
      failed.push(
        `${scenario}: ${bad.map((check) => `${check.id} ${check.status} ${check.errorMessage ?? ''}`).join('; ') || 'not run, or no checks'}`,
      );
    }
  }
  expect(failed).toEqual([]);
});
