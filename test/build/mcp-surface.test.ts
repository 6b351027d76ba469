// The whole MCP surface a project can declare, as the build writes it: sidecars, icons, output
// schemas, register.json, prompts, resource templates (with precomputed instances), completions,
// Markdown titles — and the bad input each must survive without breaking anything else. Builds run
// in-process through the build command's decision (test/helpers/in-process-build.ts), except those
// whose refusal a user reads on stderr.
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildJson } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { exists, readJson } from '../helpers/files.js';
import { makeProject } from '../helpers/projects.js';

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

interface ManifestJson {
  capabilities: {
    tools: Record<string, unknown>[];
    resources: Record<string, unknown>[];
    resourceTemplates: Record<string, unknown>[];
    prompts: Record<string, unknown>[];
  };
}

describe('tool sidecars, icons and output schemas', () => {
  it('lets a sidecar rename and describe a tool, turns a local icon into a data URI and keeps annotations verbatim', async () => {
    const project = await makeProject({
      tools: { hello: 'ok' },
      files: {
        'tools/hello.meta.json': JSON.stringify({
          name: 'say-ok',
          title: 'Say ok',
          description: 'From the sidecar',
          annotations: { readOnlyHint: true, openWorldHint: false },
          icons: [{ src: 'icon.png' }, { src: 'https://cdn.example/x.svg' }],
        }),
        'tools/icon.png': PNG_1X1,
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(report.tools.map((tool) => tool.name)).toEqual(['say-ok']);
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.tools[0]).toMatchObject({
      name: 'say-ok',
      title: 'Say ok',
      description: 'From the sidecar',
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons: [
        { src: `data:image/png;base64,${PNG_1X1.toString('base64')}`, mimeType: 'image/png' },
        { src: 'https://cdn.example/x.svg' },
      ],
    });
    expect(await readJson(path.join(project, 'dist/tools/say-ok.json'))).toMatchObject({
      content: [{ type: 'text', text: 'ok\n' }],
    });
  });

  it('reports a sidecar that is not JSON, or has a field of the wrong type, and builds the other tools', async () => {
    const project = await makeProject({
      tools: { broken: 'ok', typed: 'ok', fine: 'ok' },
      files: {
        'tools/broken.meta.json': '{ "title": ',
        'tools/typed.meta.json': JSON.stringify({ timeoutSecs: 'soon' }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(report.failures).toEqual([
      { path: 'tools/broken', message: expect.stringMatching(/broken\.meta\.json is not JSON/) },
      { path: 'tools/typed', message: expect.stringMatching(/typed\.meta\.json\.timeoutSecs must be number/) },
    ]);
  });

  it('reports a missing icon file for that tool only', async () => {
    const project = await makeProject({
      tools: { pictured: 'ok', plain: 'ok' },
      files: { 'tools/pictured.meta.json': JSON.stringify({ icons: [{ src: 'missing.svg' }] }) },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.tools.map((tool) => tool.name)).toEqual(['plain']);
    expect(report.failures[0]).toEqual({
      path: 'tools/pictured',
      message: expect.stringContaining('icon file "missing.svg" cannot be read (ENOENT)'),
    });
  });

  it('turns JSON output into structuredContent when an outputSchema is declared, and a mismatch into an isError answer naming the field', async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { tools: { echo: { values: { value: ['{"count": 3}', '{"count": "three"}'] } } } },
      files: {
        'tools/echo.meta.json': JSON.stringify({
          outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
        }),
      },
    });
    const { code } = await buildInProcess(project);
    expect(code).toBe(0);
    const good = await readJson(path.join(project, 'dist/tools/echo/__count___3_.json'));
    expect(good).toMatchObject({
      structuredContent: { count: 3 },
      content: [{ type: 'text', text: '{"count": 3}\n' }],
    });
    expect(good.isError).toBeUndefined();
    const bad = await readJson(path.join(project, 'dist/tools/echo/__count____three__.json'));
    expect(bad).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('output.count must be integer') }],
    });
  });
});

