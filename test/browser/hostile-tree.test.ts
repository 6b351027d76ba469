// A tree someone else built, made to attack whoever opens its page: HTML and `javascript:` in every
// name, title, description, URI and prompt argument, a 1 MB description, a tool with 500
// parameters, an inputSchema whose `$ref`s loop, answers with a `javascript:` link and images that
// are not images. The page (rendered by the compiled build's own renderer, served by
// `serve --http`) must stay usable and nothing from the tree may run: no dialog, no CSP report, no
// element the tree's HTML would have made, no link or image address but the safe ones.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import { findWideElements, HAS_CHROMIUM, launchChromium, openPage, POLL_INTERVAL_MS, VIEWPORTS } from './browser.js';

/** Answers come from real processes on a shared machine: wait for them as a person would. */
const EVENTUALLY = { timeout: 15_000, interval: POLL_INTERVAL_MS };

const attack = (n: number): string => `"><img src=x onerror=alert(${n})><script>alert(${n})</script>`;

/** A 1×1 PNG: the one icon the page may show (inline raster data; another origin's is never fetched). */
const PNG_PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function hostileManifest(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    looped: { $ref: '#/$defs/a' },
    [attack(1)]: { type: 'string', enum: [attack(2), 'plain'], default: attack(2), description: attack(3) },
  };
  for (let index = 0; index < 500; index++) properties[`p${index}`] = { type: 'integer', description: attack(4) };
  return {
    protocolVersion: '2025-06-18',
    serverInfo: {
      name: "x'; touch pwned",
      version: '1.0.0',
      title: attack(5),
      description: `${attack(6)}${'x'.repeat(1_000_000)}`,
    },
    capabilities: {
      tools: [
        {
          name: attack(7),
          title: attack(8),
          description: `${attack(9)} ${'y'.repeat(1_000_000)}`,
          icons: [{ src: 'javascript:alert(10)' }, { src: 'data:text/html,<script>alert(11)</script>' }],
          inputSchema: {
            type: 'object',
            $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
            properties,
          },
        },
        {
          name: 'links',
          description: 'Answers with hostile content blocks',
          icons: [{ src: 'https://elsewhere.example/icon.png' }, { src: `data:image/png;base64,${PNG_PIXEL}` }],
          inputSchema: { type: 'object', properties: {} },
        },
      ],
      resources: [{ uri: 'javascript:alert(12)', name: attack(13), description: attack(14) }],
      resourceTemplates: [{ uriTemplate: `javascript:alert(15)/{x}`, name: attack(16) }],
      prompts: [{ name: attack(17), description: attack(18), arguments: [{ name: attack(19), required: true }] }],
    },
  };
}

const HOSTILE_ANSWER = {
  content: [
    { type: 'text', text: attack(20) },
    { type: 'resource_link', uri: 'javascript:alert(21)', name: attack(22) },
    { type: 'image', mimeType: 'text/html', data: 'PHNjcmlwdD5hbGVydCgyMyk8L3NjcmlwdD4=' },
    { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2ZyBvbmxvYWQ9YWxlcnQoMjQpPjwvc3ZnPg==' },
  ],
};

describe.skipIf(!HAS_CHROMIUM)('a hostile tree in chromium', () => {
  let browser: Browser;
  let serve: HttpServe;

  beforeAll(async () => {
    const tree = path.join(temporaryFolderSync('staticmcp-hostile-'), 'tree');
    mkdirSync(path.join(tree, 'tools'), { recursive: true });
    const manifest = hostileManifest();
    // The build's own renderer, from the compiled CLI under test: index.html, _headers and the rest.
    const { deployFiles } = (await import(path.join(path.dirname(CLI), '..', 'tree-writer', 'deploy-files.js'))) as {
      deployFiles(manifest: unknown, options: object): Map<string, string>;
    };
    for (const [file, text] of deployFiles(manifest, {})) writeFileSync(path.join(tree, file), text);
    writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
    writeFileSync(path.join(tree, 'tools', 'links.json'), JSON.stringify(HOSTILE_ANSWER));
    [browser, serve] = await Promise.all([launchChromium(), HttpServe.start([tree])]);
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), serve?.stop()]);
  });

  it('shows every hostile text as text, runs nothing from the tree, and stays usable', async () => {
    const watched = await openPage(browser, `${serve.base}/`, VIEWPORTS[1]);
    const { page } = watched;
    expect(await page.locator('h1').textContent()).toBe(attack(5));
    // A server name is one quoted word in every command a person pastes.
    expect(await page.locator('#connect-remote pre.snippet').nth(2).textContent()).toBe(
      `claude mcp add --transport http 'x'\\''; touch pwned' ${serve.base}/mcp`,
    );
    // Only the page's own script; no element the tree's markup would have made.
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('img').count()).toBe(1);
    expect(await page.locator('article.tool[data-tool="links"] h3 img').getAttribute('src')).toBe(
      `data:image/png;base64,${PNG_PIXEL}`,
    );

    const big = page.locator('article.tool').first();
    expect(await big.locator('input, select, textarea').count()).toBe(502);
    await big.getByRole('button', { name: 'Run' }).click();
    await expect
      .poll(async () => (await big.locator('.output-area').textContent()) ?? '', EVENTUALLY)
      .toMatch(/not precomputed|serve/);

    const links = page.locator('article.tool[data-tool="links"]');
    await links.getByRole('button', { name: 'Run' }).click();
    await expect
      .poll(async () => (await links.locator('.output-area').textContent()) ?? '', EVENTUALLY)
      .toContain(attack(20));
    expect(await links.locator('code').filter({ hasText: 'javascript:alert(21)' }).count()).toBe(1);
    expect(
      await page.locator('a[href^="javascript:"], [src^="javascript:"], img:not([src^="data:image/"])').count(),
    ).toBe(0);
    // The two non-images in the answer are described, not shown (the one image is the tool's icon).
    expect(await links.locator('.output-area img').count()).toBe(0);

    expect(await findWideElements(page)).toEqual([]);
    expect(watched.problems).toEqual([]);
  });
});
