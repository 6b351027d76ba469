// The landing page as a new user meets it, in Debian's chromium at 1280×800 and 390×844, light and
// dark: it opens on what the server does (search, then tools), connecting is one click away, the
// starter's precomputed values are offered as choices with a badge and true hints, search lists
// hits that open a document view at ?doc=<id> (Markdown rendered, shareable), and a tree of 300
// documents stays short: resources listed at run time a screenful at a time, a filter, sections
// that collapse, empty ones left out. Asserts what is on screen, not pixels.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { buildProjectTree, writeProject } from '../helpers/projects.js';
import { type StaticHost, startStaticHost } from '../helpers/static-host.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import {
  findAccessibilityProblems,
  findWideElements,
  HAS_CHROMIUM,
  launchChromium,
  openPage,
  POLL_INTERVAL_MS,
} from './browser.js';

const EVENTUALLY = { timeout: 15_000, interval: POLL_INTERVAL_MS };
const SCREENS = [
  { width: 1280, height: 800, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
] as const;

/** Whether the element's top is on the first screen (what a person sees without scrolling). */
async function onFirstScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y < height;
}

async function checkScreen(page: Page, problems: string[]): Promise<void> {
  expect(await findWideElements(page)).toEqual([]);
  expect(await findAccessibilityProblems(page)).toEqual([]);
  expect(problems).toEqual([]);
}