describe('editing a sidecar', () => {
  it('updates the definition without rerunning a call when only the description changes, and reruns when the outputSchema changes', async () => {
    const project = await makeProject({
      tools: { counted: 'count-runs' },
      files: { 'tools/counted.meta.json': JSON.stringify({ description: 'first' }) },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    const runsLog = path.join(project, 'runs.log');
    const runsAfterFirstBuild = (await fs.readFile(runsLog, 'utf8')).split('\n').filter(Boolean).length;
    expect(runsAfterFirstBuild).toBeGreaterThan(0);

    await fs.writeFile(path.join(project, 'tools/counted.meta.json'), JSON.stringify({ description: 'second' }));
    const edited = await buildInProcess(project);
    expect(edited.report.tools[0]).toMatchObject({ cached: edited.report.tools[0]?.precomputed });
    expect((await fs.readFile(runsLog, 'utf8')).split('\n').filter(Boolean).length).toBe(runsAfterFirstBuild);
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.tools[0]).toMatchObject({ description: 'second' });

    await fs.writeFile(
      path.join(project, 'tools/counted.meta.json'),
      JSON.stringify({ description: 'second', outputSchema: { type: 'object' } }),
    );
    const reshaped = await buildInProcess(project);
    expect(reshaped.report.tools[0]).toMatchObject({ cached: 0 });
  });
});

describe('an outputSchema that is not a valid JSON Schema', () => {
  it('fails the runs of that tool with a message naming the schema, and builds the others', async () => {
    const project = await makeProject({
      tools: { strange: 'ok', fine: 'ok' },
      files: {
        'tools/strange.meta.json': JSON.stringify({
          outputSchema: { type: 'object', properties: { n: { type: 'integr' } } },
        }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    const strange = report.tools.find((tool) => tool.name === 'strange')!;
    expect(strange.failures).toEqual([
      {
        arguments: {},
        message: expect.stringMatching(/outputSchema of strange is invalid JSON Schema/),
        stderrHead: '',
      },
    ]);
    expect(report.tools.find((tool) => tool.name === 'fine')).toMatchObject({ precomputed: 1, failures: [] });
  });
});

describe('server.d/register.json', () => {
  const registered = (content: string | Buffer) =>
    makeProject({
      tools: { 'a/first': 'ok', second: 'ok' },
      files: { 'server.d/register.json': content, 'resources/doc.md': '# Doc\n\nHello.\n' },
    });

  it('replaces discovery for the kinds it lists, and [] disables a kind', async () => {
    const project = await registered(
      JSON.stringify({
        version: 1,
        tools: [{ name: 'only-first', path: 'a/first', description: 'Registered' }],
        resources: [],
      }),
    );
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(0);
    expect(report.tools.map((tool) => tool.name)).toEqual(['only-first']);
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.tools[0]).toMatchObject({ name: 'only-first', description: 'Registered' });
    expect(manifest.capabilities.resources).toEqual([]);
  });

  // Every other way the file can be invalid is refused the same way (test/unit/register-json.test.ts).
  it('fails the build loudly on a path escaping the project, writing nothing', async () => {
    const reason = /tools\[0\]\.path "\.\.\/\.\.\/etc\/passwd" leaves tools/;
    const project = await registered('{ "version": 1, "tools": [{"name": "x", "path": "../../etc/passwd"}] }');
    const { code, stderr, report } = await buildJson(project);
    expect(code).toBe(1);
    expect(stderr).toMatch(/REGISTER_INVALID/);
    expect(stderr).toMatch(reason);
    expect(report).toEqual({
      ok: false,
      error: { code: 'REGISTER_INVALID', message: expect.stringMatching(reason), hint: expect.any(String) },
    });
    expect(await exists(path.join(project, 'dist'))).toBe(false);
  });
});

describe('prompts', () => {
  it('lists prompts with their arguments, stores the template, and reports a template with an unknown placeholder', async () => {
    const project = await makeProject({
      files: {
        'prompts/review.md': 'Review {{code}} for a {{level}} reader.',
        'prompts/review.md.meta.json': JSON.stringify({
          description: 'Review code',
          arguments: {
            type: 'object',
            properties: {
              code: { type: 'string', description: 'The code' },
              level: { type: 'string', enum: ['new', 'expert'] },
            },
            required: ['code'],
          },
        }),
        'prompts/typo.txt': 'Hello {{nmae}}',
        'prompts/typo.txt.meta.json': JSON.stringify({
          arguments: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.failures).toEqual([
      {
        path: 'prompts/typo.txt',
        message: expect.stringContaining('uses {{nmae}} but its arguments do not declare it'),
      },
    ]);
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.prompts).toEqual([
      {
        name: 'review',
        description: 'Review code',
        arguments: [
          { name: 'code', description: 'The code', required: true },
          { name: 'level', required: false },
        ],
      },
    ]);
    expect(await readJson(path.join(project, 'dist/prompts/review.json'))).toMatchObject({
      template: 'Review {{code}} for a {{level}} reader.',
      role: 'user',
    });
    expect(await readJson(path.join(project, 'dist/completions.json'))).toMatchObject({
      'ref/prompt': { review: { level: ['new', 'expert'] } },
    });
  });
});

describe('resource templates and Markdown resources', () => {
  it('refuses the second of two resources whose URIs map to one tree file, and keeps the first with its raw-name copy', async () => {
    const project = await makeProject({
      files: {
        'resources/first.md': '# First\n\nThe first page.\n',
        'resources/first.md.meta.json': JSON.stringify({ uri: 'docs://Guide.md' }),
        'resources/second.md': '# Second\n\nThe second page.\n',
        'resources/second.md.meta.json': JSON.stringify({ uri: 'file:///Guide.md' }),
      },
    });
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.failures).toEqual([
      {
        path: 'resources/second.md',
        message: expect.stringContaining('its URI file:///Guide.md and docs://Guide.md both map to resources/'),
      },
    ]);
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.resources.map((resource) => resource.uri)).toEqual(['docs://Guide.md']);
    // The one raw-name copy (where other bridges look) is the first resource's file.
    expect(await readJson(path.join(project, 'dist/resources/Guide.md.json'))).toMatchObject({
      uri: 'docs://Guide.md',
      text: expect.stringContaining('The first page.'),
    });
  });

  it('precomputes template instances from a provider, and skips (and reports) a template without a variable or with both uri and uriTemplate', async () => {
    const project = await makeProject({
      tools: { 'p/echo': 'echo-value' },
      files: {
        'resources/echoes.meta.json': JSON.stringify({
          name: 'echoes',
          uriTemplate: 'echo://{value}',
          provider: 'tools/p/echo',
          values: { value: ['one', 'two words'] },
        }),
        'resources/static.meta.json': JSON.stringify({ name: 'static', uriTemplate: 'echo://fixed' }),
        'resources/both.meta.json': JSON.stringify({ name: 'both', uri: 'echo://x', uriTemplate: 'echo://{x}' }),
        'resources/notes.md': '---\ntitle: Release notes\n---\n\n# Ignored heading\n\nWhat changed.\n',
        'resources/guide.md': '# The *guide*\n\nRead me **first**.\n',
      },
    });
    const { code, report } = await buildInProcess(project);
    // 003_*: an invalid template is skipped, the rest is built, and the exit code tells CI.
    expect(code).toBe(1);
    expect(report.failures).toEqual(
      expect.arrayContaining([
        { path: 'resources/static.meta.json', message: expect.stringContaining('has no {variable}') },
        { path: 'resources/both.meta.json', message: expect.stringContaining('sets both "uri" and "uriTemplate"') },
      ]),
    );
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.resourceTemplates).toEqual([{ name: 'echoes', uriTemplate: 'echo://{value}' }]);
    expect(await readJson(path.join(project, 'dist/resources/two_20words.json'))).toEqual({
      uri: 'echo://two%20words',
      mimeType: 'text/plain',
      text: 'two words\n',
    });
    expect(manifest.capabilities.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          uri: 'resource://guide.md',
          title: 'The guide',
          description: 'Read me first.',
          mimeType: 'text/markdown',
        }),
        expect.objectContaining({ uri: 'resource://notes.md', title: 'Release notes', description: 'What changed.' }),
      ]),
    );
  });
});

