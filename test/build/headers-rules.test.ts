// The tree's `_headers` applied the way Cloudflare Pages and Netlify apply it: every rule whose
// pattern matches a path adds its headers, and two rules that set one header for one path give
// that header both values joined with ", " (so `/*.json` beside `/mcp.json` once gave mcp.json
// "max-age=300, …, max-age=60", and a cache reading the first kept it five minutes). A packed
// tree's packs are immutable; an unpacked tree's _headers has no rule for them.
// The example is the run's one CLI build; the other trees are built in-process
// (test/helpers/in-process-build.ts), which writes _headers as the CLI does.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../src/hosts/node/http/headers-file.js';
import { readTree } from '../helpers/files.js';
import { buildFixtureInProcess, buildInProcess } from '../helpers/in-process-build.js';
import { builtExample } from '../helpers/example.js';
import { makeProject } from '../helpers/projects.js';

/** Each header name a path gets, with every value the matching rules give it. */
function headersAsHostsApplyThem(headersFile: string, urlPath: string): Map<string, string[]> {
  const joined = new Map<string, string[]>();
  for (const rule of parseHeadersFile(headersFile)) {
    if (!rule.pattern.test(urlPath)) continue;
    for (const [name, value] of rule.headers) {
      const key = name.toLowerCase();
      joined.set(key, [...(joined.get(key) ?? []), value]);
    }
  }
  return joined;
}

let tree: string;
let headersFile: string;
let paths: string[];

beforeAll(async () => {
  tree = path.join(builtExample(), 'dist');
  headersFile = readFileSync(path.join(tree, '_headers'), 'utf8');
  paths = [...(await readTree(tree)).keys()].map((file) => `/${file}`);
});

describe("the tree's _headers on Cloudflare and Netlify", () => {
  it('gives every file of the tree each header at most once', () => {
    expect(paths.length).toBeGreaterThan(20);
    for (const urlPath of [...paths, '/', '/tools/not/in/the/tree.json', '/404.html']) {
      for (const [name, values] of headersAsHostsApplyThem(headersFile, urlPath))
        expect(values, `${name} of ${urlPath}`).toHaveLength(1);
    }
  });

  it('keeps mcp.json fresh for a minute and answers for the TTL, and labels nothing JSON itself', () => {
    const cacheOf = (urlPath: string): string[] | undefined =>
      headersAsHostsApplyThem(headersFile, urlPath).get('cache-control');
    expect(cacheOf('/mcp.json')).toEqual(['public, max-age=60, must-revalidate']);
    expect(cacheOf('/tools/capital/japan.json')).toEqual(['public, max-age=300, must-revalidate']);
    expect(cacheOf('/resources/guide_md.json')).toEqual(['public, max-age=300, must-revalidate']);
    expect(cacheOf('/completions.json')).toEqual(['public, max-age=300, must-revalidate']);
    // The hosts type .json files themselves; a rule would label their HTML page for a miss as JSON.
    for (const urlPath of paths) expect(headersAsHostsApplyThem(headersFile, urlPath).has('content-type')).toBe(false);
  });

  it('ships a 404.html, so a host answers a missing path with 404 rather than the landing page', () => {
    const notFound = readFileSync(path.join(tree, '404.html'), 'utf8');
    expect(notFound).toContain('<h1>Not found</h1>');
    expect(notFound).toContain('staticmcp example server');
  });
});

