// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json),
// run as it is against `staticmcp serve --http --live fixtures/conformance`: every active scenario
// must pass, with no expected-failures file. The fixture is an ordinary project of scripts,
// resources and prompts, so this proves the script conventions as much as the server.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

/** The active server scenarios of version 0.1.13, in the order the suite runs them. */
const ACTIVE_SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
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
  'dns-rebinding-protection',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

const SUITE_CLI = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

let server: ChildProcess;
let endpoint: string;

/** Starts serve --http on a free port and resolves with the endpoint it prints on stderr. */
function startServer(project: string): Promise<string> {
  server = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0', '--live', project], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const endpoint = /MCP endpoint: (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (endpoint) resolve(endpoint);
    });
    server.on('exit', (code) => reject(new Error(`serve exited with ${code} before printing its endpoint: ${stderr}`)));
  });
}

function runSuite(url: string, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const suite = spawn(process.execPath, [SUITE_CLI, 'server', '--url', url, '-o', outputDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    suite.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    suite.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    suite.on('exit', (code) => resolve({ code, output }));
  });
}

/** checks.json of every scenario the suite ran: `server-<scenario>-<timestamp>/checks.json`. */
function readChecks(outputDir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const folder of readdirSync(outputDir)) {
    const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    byScenario.set(scenario, JSON.parse(readFileSync(path.join(outputDir, folder, 'checks.json'), 'utf8')) as Check[]);
  }
  return byScenario;
}

beforeAll(async () => {
  endpoint = await startServer(buildFixtureProject('fixtures/conformance'));
});

afterAll(() => {
  server?.kill('SIGTERM');
});

it('passes every active scenario of the official conformance suite', { timeout: 120_000 }, async () => {
  const outputDir = temporaryFolderSync('staticmcp-conformance-');
  const { code, output } = await runSuite(endpoint, outputDir);
  const checks = readChecks(outputDir);
  expect([...checks.keys()].sort()).toEqual([...ACTIVE_SCENARIOS].sort());
  const failed = [...checks].flatMap(([scenario, list]) =>
    list
      .filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO')
      .map((check) => `${scenario}: ${check.id} ${check.status} ${check.errorMessage ?? ''}`),
  );
  expect(failed).toEqual([]);
  for (const scenario of ACTIVE_SCENARIOS)
    expect(
      checks.get(scenario)?.some((check) => check.status === 'SUCCESS'),
      scenario,
    ).toBe(true);
  expect(output).toMatch(/Total: \d+ passed, 0 failed/);
  expect(code).toBe(0);
});
