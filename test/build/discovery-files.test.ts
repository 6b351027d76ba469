// The discovery files a build writes beside server.json (server card at /mcp/server-card, AI
// Catalog at /.well-known/ai-catalog.json), read from real built trees: they follow the pinned
// schemas, agree with server.json and with what `serve` answers to server/discover and initialize
// (the card's _meta names the extensions it declares: the project has a skill),
// are served with their media type and to any origin by `serve --http`, and `check` reports a
// tampered card. Then the names a registry can verify, and the publicUrls that announce nothing.
// Builds and checks run in-process (the build command's buildOrReplay, the check command's
// checkSource); what those commands print is build-behaviour's and check's to show.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_VERSIONS } from '../../src/core/mcp/protocol-versions.js';
import { validateServerCard, validateServerJson } from '../../src/tree-writer/discovery-schemas.js';
import { checkSource } from '../../src/cli/commands/check.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { HttpServe, post, rawRequest } from '../helpers/http-serve.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { modernHeaders } from '../protocol-table/drivers.js';
import { MODERN_META } from '../protocol-table/modern-cases.js';

type Json = Record<string, unknown>;

/** What `check <tree> --json` decides (the command's checkSource, in-process): exit code and report. */
async function checkInProcess(tree: string): Promise<{ code: number; report: Json }> {
  const { report } = await checkSource(tree);
  return { code: report.ok ? 0 : 1, report: report as unknown as Json };
}

async function readJsonFile(file: string): Promise<Json> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as Json;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

const CONFIG = {
  name: 'weather',
  version: '2.1.0',
  title: 'Weather',
  description: 'Forecasts for a few cities',
  publicUrl: 'https://mcp.example.com/',
  registryAuth: 'v=MCPv1; k=ed25519; p=O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=',
};

let project: string;
let tree: string;

beforeAll(async () => {
  project = await makeProject({
    tools: { ok: 'ok' },
    config: CONFIG,
    files: {
      'public/.well-known/security.txt': 'Contact: mailto:security@example.com\n',
      'skills/forecasts/SKILL.md': '---\nname: forecasts\ndescription: Read a forecast with the ok tool.\n---\n',
    },
  });
  const { code, error } = await buildInProcess(project);
  expect(code, error?.message).toBe(0);
  tree = path.join(project, 'dist');
});

