// What a build adds for edge hosts and registries: server.json when the project names its public
// URL, the remote URL first on index.html, refusals of malformed deploy settings, and warnings
// when the tree passes Cloudflare's limits.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addToTally,
  checkCallFileBudget,
  checkHostLimits,
  createTreeTally,
  DEFAULT_MAX_CALL_FILES,
} from '../../src/builder/host-limits.js';
import { PUBLISHED_ON_NPM, STATICMCP_COMMAND } from '../../src/shared/staticmcp-command.js';
import { runCli } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { makeProject } from '../helpers/projects.js';

describe('deploy settings in staticmcp.json', () => {
  it('writes server.json for the MCP Registry and leads index.html with the remote URL', async () => {
    const description = `Answers ${'many questions '.repeat(10)}`;
    const project = await makeProject({
      tools: { ok: 'ok' },
      config: {
        name: 'weather',
        version: '2.1.0',
        description,
        publicUrl: 'https://mcp.example.com/',
        registryName: 'com.example/weather',
      },
    });
    const { code, error } = await buildInProcess(project);
    expect(code, error?.message).toBe(0);
    const serverJson = JSON.parse(await fs.readFile(path.join(project, 'dist', 'server.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(serverJson).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'com.example/weather',
      description: expect.stringMatching(/^Answers many questions .*…$/),
      version: '2.1.0',
      websiteUrl: 'https://mcp.example.com/',
      remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }],
      // The registry checks each package it lists: the npm one only once staticmcp is published.
      ...(PUBLISHED_ON_NPM
        ? {
            packages: [
              {
                registryType: 'npm',
                identifier: 'staticmcp',
                version: expect.stringMatching(/^\d+\.\d+\.\d+/),
                runtimeHint: 'npx',
                transport: { type: 'stdio' },
                packageArguments: [
                  { type: 'positional', value: 'serve' },
                  { type: 'positional', value: 'https://mcp.example.com/' },
                ],
              },
            ],
          }
        : {}),
    });
    expect((serverJson.description as string).length).toBeLessThanOrEqual(100);
    const page = await fs.readFile(path.join(project, 'dist', 'index.html'), 'utf8');
    const remote = page.indexOf('https://mcp.example.com/mcp');
    const stdio = page.indexOf(`${STATICMCP_COMMAND.join(' ')} serve https://mcp.example.com/`);
    expect(remote).toBeGreaterThan(0);
    expect(stdio).toBeGreaterThan(remote);
  });

  it('shows on index.html only a command that runs staticmcp today, the same in every client snippet', async () => {
    const project = await makeProject({
      tools: { ok: 'ok' },
      config: { name: 'weather', publicUrl: 'https://mcp.example.com' },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    const page = await fs.readFile(path.join(project, 'dist', 'index.html'), 'utf8');
    // The snippets are HTML-escaped (quotes as &#34;): read as the page shows them.
    const snippets = [...page.matchAll(/<pre class="snippet">([\s\S]*?)<\/pre>/g)].map(([, text]) =>
      (text ?? '').replace(/&#(\d+);/g, (_entity, code: string) => String.fromCharCode(Number(code))),
    );
    if (!PUBLISHED_ON_NPM) expect(snippets.join('\n')).not.toMatch(/npx (-y )?staticmcp|"npx"/);
    const commandLine = [...STATICMCP_COMMAND, 'serve', 'https://mcp.example.com/'];
    expect(snippets).toContain(commandLine.join(' '));
    expect(snippets).toContain(`claude mcp add weather -- ${commandLine.join(' ')}`);
    // Claude Desktop, VS Code and Cursor, each with the same command.
    const configs = snippets
      .filter((text) => text.startsWith('{') && text.includes('"command"'))
      .map((json) => JSON.parse(json) as Record<string, { weather: { command: string; args: string[] } }>);
    expect(configs).toHaveLength(3);
    for (const config of configs) {
      const [servers] = Object.values(config);
      expect([servers?.weather.command, ...(servers?.weather.args ?? [])]).toEqual(commandLine);
    }
  });

  it('writes no server.json without a public URL, and names the registry entry after the host when no name is given', async () => {
    const plain = await makeProject({ tools: { ok: 'ok' } });
    expect((await buildInProcess(plain)).code).toBe(0);
    await expect(fs.access(path.join(plain, 'dist', 'server.json'))).rejects.toThrow();

    const derived = await makeProject({
      tools: { ok: 'ok' },
      config: { name: 'my tools', publicUrl: 'https://tools.example.org' },
    });
    expect((await buildInProcess(derived)).code).toBe(0);
    const serverJson = JSON.parse(await fs.readFile(path.join(derived, 'dist', 'server.json'), 'utf8')) as {
      name: string;
    };
    expect(serverJson.name).toBe('org.example.tools/my-tools');
  });

  it('records the allowed origins where the worker reads them', async () => {
    const project = await makeProject({
      tools: { ok: 'ok' },
      config: { http: { allowedOrigins: ['https://claude.ai', 'http://localhost:6274'] } },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    const manifest = JSON.parse(await fs.readFile(path.join(project, 'dist', 'mcp.json'), 'utf8')) as {
      staticmcp: { http?: unknown };
    };
    expect(manifest.staticmcp.http).toEqual({ allowedOrigins: ['https://claude.ai', 'http://localhost:6274'] });
  });

  for (const [name, config, expected] of [
    ['a public URL that is not http(s)', { publicUrl: 'ftp://example.com' }, /publicUrl/],
    ['an origin with a path', { http: { allowedOrigins: ['https://claude.ai/'] } }, /allowedOrigins/],
    ['an unknown http key', { http: { allowedOrigin: ['*'] } }, /unknown field "allowedOrigin"/],
    [
      'a registry name without a namespace',
      { publicUrl: 'https://a.example', registryName: 'weather' },
      /registryName/,
    ],
  ] as const) {
    it(`refuses ${name}`, async () => {
      const project = await makeProject({ tools: { ok: 'ok' }, config });
      // The first refusal through the CLI (what it prints, its exit code); the others through the
      // build command's decision in-process, which refuses with the same error.
      const viaCli = name === 'a public URL that is not http(s)';
      const { code, stderr } = viaCli
        ? await runCli(['build', project])
        : await buildInProcess(project).then(({ code, error }) => ({
            code,
            stderr: error ? `${error.code}: ${error.message}\n${error.hint}` : '',
          }));
      // Exit 1, as for every unusable staticmcp.json: the command line itself was fine.
      expect(code).toBe(1);
      expect(stderr).toMatch(/CONFIG_INVALID/);
      expect(stderr).toMatch(expected);
      await expect(fs.access(path.join(project, 'dist'))).rejects.toThrow();
    });
  }
});

describe('host limits', () => {
  const tallyOf = (entries: [string, number][]) => {
    const tally = createTreeTally();
    for (const [filePath, bytes] of entries) addToTally(tally, filePath, bytes);
    return tally;
  };
  const files = (count: number) =>
    tallyOf(Array.from({ length: count }, (_, index): [string, number] => [`tools/t/${index}.json`, 2]));

  it('says nothing for a tree every plan takes', () => {
    expect(checkHostLimits(files(20_000))).toEqual([]);
  });

  it('warns past the free plan and past every plan, with what to do', () => {
    expect(checkHostLimits(files(20_001))).toEqual([
      {
        path: '.',
        message: expect.stringMatching(
          /^20001 files: over the 20,000 files Cloudflare Pages accepts on the free plan \(100,000 on paid plans\); lower limits\.maxCallsPerTool/,
        ),
      },
    ]);
    expect(checkHostLimits(files(100_001))).toEqual([
      {
        path: '.',
        message: expect.stringMatching(/over the 100,000 files Cloudflare Pages accepts in one deployment on any plan/),
      },
    ]);
  });

  it('decides a tree needs packs past its call-file budget, counting only the files under tools/', () => {
    const tree = tallyOf([
      ...Array.from({ length: 3 }, (_, index): [string, number] => [`tools/t/${index}.json`, 2]),
      ['tools/plain.json', 2],
      ['resources/a_txt.json', 2],
      ['mcp.json', 2],
    ]);
    expect(tree).toMatchObject({ files: 6, callFiles: 4 });
    expect(checkCallFileBudget(tree.callFiles, 4, undefined)).toEqual([]);
    expect(checkCallFileBudget(tree.callFiles, 0, undefined)).toEqual([]);
    expect(checkCallFileBudget(tree.callFiles, 3, undefined)).toEqual([
      {
        path: '.',
        message: expect.stringMatching(
          /^this tree needs packs: 4 call files over a budget of 3 \(limits\.maxCallFiles in staticmcp\.json, or --max-call-files\)/,
        ),
      },
    ]);
    expect(checkCallFileBudget(files(20_001).callFiles, DEFAULT_MAX_CALL_FILES, undefined)[0]?.message).toContain(
      '20,001 call files over a budget of 19,000',
    );
  });

  it('names files over 25 MiB', () => {
    const big = tallyOf([
      ['resources/huge.json', 25 * 1024 * 1024 + 1],
      ['resources/fine.json', 25 * 1024 * 1024],
    ]);
    expect(checkHostLimits(big)).toEqual([
      {
        path: 'resources/huge.json',
        message: expect.stringContaining('over 25 MiB, the largest file Cloudflare Pages and Workers serve'),
      },
    ]);
  });

  it('warns past the 1 GB GitHub Pages publishes, with what to do', () => {
    const tenMegabytes = (count: number, extraBytes = 0) =>
      tallyOf(
        Array.from({ length: count }, (_, index): [string, number] => [`resources/${index}.json`, 10_000_000]).concat([
          ['resources/last.json', extraBytes],
        ]),
      );
    expect(checkHostLimits(tenMegabytes(100))).toEqual([]);
    expect(checkHostLimits(tenMegabytes(100, 1))).toEqual([
      {
        path: '.',
        message: expect.stringMatching(
          /^1,000,000,001 bytes: over the 1 GB GitHub Pages publishes for one site; lower/,
        ),
      },
    ]);
  });
});
