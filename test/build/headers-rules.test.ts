// The tree's `_headers` applied the way Cloudflare Pages and Netlify apply it: every rule whose
// pattern matches a path adds its headers, and two rules that set one header for one path give
// that header both values joined with ", " (so `/*.json` beside `/mcp.json` once gave mcp.json
// "max-age=300, …, max-age=60", and a cache reading the first kept it five minutes).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../src/serve/http/headers-file.js';
import { readTree } from '../helpers/files.js';
import { buildFixtureProject } from '../helpers/projects.js';

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
  tree = path.join(buildFixtureProject('fixtures/example'), 'dist');
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