describe('the server card and the AI Catalog of a built tree', () => {
  it('follow their pinned schemas and agree with server.json', async () => {
    const card = await readJsonFile(path.join(tree, 'mcp', 'server-card'));
    const serverJson = await readJsonFile(path.join(tree, 'server.json'));
    expect(validateServerCard(card)).toEqual([]);
    expect(validateServerJson(serverJson)).toEqual([]);
    for (const field of ['name', 'version', 'description', 'title', 'websiteUrl'])
      expect(card[field], field).toEqual(serverJson[field]);
    expect(card).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'com.example.mcp/weather',
      remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }],
    });
    expect(serverJson.remotes).toEqual([{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }]);
    expect(await readJsonFile(path.join(tree, '.well-known', 'ai-catalog.json'))).toEqual({
      specVersion: '1.0',
      entries: [
        {
          identifier: 'urn:air:mcp.example.com:mcp:weather',
          type: 'application/mcp-server-card+json',
          url: 'https://mcp.example.com/mcp/server-card',
        },
      ],
    });
    // The registry's HTTP proof, and the user's own .well-known file beside the build's.
    expect(await fs.readFile(path.join(tree, '.well-known', 'mcp-registry-auth'), 'utf8')).toBe(
      `${CONFIG.registryAuth}\n`,
    );
    expect(await exists(path.join(tree, '.well-known', 'security.txt'))).toBe(true);
  });

  describe('served by serve --http', () => {
    let server: HttpServe;
    beforeAll(async () => {
      server = await HttpServe.start([tree]);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('agrees with what server/discover and initialize answer', async () => {
      const card = await readJsonFile(path.join(tree, 'mcp', 'server-card'));
      const [remote] = card.remotes as { supportedProtocolVersions: string[] }[];
      const params = { _meta: MODERN_META };
      const discover = (
        await post(
          server.port,
          { jsonrpc: '2.0', id: 1, method: 'server/discover', params },
          modernHeaders('server/discover', params),
        )
      ).json().result as Json;
      const serverInfo = (discover._meta as Json)['io.modelcontextprotocol/serverInfo'] as Json;
      expect(serverInfo).toMatchObject({ name: CONFIG.name, version: card.version, title: card.title });
      // The card's _meta names the extensions server/discover declares (here Skills), with its settings.
      expect(card._meta).toEqual((discover.capabilities as Json).extensions);
      expect(card._meta).toEqual({ 'io.modelcontextprotocol/skills': { directoryRead: true } });
      // Every version server/discover lists is on the card, and every other one the card lists is
      // one initialize agrees on.
      for (const version of discover.supportedVersions as string[])
        expect(remote?.supportedProtocolVersions).toContain(version);
      const legacy = remote?.supportedProtocolVersions.filter(
        (version) => !(discover.supportedVersions as string[]).includes(version),
      );
      expect(legacy).toEqual([...SUPPORTED_VERSIONS]);
      for (const version of legacy ?? []) {
        const answer = await post(server.port, {
          jsonrpc: '2.0',
          id: 2,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'card-test', version: '1' } },
        });
        const body = answer.text.startsWith('{') ? answer.json() : JSON.parse(/data: (.*)/.exec(answer.text)![1]!);
        expect(body.result?.protocolVersion, version).toBe(version);
      }
    });

    it('serves the card and the catalog with their media types to a page of any origin', async () => {
      const origin = 'https://some-other-site.example';
      const cardAnswer = await rawRequest(server.port, { path: '/mcp/server-card', headers: { origin } });
      expect(cardAnswer.status).toBe(200);
      expect(cardAnswer.headers['content-type']).toBe('application/mcp-server-card+json');
      expect(cardAnswer.headers['access-control-allow-origin']).toBe('*');
      expect(JSON.parse(cardAnswer.text)).toEqual(await readJsonFile(path.join(tree, 'mcp', 'server-card')));
      const catalogAnswer = await rawRequest(server.port, {
        path: '/.well-known/ai-catalog.json',
        headers: { origin },
      });
      expect(catalogAnswer.status).toBe(200);
      expect(catalogAnswer.headers['content-type']).toBe('application/ai-catalog+json');
      expect(catalogAnswer.headers['access-control-allow-origin']).toBe('*');
      // Other files stay behind the origin rule.
      expect((await rawRequest(server.port, { path: '/mcp.json', headers: { origin } })).status).toBe(403);
    });
  });

  describe('staticmcp check', () => {
    async function checkCopy(damage: (copy: string) => Promise<void>): Promise<{ code: number | null; report: Json }> {
      const copy = path.join(await temporaryFolder(), 'tree');
      await fs.cp(tree, copy, { recursive: true });
      await damage(copy);
      return checkInProcess(copy);
    }
    const problemsAt = (report: Json, file: string): { message: string; hint: string }[] =>
      (report.problems as { path: string; message: string; hint: string }[]).filter((problem) => problem.path === file);

    it('passes the tree as built', async () => {
      const result = await checkInProcess(tree);
      expect(result.code, JSON.stringify(result.report)).toBe(0);
    });

    it('reports a card edited after the build, with a hint to rebuild', async () => {
      const { code, report } = await checkCopy(async (copy) => {
        const file = path.join(copy, 'mcp', 'server-card');
        const card = await readJsonFile(file);
        card.version = '9.9.9';
        card.remotes = [{ type: 'streamable-http', url: 'https://elsewhere.example/mcp' }];
        await fs.writeFile(file, JSON.stringify(card));
      });
      expect(code).toBe(1);
      const messages = problemsAt(report, 'mcp/server-card');
      expect(messages.map((problem) => problem.message)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/version "9\.9\.9", but mcp\.json \(what server\/discover answers\) says "2\.1\.0"/),
          expect.stringMatching(/version "9\.9\.9", but server\.json says "2\.1\.0"/),
          expect.stringMatching(/elsewhere\.example\/mcp\) is not a remote of server\.json/),
        ]),
      );
      for (const problem of messages) expect(problem.hint).toMatch(/rebuild the tree with staticmcp build/);
    });

    it('reports a card that no longer names the Skills extension the tree serves', async () => {
      const { code, report } = await checkCopy(async (copy) => {
        const file = path.join(copy, 'mcp', 'server-card');
        const { _meta, ...card } = await readJsonFile(file);
        await fs.writeFile(file, JSON.stringify(card));
      });
      expect(code).toBe(1);
      expect(problemsAt(report, 'mcp/server-card').map((problem) => problem.message)).toEqual([
        'does not name the Skills extension (io.modelcontextprotocol/skills) in its _meta, though mcp.json serves 1 skill and server/discover declares it',
      ]);
    });

    it('reports a missing card, a catalog pointing elsewhere, and a server.json the registry would refuse', async () => {
      const { code, report } = await checkCopy(async (copy) => {
        await fs.rm(path.join(copy, 'mcp', 'server-card'));
        const serverJson = await readJsonFile(path.join(copy, 'server.json'));
        serverJson.description = 'x'.repeat(101);
        await fs.writeFile(path.join(copy, 'server.json'), JSON.stringify(serverJson));
        const catalogFile = path.join(copy, '.well-known', 'ai-catalog.json');
        const catalog = await readJsonFile(catalogFile);
        (catalog.entries as Json[])[0]!.type = 'application/json';
        await fs.writeFile(catalogFile, JSON.stringify(catalog));
      });
      expect(code).toBe(1);
      expect(problemsAt(report, 'mcp/server-card')[0]?.message).toMatch(/is missing, though server\.json is there/);
      expect(problemsAt(report, 'server.json')[0]?.message).toMatch(
        /Registry \(schema 2025-12-11\) would refuse it: server\.json\.description must NOT have more than 100 characters/,
      );
      expect(problemsAt(report, '.well-known/ai-catalog.json')[0]?.message).toMatch(
        /has no entry of type application\/mcp-server-card\+json/,
      );
    });
  });
});

