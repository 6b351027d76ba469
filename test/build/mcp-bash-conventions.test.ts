// Projects laid out the way mcp-bash lays them out (the 000_* and 003_* conventions), built as
// they are: dotted prompt names, `<name>.meta.json` resource sidecars, register.json's replace and
// merge rules, invalid template entries skipped (exit 1), and scripts that are not executable.
// Builds run in-process (the build command's buildOrReplay) but for the two whose stderr is read.
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildJson } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { readJson } from '../helpers/files.js';
import { makeProject } from '../helpers/projects.js';

interface ManifestJson {
  capabilities: {
    tools: { name: string }[];
    resources: { uri: string; name: string; description?: string; mimeType?: string }[];
    resourceTemplates: { name: string; uriTemplate: string; description?: string }[];
    prompts: { name: string }[];
  };
}

const manifestOf = (project: string) => readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));

describe('dotted names (000_*: only tools need the client-safe pattern)', () => {
  it('builds prompts named review.code, from the file name or from register.json, and still refuses a dotted tool name', async () => {
    const project = await makeProject({
      tools: { hello: 'ok' },
      files: {
        'prompts/review.code.md': 'Review {{code}}.',
        'prompts/review.code.meta.json': JSON.stringify({
          arguments: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        }),
        'prompts/summarise.txt': 'Summarise {{notes}}.',
        'prompts/summarise.txt.meta.json': JSON.stringify({
          name: 'notes.summarise',
          arguments: { type: 'object', properties: { notes: { type: 'string' } } },
        }),
        'resources/guide.md': '# Guide\n',
        'resources/guide.md.meta.json': JSON.stringify({ name: 'docs.guide', uri: 'docs://guide' }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    const manifest = await manifestOf(project);
    expect(manifest.capabilities.prompts.map((prompt) => prompt.name).sort()).toEqual([
      'notes.summarise',
      'review.code',
    ]);
    expect(manifest.capabilities.resources).toEqual([
      expect.objectContaining({ name: 'docs.guide', uri: 'docs://guide' }),
    ]);
    expect(await readJson(path.join(project, 'dist/prompts/review.code.json'))).toMatchObject({
      template: 'Review {{code}}.',
    });

    const registered = await makeProject({
      tools: { hello: 'ok' },
      files: {
        'prompts/pick.txt': 'Pick {{item}}.',
        'server.d/register.json': JSON.stringify({
          version: 1,
          prompts: [{ name: 'demo.pick', path: 'pick.txt', arguments: { type: 'object', properties: { item: {} } } }],
        }),
      },
    });
    const second = await buildInProcess(registered);
    expect(second.code).toBe(0);
    expect((await manifestOf(registered)).capabilities.prompts.map((prompt) => prompt.name)).toEqual(['demo.pick']);

    const dottedTool = await makeProject({
      tools: { hello: 'ok' },
      files: {
        'server.d/register.json': JSON.stringify({ version: 1, tools: [{ name: 'a.b', path: 'hello' }] }),
      },
    });
    const refused = await buildJson(dottedTool);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/tools\[0\]: entry\.name must match pattern/);
  });
});

describe('resource sidecars named the mcp-bash way', () => {
  it('reads foo.meta.json for foo.md, lets foo.md.meta.json win when both exist (with a warning), and leaves a template declaration alone', async () => {
    const project = await makeProject({
      files: {
        'resources/notes.md': '# Notes\n',
        'resources/notes.meta.json': JSON.stringify({
          name: 'meeting-notes',
          uri: 'notes://meeting',
          description: 'From the stem sidecar',
        }),
        'resources/both.txt': 'both',
        'resources/both.meta.json': JSON.stringify({ name: 'stem-name', uri: 'both://stem' }),
        'resources/both.txt.meta.json': JSON.stringify({ name: 'file-name', uri: 'both://file' }),
        'resources/facts.txt': 'a fact',
        'resources/facts.meta.json': JSON.stringify({ name: 'fact-template', uriTemplate: 'facts://{id}' }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    const manifest = await manifestOf(project);
    const byPath = Object.fromEntries(manifest.capabilities.resources.map((resource) => [resource.name, resource]));
    expect(byPath['meeting-notes']).toMatchObject({ uri: 'notes://meeting', description: 'From the stem sidecar' });
    expect(byPath['file-name']).toMatchObject({ uri: 'both://file' });
    expect(byPath['stem-name']).toBeUndefined();
    // The template's stem file is not the metadata of facts.txt, which keeps its default URI.
    expect(byPath['facts.txt']).toMatchObject({ uri: 'resource://facts.txt' });
    expect(manifest.capabilities.resourceTemplates).toEqual([{ name: 'fact-template', uriTemplate: 'facts://{id}' }]);
    expect(report.warnings).toContainEqual({
      path: 'resources/both.txt',
      message: expect.stringMatching(/both\.txt\.meta\.json is used and both\.meta\.json is ignored/),
    });
  });

  it('ignores, with a warning, a stem sidecar that two files would share', async () => {
    const project = await makeProject({
      files: {
        'resources/logo.png': 'not really a png',
        'resources/logo.svg': '<svg/>',
        'resources/logo.meta.json': JSON.stringify({ name: 'logo', uri: 'img://logo' }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    const uris = (await manifestOf(project)).capabilities.resources.map((resource) => resource.uri).sort();
    expect(uris).toEqual(['resource://logo.png', 'resource://logo.svg']);
    expect(report.warnings).toContainEqual({
      path: 'resources/logo.png',
      message: expect.stringContaining('logo.meta.json would describe every file named like it'),
    });
  });
});

describe('register.json: resources replace, resourceTemplates merge (000_*, 003_*)', () => {
  const files = {
    'resources/a.md': '# A\n',
    'resources/b.md': '# B\n',
    'resources/logs.meta.json': JSON.stringify({
      name: 'logs',
      uriTemplate: 'file:///logs/{day}.log',
      description: 'discovered',
    }),
    'resources/files.meta.json': JSON.stringify({ name: 'files', uriTemplate: 'file:///{path}' }),
  };

  it('serves only the registered resources, and the discovered templates plus the registered ones (a registered one wins on a shared name)', async () => {
    const project = await makeProject({
      files: {
        ...files,
        'server.d/register.json': JSON.stringify({
          version: 1,
          resources: [{ name: 'only-a', uri: 'docs://a', path: 'a.md' }],
          resourceTemplates: [
            { name: 'logs', uriTemplate: 'file:///var/log/{service}/{day}.log', description: 'registered' },
            { name: 'by-date', uriTemplate: 'file:///by-date/{date}' },
          ],
        }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    const manifest = await manifestOf(project);
    expect(manifest.capabilities.resources.map((resource) => resource.uri)).toEqual(['docs://a']);
    expect(manifest.capabilities.resourceTemplates).toEqual([
      { name: 'by-date', uriTemplate: 'file:///by-date/{date}' },
      { name: 'files', uriTemplate: 'file:///{path}' },
      { name: 'logs', uriTemplate: 'file:///var/log/{service}/{day}.log', description: 'registered' },
    ]);
  });

  it('disables templates with [] and keeps discovering resources when the key is absent', async () => {
    const project = await makeProject({
      files: { ...files, 'server.d/register.json': JSON.stringify({ version: 1, resourceTemplates: [] }) },
    });
    const { code } = await buildInProcess(project);
    expect(code).toBe(0);
    const manifest = await manifestOf(project);
    expect(manifest.capabilities.resourceTemplates).toEqual([]);
    expect(manifest.capabilities.resources.map((resource) => resource.uri).sort()).toEqual([
      'resource://a.md',
      'resource://b.md',
    ]);
  });
});

describe('register.json completions: [] (000_*: an empty kind is switched off)', () => {
  it('writes no completions at all, not even the ones derived from enums; absent, they are derived', async () => {
    const files = {
      'prompts/level.md': 'Explain {{topic}} to a {{level}} reader.',
      'prompts/level.md.meta.json': JSON.stringify({
        arguments: {
          type: 'object',
          properties: { topic: { type: 'string' }, level: { type: 'string', enum: ['new', 'expert'] } },
        },
      }),
    };
    const off = await makeProject({
      files: { ...files, 'server.d/register.json': JSON.stringify({ version: 1, completions: [] }) },
    });
    expect((await buildInProcess(off)).code).toBe(0);
    await expect(fs.access(path.join(off, 'dist/completions.json'))).rejects.toThrow();
    const derived = await makeProject({ files });
    expect((await buildInProcess(derived)).code).toBe(0);
    expect(await readJson(path.join(derived, 'dist/completions.json'))).toMatchObject({
      'ref/prompt': { level: { level: ['new', 'expert'] } },
    });
  });
});

describe('invalid template entries (003_*: skipped with a warning)', () => {
  it('skips each invalid entry with its reason, builds the rest, and exits 1', async () => {
    const project = await makeProject({
      tools: { hello: 'ok' },
      files: {
        'resources/a.md': '# A\n',
        'server.d/register.json': JSON.stringify({
          version: 1,
          resourceTemplates: [
            { name: 'good', uriTemplate: 'file:///good/{id}' },
            { name: 'static', uriTemplate: 'file:///static' },
            { name: 'mixed', uri: 'file:///x', uriTemplate: 'file:///{x}' },
            { uriTemplate: 'file:///{nameless}' },
            'not an object',
            { name: 'good', uriTemplate: 'file:///again/{id}' },
            { name: 'a.md', uriTemplate: 'file:///clash/{id}' },
          ],
        }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    const where = (index: number) => `server.d/register.json resourceTemplates[${index}]`;
    expect(report.failures).toEqual(
      expect.arrayContaining([
        { path: where(1), message: expect.stringContaining('has no {variable}') },
        { path: where(2), message: expect.stringContaining('sets both "uri" and "uriTemplate"') },
        { path: where(3), message: expect.stringContaining('"name" must be non-empty strings') },
        { path: where(4), message: expect.stringContaining('must be an object') },
        { path: where(5), message: expect.stringContaining('an earlier entry is already named "good"') },
        { path: 'a.md', message: expect.stringContaining('a resource already has this name') },
      ]),
    );
    expect(report.failures).toHaveLength(6);
    const manifest = await manifestOf(project);
    expect(manifest.capabilities.resourceTemplates).toEqual([{ name: 'good', uriTemplate: 'file:///good/{id}' }]);
    expect(manifest.capabilities.tools.map((tool) => tool.name)).toEqual(['hello']);
    expect(manifest.capabilities.resources.map((resource) => resource.name)).toEqual(['a.md']);
  });
});

describe('a script in tools/ that is not executable', () => {
  it('is named in one line that gives the chmod that enables it; a README beside it is not', async () => {
    const project = await makeProject({
      tools: { hello: 'ok' },
      files: {
        'tools/forgotten.sh': `#!/bin/sh\n[ "$1" = "--help" ] && { echo '{"description": "hi"}'; exit 0; }\necho hi\n`,
        'tools/nested/no-extension': '#!/bin/sh\necho hi\n',
        'tools/README.md': '# my tools\n',
      },
    });
    const { code, report, stderr } = await buildJson(project);
    expect(code).toBe(0);
    const notices = report.warnings.filter((warning) => warning.message.includes('not executable'));
    expect(notices.map((notice) => notice.path)).toEqual(['tools/forgotten.sh', 'tools/nested/no-extension']);
    const chmod = /run: chmod \+x (\S+)$/.exec(notices[0]?.message ?? '')?.[1];
    expect(chmod).toBeDefined();
    // The hint works as written from where the build ran.
    await fs.chmod(path.resolve(chmod ?? ''), 0o755);
    const again = await buildInProcess(project);
    expect(again.report.tools.map((tool) => tool.name).sort()).toEqual(['forgotten', 'hello']);
    expect(stderr).not.toContain('README');
  });
});
