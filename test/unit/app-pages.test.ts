// An MCP App's page as the tree serves it to the playground's frame (src/tree-writer/app-pages.ts):
// its declared CSP before anything of the page runs, widened only by https origins, and a
// `_headers` rule that also gives it an opaque origin. What a tree someone else wrote into a
// ui.meta.json never becomes another directive or leaves the attribute.
import { describe, expect, it } from 'vitest';
import { appPagesOf, renderAppPageHeaders } from '../../src/tree-writer/app-pages.js';

const APP = 'text/html;profile=mcp-app';

describe('app pages', () => {
  it("puts the app's policy first, with its declared origins and nothing else", () => {
    const [page] = appPagesOf([
      {
        uri: 'ui://forecast/index.html',
        mimeType: APP,
        content: { text: '<!DOCTYPE html>\n<html><script>go()</script></html>' },
        meta: {
          ui: {
            csp: {
              connectDomains: ['https://api.example.com', 'wss://live.example.com', "https://x.com; script-src 'self'"],
              resourceDomains: ['https://cdn.example.com', 'javascript:alert(1)', 'http://plain.example.com'],
            },
          },
        },
      },
    ]);
    expect(page?.filePath).toBe('apps/forecast/index_html/index.html');
    expect(page?.policy).toBe(
      "default-src 'none'; script-src 'unsafe-inline' https://cdn.example.com; style-src 'unsafe-inline' https://cdn.example.com; img-src data: https://cdn.example.com; font-src data: https://cdn.example.com; media-src data: https://cdn.example.com; connect-src https://api.example.com wss://live.example.com; frame-src 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(page?.html).toBe(
      `<!DOCTYPE html>\n<meta http-equiv="Content-Security-Policy" content="${page?.policy}">\n<html><script>go()</script></html>`,
    );
    expect(renderAppPageHeaders(page ? [page] : [])).toEqual([
      `/apps/forecast/index_html/*\n  Content-Security-Policy: ${page?.policy}; sandbox allow-scripts\n`,
    ]);
  });

  it('gives a page without a doctype its policy first too, and skips resources that are not app pages', () => {
    const pages = appPagesOf([
      { uri: 'ui://bare/index.html', mimeType: APP, content: { text: '<p>hi</p>' } },
      { uri: 'resource://guide.md', mimeType: 'text/markdown', content: { text: '# guide' } },
      { uri: 'ui://binary/index.html', mimeType: APP, content: { blob: 'AAAA' } },
    ]);
    expect(pages.map((page) => page.filePath)).toEqual(['apps/bare/index_html/index.html']);
    expect(pages[0]?.html).toMatch(
      /^<meta http-equiv="Content-Security-Policy" content="default-src 'none';[^"]*">\n<p>hi<\/p>$/,
    );
    expect(pages[0]?.policy).toContain("connect-src 'none'");
  });
});