describe('names the MCP Registry can verify', () => {
  async function build(
    config: Json,
  ): Promise<{ dist: string; warnings: string; failures: string; code: number | null }> {
    const built = await makeProject({ tools: { ok: 'ok' }, config: { name: 'weather', ...config } });
    const { code, report } = await buildInProcess(built);
    return {
      dist: path.join(built, 'dist'),
      code,
      warnings: report.warnings.map((warning) => `${warning.path}: ${warning.message}`).join('\n'),
      failures: report.failures.map((failure) => `${failure.path}: ${failure.message}`).join('\n'),
    };
  }

  it('writes no server.json for a *.pages.dev site without a GitHub owner, and says what to set', async () => {
    const { dist, warnings, code } = await build({ publicUrl: 'https://weather.pages.dev' });
    expect(code).toBe(0);
    expect(await exists(path.join(dist, 'server.json'))).toBe(false);
    expect(warnings).toMatch(
      /server\.json: not written: weather\.pages\.dev is a subdomain of pages\.dev, a domain you do not own.*set "githubOwner"/,
    );
    // Clients can still discover the server on the site itself.
    expect((await readJsonFile(path.join(dist, 'mcp', 'server-card'))).name).toBe('dev.pages.weather/weather');
    expect(await exists(path.join(dist, '.well-known', 'ai-catalog.json'))).toBe(true);
  });

  it('names a *.pages.dev site after githubOwner, and a GitHub Pages user site after its user', async () => {
    const pages = await build({ publicUrl: 'https://weather.pages.dev', githubOwner: 'alice' });
    expect(pages.warnings).not.toMatch(/server\.json/);
    expect((await readJsonFile(path.join(pages.dist, 'server.json'))).name).toBe('io.github.alice/weather');
    expect((await readJsonFile(path.join(pages.dist, 'mcp', 'server-card'))).name).toBe('io.github.alice/weather');
    const github = await build({ publicUrl: 'https://bob.github.io' });
    expect((await readJsonFile(path.join(github.dist, 'server.json'))).name).toBe('io.github.bob/weather');
  });

  it('fails the build with the schema finding when server.json would be refused, writing no card either', async () => {
    const { dist, code, failures } = await build({ publicUrl: 'https://mcp.example.com', title: 'T'.repeat(101) });
    expect(code).toBe(1);
    expect(failures).toMatch(
      /server\.json: not written: the MCP Registry \(schema 2025-12-11\) would refuse it: server\.json\.title must NOT have more than 100 characters;.*fix them there/,
    );
    expect(await exists(path.join(dist, 'server.json'))).toBe(false);
    expect(await exists(path.join(dist, 'mcp', 'server-card'))).toBe(false);
  });

  for (const [what, publicUrl, expected] of [
    ['is not https', 'http://mcp.example.com', /is not https: registries and clients accept only https remotes/],
    ['has a path', 'https://alice.github.io/weather/', /has a path \(\/weather\): the edge worker answers \/mcp/],
    ['is a private host', 'https://localhost:8787', /is not a public address/],
  ] as const) {
    it(`announces nothing, with a warning, when the publicUrl ${what}`, async () => {
      const { dist, code, warnings } = await build({ publicUrl });
      expect(code).toBe(0);
      expect(warnings).toMatch(expected);
      expect(warnings).toMatch(/server\.json, the server card and the AI Catalog are not written/);
      for (const file of ['server.json', 'mcp/server-card', '.well-known/ai-catalog.json'])
        expect(await exists(path.join(dist, file)), file).toBe(false);
      // The landing page still shows the address given.
      expect(await fs.readFile(path.join(dist, 'index.html'), 'utf8')).toContain(publicUrl.replace(/\/$/, ''));
    });
  }
});