describe('guardrails', () => {
  it('warns above 500 items of one kind, and refuses a manifest over limits.maxManifestBytes before writing anything', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 501; index++) files[`resources/r${index}.txt`] = `resource ${index}`;
    // No search index: the warning is about mcp.json, and indexing 501 texts is search's own test.
    // mcp.json lists 100 resources inline by default (the rest go to list parts): this one lists all.
    const many = await makeProject({ files, config: { search: false, limits: { resourcesInManifest: 1000 } } });
    const { code, report } = await buildInProcess(many);
    expect(code).toBe(0);
    expect(report.warnings).toEqual([
      { path: 'mcp.json', message: expect.stringContaining('501 resources (over 500)') },
    ]);

    // 60 resources already make a manifest over 4 KiB.
    const some = Object.fromEntries(Object.entries(files).slice(0, 60));
    const tooLarge = await makeProject({ files: some, config: { limits: { maxManifestBytes: 4096 } } });
    // In-process: a build stopped by its error prints it as the REGISTER_INVALID case above shows.
    const refused = await buildInProcess(tooLarge);
    expect(refused.code).toBe(1);
    expect(refused.error?.code).toBe('MANIFEST_TOO_LARGE');
    expect(`${refused.error?.message} ${refused.error?.hint}`).toMatch(/raise limits\.maxManifestBytes/);
    expect(await exists(path.join(tooLarge, 'dist'))).toBe(false);
  });
});

describe('a symlink loop in resources/', () => {
  it('is reported once and every other resource is still built', async () => {
    const project = await makeProject({ files: { 'resources/docs/a.txt': 'A' } });
    await fs.symlink('..', path.join(project, 'resources/docs/loop'));
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    expect(report.failures).toEqual([{ path: 'resources/docs/loop', message: expect.stringContaining('a loop') }]);
    const manifest = await readJson<ManifestJson>(path.join(project, 'dist/mcp.json'));
    expect(manifest.capabilities.resources.map((resource) => resource.uri)).toEqual(['resource://docs/a.txt']);
  });
});
