// The tree's own files at `/` of `serve --http`, as a static host would serve them: index.html,
// content types, the tree's `_headers` rules, ETag and 304, no directory listings, no host
// control files, and nothing outside the tree (no `..`, no symlink that leads out).
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, rawRequest } from '../helpers/http-serve.js';
import { buildFixtureProject, writeTree } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

let example: HttpServe;
let handMade: HttpServe;
let handMadeTree: string;
const SECRET = 'secret-outside-the-tree';

beforeAll(async () => {
  const project = buildFixtureProject('fixtures/example');
  const outside = temporaryFolderSync('staticmcp-outside-');
  writeFileSync(path.join(outside, 'secret.json'), JSON.stringify({ SECRET }));
  mkdirSync(path.join(outside, 'folder'));
  writeFileSync(path.join(outside, 'folder', 'inner.json'), JSON.stringify({ SECRET }));
  const tree = await writeTree({
    'mcp.json': {
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'hand', version: '1' },
      capabilities: { tools: [], resources: [] },
    },
    _headers:
      '# a comment\n/*\n  X-Everywhere: yes\n\n/tools/*\n  X-Tools: nested\n  Cache-Control: no-store\n\n/notes/:name.txt\n  X-Note: one-segment\n',
    'tools/deep/er/answer.json': { content: [{ type: 'text', text: '42' }] },
    'notes/a.txt': 'note a',
    'notes/sub/b.txt': 'note b',
  });
  handMadeTree = tree;
  symlinkSync(path.join(outside, 'secret.json'), path.join(tree, 'leak.json'));
  symlinkSync(path.join(outside, 'folder'), path.join(tree, 'linked'));
  symlinkSync(path.join(tree, 'notes', 'a.txt'), path.join(tree, 'alias.txt'));
  [example, handMade] = await Promise.all([HttpServe.start([project]), HttpServe.start([tree])]);
});

afterAll(async () => {
  await Promise.all([example?.stop(), handMade?.stop()]);
});

describe('the built tree', () => {
  it('serves index.html at /', async () => {
    const page = await rawRequest(example.port, { path: '/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('staticmcp example server');
  });

  it("serves mcp.json and call files as JSON with the cache rules of the tree's _headers", async () => {
    const manifest = await rawRequest(example.port, { path: '/mcp.json' });
    expect(manifest.status).toBe(200);
    expect(manifest.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(manifest.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
    // The tree's `/*` CORS rule is for the deployed site; here /mcp's origin rule decides
    // (test/security/static-site-access.test.ts).
    expect(manifest.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(manifest.text).serverInfo.name).toBe('example');
    const call = await rawRequest(example.port, { path: '/tools/capital/japan.json' });
    expect(call.status).toBe(200);
    expect(call.headers['cache-control']).toBe('public, max-age=300, must-revalidate');
    expect(JSON.parse(call.text).content[0].text).toMatch(/Tokyo/);
  });

  it('answers a conditional GET with 304 when the ETag matches, 200 when it does not', async () => {
    const first = await rawRequest(example.port, { path: '/mcp.json' });
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^".+"$/);
    const again = await rawRequest(example.port, { path: '/mcp.json', headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(
      (await rawRequest(example.port, { path: '/mcp.json', headers: { 'if-none-match': '"stale"' } })).status,
    ).toBe(200);
  });

  it("lists no folders and hides the hosts' control files", async () => {
    for (const folder of ['/tools/', '/tools', '/resources/', '/tools/greet/']) {
      const answer = await rawRequest(example.port, { path: folder });
      expect(answer.status, folder).toBe(404);
      expect(answer.text).not.toContain('greet');
    }
    expect((await rawRequest(example.port, { path: '/_headers' })).status).toBe(404);
  });

  it('is read-only', async () => {
    const answer = await rawRequest(example.port, { method: 'POST', path: '/mcp.json', body: '{}' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
  });
});

describe('a hand-made tree', () => {
  it('applies every matching _headers rule (* across folders, :name within one)', async () => {
    const deep = await rawRequest(handMade.port, { path: '/tools/deep/er/answer.json' });
    expect(deep.status).toBe(200);
    expect(deep.headers['x-everywhere']).toBe('yes');
    expect(deep.headers['x-tools']).toBe('nested');
    expect(deep.headers['cache-control']).toBe('no-store');
    expect((await rawRequest(handMade.port, { path: '/notes/a.txt' })).headers['x-note']).toBe('one-segment');
    const nested = await rawRequest(handMade.port, { path: '/notes/sub/b.txt' });
    expect(nested.text).toBe('note b');
    expect(nested.headers['x-note']).toBeUndefined();
  });

  it('never serves a file outside the tree: not by .., not through a symlink', async () => {
    for (const target of [
      '/../package.json',
      '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/..%2f..%2f..%2fetc%2fpasswd',
      '/leak.json',
      '/linked/inner.json',
      '/linked/',
    ]) {
      const answer = await rawRequest(handMade.port, { path: target });
      expect(answer.status, target).toBeGreaterThanOrEqual(400);
      expect(answer.text, target).not.toContain(SECRET);
      expect(answer.text, target).not.toMatch(/root:|\/tmp\//);
    }
  });

  it('follows a symlink that stays inside the tree', async () => {
    const alias = await rawRequest(handMade.port, { path: '/alias.txt' });
    expect(alias.status).toBe(200);
    expect(alias.text).toBe('note a');
  });

  it('follows a rebuild that replaced _headers, within a second', async () => {
    const replacement = path.join(handMadeTree, '_headers.next');
    writeFileSync(replacement, '/*\n  X-Everywhere: rebuilt\n');
    renameSync(replacement, path.join(handMadeTree, '_headers'));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const note = await rawRequest(handMade.port, { path: '/notes/a.txt' });
    expect(note.headers['x-everywhere']).toBe('rebuilt');
    expect(note.headers['x-note']).toBeUndefined();
  });
});