describe.skipIf(!HAS_CHROMIUM)('the landing page a new user meets', () => {
  let browser: Browser;
  let starter: HttpServe;
  let documents: HttpServe;
  let staticStarter: StaticHost;

  beforeAll(async () => {
    const starterProject = path.join(temporaryFolderSync('staticmcp-starter-'), 'starter');
    execFileSync(process.execPath, [CLI, 'init', starterProject], { stdio: 'ignore' });
    buildProjectTree(starterProject);
    const files: Record<string, string | { script: string }> = {
      'tools/echo': {
        script:
          '#!/bin/sh\nif [ "$1" = "--help" ]; then echo \'{"description": "Echo"}\'; echo \'{"text": {"value_type": "string", "required": true}}\' >&2; exit 0; fi\necho "$text"\n',
      },
    };
    for (let index = 0; index < 300; index += 1) {
      const id = String(index).padStart(3, '0');
      files[`resources/doc-${id}.md`] = `# Document ${id}\n\nThe text of document ${id}, about topic ${index % 7}.\n`;
    }
    const documentsProject = await writeProject(files);
    buildProjectTree(documentsProject);
    [browser, starter, documents, staticStarter] = await Promise.all([
      launchChromium(),
      HttpServe.start([starterProject]),
      HttpServe.start([path.join(documentsProject, 'dist')]),
      startStaticHost(path.join(starterProject, 'dist')),
    ]);
    // Three builds and four starts: on a loaded 2-core machine this takes longer than a test.
  }, 180_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), starter?.stop(), documents?.stop(), staticStarter?.close()]);
  });

  for (const screen of SCREENS) {
    it(`the starter at ${screen.width} px (${screen.colorScheme}): search and tools first, values offered, hits open a document`, async () => {
      const { page, problems } = await openPage(browser, `${starter.base}/`, screen);
      await expect.poll(() => page.locator('#status').textContent(), EVENTUALLY).toMatch(/Connected to/);
      // What the server does comes first; connecting is a closed panel one click away.
      expect(await page.locator('.lead').textContent()).toMatch(/^This is an MCP server/);
      expect(await onFirstScreen(page, '#search-title')).toBe(true);
      expect(await page.locator('main > *:not(#connect):not([hidden])').first().getAttribute('id')).toBe('search');
      expect(await page.locator('#connect pre.snippet').first().isVisible()).toBe(false);
      await page.getByRole('link', { name: 'connect it to your assistant' }).click();
      // The panel opens on the hashchange event, which the page handles after the click returns.
      await expect.poll(() => page.locator('#connect pre.snippet').first().isVisible(), EVENTUALLY).toBe(true);
      expect(await page.getByRole('button', { name: 'Copy: Claude Code' }).first().isVisible()).toBe(true);

      const hello = page.locator('article.tool[data-tool="hello"]');
      expect(await hello.locator('h3 .mark').textContent()).toBe('4 precomputed');
      const name = hello.getByRole('combobox', { name: /^name/ });
      expect(
        await hello.locator('datalist option').evaluateAll((options) => options.map((o) => o.getAttribute('value'))),
      ).toEqual(['World', 'MCP']);
      expect(await hello.locator('.field').first().locator('.hint').textContent()).toMatch(
        /Precomputed for the 2 values in the list/,
      );
      // A boolean's two values are both precomputed: no hint says otherwise.
      expect(await hello.locator('.field').nth(1).locator('.hint').textContent()).not.toMatch(/precomputed/i);
      await hello.getByRole('button', { name: 'Run' }).click();
      await expect.poll(() => hello.locator('.output-area').textContent(), EVENTUALLY).toBe('name is required');
      await name.fill('MCP');
      await hello.getByRole('button', { name: 'Run' }).click();
      await expect.poll(() => hello.locator('.output-area').textContent(), EVENTUALLY).toMatch(/Hello, MCP\./);

      const search = page.locator('#search');
      await search.getByRole('searchbox').fill('zebra');
      await search.getByRole('button', { name: 'Search' }).click();
      await expect
        .poll(() => search.locator('.output-area').textContent(), EVENTUALLY)
        .toMatch(/^No document matches “zebra”/);
      await search.getByRole('searchbox').fill('deploy');
      await search.getByRole('button', { name: 'Search' }).click();
      await expect
        .poll(() => search.locator('.output-area .meta').first().textContent(), EVENTUALLY)
        .toBe('One document matches “deploy”.');
      expect(await search.locator('.output-area').textContent()).not.toContain('{');
      const hit = search.getByRole('link', { name: 'About this server' });
      expect(await findWideElements(page)).toEqual([]);
      await hit.click();
      await page.waitForURL(/\?doc=/);
      const view = page.locator('#document');
      await expect.poll(() => view.locator('h2').textContent(), EVENTUALLY).toBe('About this server');
      // Markdown rendered, not shown as source: the heading is a heading, `tools/` is code.
      expect(await view.locator('.markdown h3').textContent()).toBe('About this server');
      expect(await view.locator('.markdown code').first().textContent()).toBe('tools/');
      expect(await view.textContent()).not.toContain('# About');
      expect(await page.locator('#tools').isVisible()).toBe(false);
      await checkScreen(page, problems);
    });
  }

  it('a static host without /mcp: search and the document view read the tree’s own index', async () => {
    const { page, problems } = await openPage(browser, staticStarter.url.href, SCREENS[1]);
    await expect.poll(() => page.locator('#status').textContent(), EVENTUALLY).toMatch(/No MCP endpoint here/);
    const search = page.locator('#search');
    await search.getByRole('searchbox').fill('deploy');
    await search.getByRole('button', { name: 'Search' }).click();
    await search.getByRole('link', { name: 'About this server' }).click();
    await expect.poll(() => page.locator('#document .markdown h3').textContent(), EVENTUALLY).toBe('About this server');
    expect(problems).toEqual([]);
  });

  it('300 documents at 1280 px (dark): a screenful of resources, no empty sections, nothing wider than the screen', async () => {
    const { page, problems } = await openPage(browser, `${documents.base}/`, {
      width: 1280,
      height: 800,
      colorScheme: 'dark',
    });
    const resources = page.locator('#resources');
    await expect
      .poll(() => resources.locator('button.more').textContent(), EVENTUALLY)
      .toBe('Show 50 more (250 not shown)');
    expect(await resources.locator('article.resource').count()).toBe(50);
    expect(await page.getByRole('heading', { name: /Resource templates|Prompts/ }).count()).toBe(0);
    await checkScreen(page, problems);
  });

  it('300 documents at 390 px (light): a screenful at a time, a filter, sections that collapse', async () => {
    const { page, problems } = await openPage(browser, `${documents.base}/`, {
      width: 390,
      height: 844,
      colorScheme: 'light',
    });
    const resources = page.locator('#resources');
    await expect
      .poll(() => resources.locator('button.more').textContent(), EVENTUALLY)
      .toBe('Show 50 more (250 not shown)');
    expect(await resources.locator('article.resource').count()).toBe(50);
    expect(await page.locator('#resources-title').textContent()).toBe('Resources (300)');
    // No empty sections: this tree has no templates and no prompts.
    expect(await page.getByRole('heading', { name: /Resource templates|Prompts/ }).count()).toBe(0);
    expect(await page.evaluate<number>('document.documentElement.scrollHeight')).toBeLessThan(20_000);
    // Scrolling to the list's end renders the next screenful.
    await resources.locator('button.more').scrollIntoViewIfNeeded();
    await expect.poll(() => resources.locator('article.resource').count(), EVENTUALLY).toBeGreaterThanOrEqual(100);

    const filter = page.getByRole('searchbox', { name: 'Filter tools and resources' });
    await filter.fill('doc-042');
    await expect.poll(() => page.locator('#resources-title').textContent(), EVENTUALLY).toBe('Resources (1 of 300)');
    expect(await resources.locator('article.resource:visible').count()).toBe(1);
    expect(await page.locator('#tools').isVisible()).toBe(false);
    await resources.getByRole('button', { name: 'View' }).click();
    await expect
      .poll(() => resources.locator('.output-area').textContent(), EVENTUALLY)
      .toMatch(/The text of document 042/);
    await filter.fill('');
    // A section collapses by its heading.
    await page.locator('#tools > summary').click();
    expect(await page.locator('article.tool').isVisible()).toBe(false);
    await checkScreen(page, problems);
  });
});