describe('_headers of a tree with discovery files', () => {
  let discoveryHeaders: string;
  let discoveryPaths: string[];
  beforeAll(async () => {
    const project = await makeProject({
      tools: { ok: 'ok' },
      config: {
        name: 'weather',
        publicUrl: 'https://mcp.example.com',
        registryAuth: 'v=MCPv1; k=ed25519; p=O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik=',
      },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    const built = path.join(project, 'dist');
    discoveryHeaders = readFileSync(path.join(built, '_headers'), 'utf8');
    discoveryPaths = [...(await readTree(built)).keys()].map((file) => `/${file}`);
  });

  it('types the card and the catalog, lets any origin read them, and still sets each header once per path', () => {
    expect(discoveryPaths).toEqual(
      expect.arrayContaining(['/mcp/server-card', '/.well-known/ai-catalog.json', '/.well-known/mcp-registry-auth']),
    );
    for (const urlPath of [...discoveryPaths, '/mcp', '/mcp/other', '/.well-known/security.txt'])
      for (const [name, values] of headersAsHostsApplyThem(discoveryHeaders, urlPath))
        expect(values, `${name} of ${urlPath}`).toHaveLength(1);
    const card = headersAsHostsApplyThem(discoveryHeaders, '/mcp/server-card');
    expect(card.get('content-type')).toEqual(['application/mcp-server-card+json']);
    expect(card.get('access-control-allow-origin')).toEqual(['*']);
    expect(card.get('access-control-expose-headers')).toEqual(['ETag']);
    expect(card.get('cache-control')).toEqual(['public, max-age=3600']);
    const catalog = headersAsHostsApplyThem(discoveryHeaders, '/.well-known/ai-catalog.json');
    expect(catalog.get('content-type')).toEqual(['application/ai-catalog+json']);
    expect(catalog.get('access-control-allow-origin')).toEqual(['*']);
    expect(headersAsHostsApplyThem(discoveryHeaders, '/.well-known/mcp-registry-auth').get('content-type')).toEqual([
      'text/plain; charset=utf-8',
    ]);
    // Only the discovery files are typed by a rule: a miss elsewhere keeps the host's own type.
    expect(headersAsHostsApplyThem(discoveryHeaders, '/mcp/other').has('content-type')).toBe(false);
  });
});

describe('_headers of a packed tree (issue #24)', () => {
  let packedHeaders: string;
  let packedPaths: string[];
  let plainHeaders: string;
  beforeAll(async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { tools: { echo: { values: { value: ['a', 'b', 'c', 'd', 'e', 'f'] } } } },
    });
    const packed = path.join(project, 'packed');
    const plain = path.join(project, 'plain');
    expect((await buildInProcess(project, { outDir: packed, maxCallFiles: 2 })).code).toBe(0);
    expect((await buildInProcess(project, { outDir: plain, maxCallFiles: 0 })).code).toBe(0);
    packedHeaders = readFileSync(path.join(packed, '_headers'), 'utf8');
    plainHeaders = readFileSync(path.join(plain, '_headers'), 'utf8');
    packedPaths = [...(await readTree(packed)).keys()].map((file) => `/${file}`);
  });

  it('makes packs and indexes immutable in caches (their names are their content), each header once', () => {
    const packFiles = packedPaths.filter((urlPath) => urlPath.startsWith('/packs/echo/'));
    expect(packFiles.some((urlPath) => urlPath.endsWith('.pack'))).toBe(true);
    expect(packFiles.some((urlPath) => urlPath.endsWith('.idx'))).toBe(true);
    for (const urlPath of packFiles) {
      const headers = headersAsHostsApplyThem(packedHeaders, urlPath);
      expect(headers.get('cache-control'), urlPath).toEqual(['public, max-age=31536000, immutable']);
      expect(headers.get('x-content-type-options'), urlPath).toEqual(['nosniff']);
    }
    for (const urlPath of [...packedPaths, '/packs/echo/0000000000000000.pack', '/mcp.json'])
      for (const [name, values] of headersAsHostsApplyThem(packedHeaders, urlPath))
        expect(values, `${name} of ${urlPath}`).toHaveLength(1);
    // mcp.json, which names the packs, stays fresh for a minute: a new build is seen within it.
    expect(headersAsHostsApplyThem(packedHeaders, '/mcp.json').get('cache-control')).toEqual([
      'public, max-age=60, must-revalidate',
    ]);
  });

  it('leaves an unpacked tree’s _headers without the rule (and otherwise equal)', () => {
    expect(plainHeaders).not.toContain('/packs/');
    expect(packedHeaders.startsWith(plainHeaders)).toBe(true);
  });
});

describe('_headers of a tree with skills (issue #42)', () => {
  let skillsHeaders: string;
  let skillPaths: string[];
  beforeAll(async () => {
    const built = path.join(await buildFixtureInProcess('skills-project'), 'dist');
    skillsHeaders = readFileSync(path.join(built, '_headers'), 'utf8');
    skillPaths = [...(await readTree(built)).keys()].map((file) => `/${file}`).filter((p) => p.startsWith('/skills/'));
  });

  it('keeps skill files and skills/list.json fresh for the TTL, each header once; no rule without skills', () => {
    expect(skillPaths).toEqual(
      expect.arrayContaining(['/skills/list.json', '/skills/files/greeting-etiquette/skill_md.json']),
    );
    for (const urlPath of skillPaths) {
      const headers = headersAsHostsApplyThem(skillsHeaders, urlPath);
      expect(headers.get('cache-control'), urlPath).toEqual(['public, max-age=300, must-revalidate']);
      for (const [name, values] of headers) expect(values, `${name} of ${urlPath}`).toHaveLength(1);
    }
    expect(headersFile).not.toContain('/skills/');
  });
});
