// The static site of `serve --http` on this machine: no spelling of a dotfile or a host's control
// file reaches its bytes (`//_worker.js` once did: the filter read `//x` as a host while
// serve-handler read it as a path), and a web page from an origin /mcp refuses cannot read the
// tree either (the tree's `_headers` once gave every page `Access-Control-Allow-Origin: *`),
// while the discovery documents under /.well-known/ stay readable by all.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, rawRequest } from '../helpers/http-serve.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import { writeProject, writeTree } from '../helpers/projects.js';

const SECRET = 'token-that-must-stay-home';
const TOOL = `#!/bin/sh
if [ "$1" = "--help" ]; then echo '{"description": "Says hi"}'; exit 0; fi
echo hi
`;
const APP = 'https://app.example';
const STRANGER = 'https://evil.example';

let built: HttpServe;
let openTree: HttpServe;

beforeAll(async () => {
  const project = await writeProject({
    'tools/hi': { script: TOOL },
    'staticmcp.json': JSON.stringify({ http: { allowedOrigins: [APP] } }),
    'public/.well-known/mcp/server-card.json': JSON.stringify({ name: 'card' }),
  });
  // Built in-process (the build command's decision): serve --http is what is under test.
  await buildTreeInProcess(project);
  const dist = path.join(project, 'dist');
  // What an output folder that is also a gh-pages worktree, or a project's root, may hold.
  mkdirSync(path.join(dist, '.git'));
  writeFileSync(path.join(dist, '.git', 'config'), `[remote]\n  url = https://x:${SECRET}@github.com/a/b\n`);
  writeFileSync(path.join(dist, '.env'), `TOKEN=${SECRET}\n`);
  writeFileSync(path.join(dist, '_redirects'), `/* /${SECRET} 200\n`);
  writeFileSync(path.join(dist, '_worker.js'), `export default { secret: '${SECRET}' };\n`);
  writeFileSync(path.join(dist, '.well-known', '.hidden'), SECRET);
  // A link inside the tree to a hidden name must not reveal it either.
  symlinkSync('.env', path.join(dist, 'notes.txt'));
  const open = await writeTree({
    'mcp.json': {
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'open', version: '1' },
      capabilities: { tools: [], resources: [] },
      staticmcp: { http: { allowedOrigins: ['*'] } },
    },
  });
  [built, openTree] = await Promise.all([HttpServe.start([dist]), HttpServe.start([open])]);
});

afterAll(async () => {
  await Promise.all([built?.stop(), openTree?.stop()]);
});

describe('serve --http never serves a dotfile or a control file', () => {
  it.each([
    '/_worker.js',
    '//_worker.js',
    '///_worker.js',
    '/./_worker.js',
    '/%2F_worker.js',
    '/%5fworker.js',
    '/_worker%2ejs',
    '/_worker.js/',
    '/_worker.js/.',
    '/_WORKER.JS',
    '/_worker.js.',
    '/_worker.js%20',
    '/_worker.js::$DATA',
    '/_worker.js;x=1',
    '/\\_worker.js',
    '/%5C_worker.js',
    '/tools/..//_worker.js',
    '/tools/%2e%2e/_worker.js',
    '/%2e%2e/_worker.js',
    '/_worker.js?download=1',
    '/_headers',
    '//_headers',
    '/_Headers',
    '/_routes.json',
    '//_routes.json',
    '/_redirects',
    '//_redirects',
    '/.assetsignore',
    '//.assetsignore',
    '/.nojekyll',
    '/.git/config',
    '//.git/config',
    '/%2egit/config',
    '/.git%2fconfig',
    '/.GIT/config',
    '/.env',
    '//.env',
    '/%2e%65nv',
    '/tools/../.env',
    '/notes.txt',
    '/.well-known/.hidden',
    '/.well-known/../.env',
    '/.well-known/%2e%2e/.env',
  ])('%s answers 404 without the file', async (target) => {
    const answer = await rawRequest(built.port, { path: target });
    expect(answer.status, target).toBe(404);
    expect(answer.text, target).toBe('Not Found\n');
  });

  it('still serves the tree (mcp.json, index.html, the discovery folder)', async () => {
    const manifest = await rawRequest(built.port, { path: '/mcp.json' });
    expect(manifest.status).toBe(200);
    expect(JSON.parse(manifest.text).capabilities.tools[0].name).toBe('hi');
    expect((await rawRequest(built.port, { path: '//mcp.json' })).status).toBe(200);
    expect((await rawRequest(built.port, { path: '/' })).status).toBe(200);
    expect((await rawRequest(built.port, { path: '/.well-known/mcp/server-card.json' })).text).toContain('card');
  });
});

describe("who may read the site: /mcp's origin rule", () => {
  it('refuses a page from an origin /mcp refuses: 403 and no CORS header', async () => {
    const answer = await rawRequest(built.port, { path: '/mcp.json', headers: { origin: STRANGER } });
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.text).toMatch(/http\.allowedOrigins/);
    expect(answer.text).not.toContain('"capabilities"');
    const mcp = await rawRequest(built.port, { method: 'POST', path: '/mcp', headers: { origin: STRANGER } });
    expect(mcp.status).toBe(403);
  });

  it("refuses another site's <script>/<img> load (no Origin, Sec-Fetch-Site: cross-site) but not a link followed", async () => {
    const crossSite = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' };
    expect((await rawRequest(built.port, { path: '/mcp.json', headers: crossSite })).status).toBe(403);
    const followed = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    expect((await rawRequest(built.port, { path: '/', headers: followed })).status).toBe(200);
  });

  it('lets a listed origin and a page on this machine read, named per origin (never *)', async () => {
    for (const origin of [APP, 'http://localhost:5173']) {
      const answer = await rawRequest(built.port, { path: '/mcp.json', headers: { origin } });
      expect(answer.status, origin).toBe(200);
      expect(answer.headers['access-control-allow-origin'], origin).toBe(origin);
      expect(answer.headers.vary, origin).toMatch(/Origin/i);
    }
    const plain = await rawRequest(built.port, { path: '/mcp.json' });
    expect(plain.status).toBe(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps /.well-known/ readable by every page', async () => {
    const card = await rawRequest(built.port, {
      path: '/.well-known/mcp/server-card.json',
      headers: { origin: STRANGER },
    });
    expect(card.status).toBe(200);
    expect(card.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(card.text).name).toBe('card');
  });

  it('opens the site to every page when the project lists "*"', async () => {
    const answer = await rawRequest(openTree.port, { path: '/mcp.json', headers: { origin: STRANGER } });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(STRANGER);
  });
});
