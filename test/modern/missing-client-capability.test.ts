// A tool that names the client capabilities it needs (`requiredClientCapabilities` in its
// metadata) is refused with MissingRequiredClientCapabilityError (-32021, data.requiredCapabilities)
// before its script runs, when the request's client did not declare them: a 2026-07-28 request by
// its own _meta (HTTP 400), a legacy session by its initialize; the build records the need in the
// manifest extension, and bad metadata keeps the tool out of the tree. The legacy sessions' refusal
// is the session's decision, asked of serve's own session in-process (InProcessBridge); the modern
// refusals go through the real stdio and HTTP servers.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, post } from '../helpers/http-serve.js';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { writeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const metaWith = (capabilities: Record<string, unknown>): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** Leaves a marker when it runs, so a test can see that a refused call never started it. */
const needsSampling = (marker: string): string => `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Asks the LLM", "precompute": false, "requiredClientCapabilities": {"sampling": {}}}'
  exit 0
fi
touch '${marker}'
printf 'ran'
`;

const BAD_METADATA = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Names its needs as a list", "precompute": false, "requiredClientCapabilities": ["sampling"]}'
  exit 0
fi
printf 'ran'
`;

let project: string;
let marker: string;
let buildOutput: string;
let bridge: RawBridge;
let serve: HttpServe;

beforeAll(async () => {
  marker = path.join(temporaryFolderSync('staticmcp-marker-'), 'ran.marker');
  project = await writeProject({
    'tools/needs_sampling': { script: needsSampling(marker) },
    'tools/bad_needs': { script: BAD_METADATA },
  });
  // The bad tool fails the build (exit 1) and is left out; everything else is written. The build's
  // decision in-process: its failures as the CLI prints them (path: message).
  const build = await buildInProcess(project);
  expect(build.code).toBe(1);
  buildOutput = build.report.failures.map((failure) => `${failure.path}: ${failure.message}`).join('\n');
  bridge = new RawBridge([project]);
  serve = await HttpServe.start(['--live', project]);
});

afterAll(async () => {
  await bridge?.close();
  await serve?.stop();
});

describe('requiredClientCapabilities', () => {
  it('is recorded per tool in the manifest extension; metadata that is not an object of objects keeps the tool out', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'dist', 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.tools.needs_sampling.requiredClientCapabilities).toEqual({ sampling: {} });
    expect(manifest.staticmcp.tools.bad_needs).toBeUndefined();
    expect(buildOutput).toMatch(/bad_needs: --help metadata: metadata\.requiredClientCapabilities must be object/);
  });

  it('refuses a modern call whose _meta lacks the capability with -32021, before the script runs', async () => {
    const refused = await bridge.request('tools/call', {
      name: 'needs_sampling',
      arguments: {},
      _meta: metaWith({ elicitation: {} }),
    });
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    expect(refused.error?.message).toMatch(/needs_sampling needs sampling/);
    expect(existsSync(marker)).toBe(false);

    const allowed = await bridge.request('tools/call', {
      name: 'needs_sampling',
      arguments: {},
      _meta: metaWith({ sampling: {} }),
    });
    expect(allowed.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'ran' }] });
    expect(existsSync(marker)).toBe(true);
  });

  it('answers -32021 with HTTP 400 over Streamable HTTP', async () => {
    const answer = await post(
      serve.port,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'needs_sampling', arguments: {}, _meta: metaWith({}) },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'needs_sampling' },
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({
      id: 7,
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it('refuses a legacy session whose initialize did not declare it, and serves one that did', async () => {
    const legacy = await InProcessBridge.open(project);
    try {
      await legacy.initialize('2025-06-18');
      const refused = await legacy.request('tools/call', { name: 'needs_sampling', arguments: {} });
      expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    } finally {
      await legacy.close();
    }
    const declared = await InProcessBridge.open(project);
    try {
      await declared.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: { sampling: {} },
        clientInfo: { name: 't', version: '1' },
      });
      const served = await declared.request('tools/call', { name: 'needs_sampling', arguments: {} });
      expect(served.result).toMatchObject({ content: [{ type: 'text', text: 'ran' }] });
    } finally {
      await declared.close();
    }
  });

  it('keeps serving after a refusal and after bad _meta', async () => {
    const bad = await bridge.request('tools/call', {
      name: 'needs_sampling',
      arguments: {},
      _meta: metaWith({ sampling: 'yes' }),
    });
    expect(bad.error?.code).toBe(-32021);
    expect((await bridge.request('tools/list', { _meta: metaWith({}) })).result).toMatchObject({
      resultType: 'complete',
    });
  });
});
