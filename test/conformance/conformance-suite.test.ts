// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json),
// run as it is against `staticmcp serve --http --live fixtures/conformance`: every active scenario
// must pass, with no expected-failures file. The fixture is an ordinary project of scripts,
// resources and prompts, so this proves the script conventions as much as the server.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { copySharedProject } from '../helpers/shared-hosts.js';
import { findProblems, runSuite, SUITE_0_1_13 } from './conformance-runner.js';

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

let serve: HttpServe;

beforeAll(async () => {
  // fixtures/conformance as the tier builds it once per run for its shared workerd (test/shared-hosts.ts).
  serve = await HttpServe.start(['--live', await copySharedProject('conformance-workerd')]);
  // The shared build waits for the workerd it is built for: room on a loaded machine.
}, 120_000);

afterAll(async () => {
  await serve?.stop();
});

it('passes every active scenario of the official conformance suite', { timeout: 120_000 }, async () => {
  const { code, output, checks } = await runSuite(SUITE_0_1_13, serve.endpoint, [], 110_000);
  expect([...checks.keys()].sort(), output).toEqual([...ACTIVE_SCENARIOS].sort());
  expect(findProblems(checks, ACTIVE_SCENARIOS)).toEqual([]);
  expect(output).toMatch(/Total: \d+ passed, 0 failed/);
  expect(code).toBe(0);
});
