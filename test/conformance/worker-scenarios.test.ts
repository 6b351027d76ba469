// The official conformance suite (0.1.13, as pinned) against the tree's own `_worker.js` in workerd:
// every scenario a static, precomputed-only server can answer must pass. The others need a live
// project or a session (logging and progress during a call, sampling, elicitation, the GET stream)
// or a Host check the edge platform does instead (it routes by host name, so DNS rebinding cannot
// reach a worker through another name): they run against `serve --http --live` in
// conformance-suite.test.ts.
import { beforeAll, expect, it } from 'vitest';
import { sharedHost } from '../helpers/shared-hosts.js';
import { findProblems, runSuite, SUITE_0_1_13 } from './conformance-runner.js';

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

/** The workerd the tier shares over the built fixtures/conformance (test/shared-hosts.ts): never closed here. */
let site: { url: URL };

beforeAll(async () => {
  site = { url: await sharedHost('conformance-workerd') };
});

it('passes every scenario a precomputed-only server can answer, in workerd', { timeout: 180_000 }, async () => {
  // The whole active suite in one process (one Node start instead of one per scenario); the
  // scenarios that need a live project fail there and are not read.
  const { output, checks } = await runSuite(SUITE_0_1_13, new URL('mcp', site.url), [], 120_000);
  expect(findProblems(checks, STATIC_SCENARIOS), output).toEqual([]);
});
