// The validators of a project's metadata files that `npm run build` compiles ahead of time
// (scripts/compile-validators.mjs → project/sidecar-validators.cjs, which the CLI uses) say the same
// as ajv compiling src/project/sidecar-schemas.ts at run time (what a build from src/ uses): for
// every schema, documents valid and invalid in each way the schema can refuse, the same messages.
// The CLI's own reports of bad sidecars are asserted in build-behaviour, mcp-apps and mcp-surface.
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileValidator, validatorOf } from '../../src/shared/ajv-validator.js';
import { SIDECAR_SCHEMAS, type SidecarSchemaName } from '../../src/project/sidecar-schemas.js';
import { CLI } from '../helpers/paths.js';

const compiled = createRequire(import.meta.url)(
  path.join(path.dirname(path.dirname(CLI)), 'project', 'sidecar-validators.cjs'),
) as Record<SidecarSchemaName, Parameters<typeof validatorOf>[0]>;

const DOCUMENTS: Record<SidecarSchemaName, unknown[]> = {
  toolMeta: [
    { name: 'ok_tool', title: 'T', inputSchema: { type: 'object', properties: {} }, outputFormat: 'mcp' },
    { name: 'bad name!', title: 3, state: 'yes', timeoutSecs: 0, outputFormat: 'xml' },
    { inputSchema: { type: 'array' }, outputSchema: {}, icons: [{}, { src: '' }], inputs: [''] },
    { values: { a: [1], b: { command: '' }, c: { command: 'ls', extra: 1 }, d: 'x' } },
    { requiredClientCapabilities: { sampling: 'yes' } },
    'not an object',
  ],
  resourceSidecar: [
    // Non-ASCII text: "not empty" is the only length bound, counted alike either way.
    { name: 'é', title: '日本', uri: 'docs://guide', mimeType: 'text/markdown' },
    { name: '', uri: 'no scheme', mimeType: 'text', uriTemplate: 1, url: false },
    [],
  ],
  promptMeta: [
    { name: 'p', role: 'user', arguments: { type: 'object', properties: {}, required: ['a'] } },
    { name: 'bad name', role: 'system', arguments: { type: 'array', properties: 1, required: [2] } },
  ],
  uiMeta: [
    { name: 'ui', entrypoint: 'index.html', meta: { csp: { connectDomains: ['https://a.example'] } } },
    { name: '', entrypoint: 'a/b.html', extra: 1, meta: { csp: { other: [] }, permissions: { camera: 1 } } },
    { meta: { prefersBorder: 'no', sandboxDomain: 3, domain: null } },
  ],
  registerTools: [
    { name: 'a', path: 'a' },
    { name: 'bad name', path: '', timeoutSecs: -1, precompute: 'no', inputs: [1] },
    {},
  ],
  registerResources: [
    { name: 'r', uri: 'docs://r', path: 'r.md' },
    { name: '', uri: 'r', path: 1 },
  ],
  registerPrompts: [
    { name: 'p', path: 'p.md', role: 'assistant' },
    { name: 'p', role: 'narrator' },
  ],
  registerCompletions: [
    { ref: { type: 'ref/prompt', name: 'p' }, argument: 'a', values: ['x'] },
    { name: 'c', path: 'c', timeoutSecs: 301 },
    { ref: { type: 'ref/tool' }, argument: '', values: [1] },
    { name: 'c', path: 'c', values: [] },
  ],
};

describe('sidecar validators compiled ahead of time', () => {
  it('exist for every schema and report exactly what ajv reports at run time', () => {
    expect(Object.keys(compiled).sort()).toEqual(Object.keys(SIDECAR_SCHEMAS).sort());
    for (const name of Object.keys(SIDECAR_SCHEMAS) as SidecarSchemaName[]) {
      const ahead = validatorOf(compiled[name], 'meta');
      const atRunTime = compileValidator(SIDECAR_SCHEMAS[name], 'meta', { trusted: true });
      const reports = DOCUMENTS[name].map((document) => ahead(document));
      expect(reports, name).toEqual(DOCUMENTS[name].map((document) => atRunTime(document)));
      // Each schema's list holds a valid document first, then documents it refuses.
      expect(reports[0], `${name}: its first document is valid`).toEqual([]);
      for (const report of reports.slice(1)) expect(report.length, name).toBeGreaterThan(0);
    }
  });
});