describe('.well-known/ beside the build', () => {
  it("refuses public/.well-known/ai-catalog.json, and never keeps a stale catalog while keeping the user's files", async () => {
    const own = await makeProject({
      tools: { ok: 'ok' },
      config: { name: 'weather', publicUrl: 'https://mcp.example.com' },
      files: { 'public/.well-known/ai-catalog.json': '{}' },
    });
    const first = await buildInProcess(own);
    expect(first.report.failures).toContainEqual({
      path: 'public/.well-known/ai-catalog.json',
      message: expect.stringMatching(/^is not copied: the build writes \.well-known\/ai-catalog\.json itself/),
    });
    const dist = path.join(own, 'dist');
    expect((await readJsonFile(path.join(dist, '.well-known', 'ai-catalog.json'))).specVersion).toBe('1.0');
    // A file the user put in the output folder's .well-known/ (a deploy target's own), then a
    // build without publicUrl: the user's file stays, the catalog of the earlier build goes.
    await fs.writeFile(path.join(dist, '.well-known', 'mine.txt'), 'mine\n');
    await fs.rm(path.join(own, 'public'), { recursive: true });
    await fs.writeFile(path.join(own, 'staticmcp.json'), JSON.stringify({ name: 'weather' }));
    expect((await buildInProcess(own)).code).toBe(0);
    expect(await fs.readFile(path.join(dist, '.well-known', 'mine.txt'), 'utf8')).toBe('mine\n');
    expect(await exists(path.join(dist, '.well-known', 'ai-catalog.json'))).toBe(false);
    expect(await exists(path.join(dist, 'mcp'))).toBe(false);
  });
});
