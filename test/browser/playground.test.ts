// The landing page as a person uses it, in Debian's chromium at 1280 and 390 px: fill a form, run a
// precomputed call and see the script's output, run a call the host cannot answer and see the
// command that can, copy a client config, open a resource; nothing wider than the viewport, no
// serious accessibility problem (axe-core), no CSP violation, no request to another origin. Served
// by `serve --http` with the project (live calls answered), by the tree's worker in workerd, and by
// a static host without /mcp over a packed tree (answers read from the files and packs in the page).
// Skipped, saying so, where no chromium is installed (.ci/run installs it).
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerdSitesOnPorts, type WorkerdSite } from '../edge/workerd-site.js';
import { HttpServe } from '../helpers/http-serve.js';
import { packTool } from '../helpers/packed-trees.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import {
  findAccessibilityProblems,
  findWideElements,
  HAS_CHROMIUM,
  launchChromium,
  MISSING_CHROMIUM,
  openPage,
  POLL_INTERVAL_MS,
  VIEWPORTS,
  type WatchedPage,
} from './browser.js';

/** Answers come from real processes on a shared machine: wait for them as a person would. */
const EVENTUALLY = { timeout: 15_000, interval: POLL_INTERVAL_MS };

if (!HAS_CHROMIUM) console.warn(MISSING_CHROMIUM);

/** A static host: the tree's files, and nothing at /mcp (GitHub Pages, a bucket). */
const STATIC_ONLY_WORKER = 'export default { fetch: (request, env) => env.ASSETS.fetch(request) };\n';

describe.skipIf(!HAS_CHROMIUM)('the playground page in chromium', () => {
  let browser: Browser;
  let project: string;
  let serve: HttpServe;
  let worker: WorkerdSite;
  let staticSite: WorkerdSite;
  let starting: Promise<unknown>[] = [];

  beforeAll(async () => {
    project = buildFixtureProject('fixtures/example');
    const packed = path.join(temporaryFolderSync('staticmcp-packed-'), 'tree');
    cpSync(path.join(project, 'dist'), packed, { recursive: true });
    packTool(packed, 'math_multiply');
    const staticWorker = path.join(path.dirname(packed), 'static-worker.js');
    writeFileSync(staticWorker, STATIC_ONLY_WORKER);
    // Each kept as it starts, and afterAll waits for all: a beforeAll that times out under load
    // must not leave a server started after afterAll ran (it outlived the test run).
    starting = [
      launchChromium().then((started) => (browser = started)),
      HttpServe.start([project]).then((started) => (serve = started)),
      startWorkerdSitesOnPorts([
        { treeDir: path.join(project, 'dist') },
        { treeDir: packed, workerFile: staticWorker },
      ]).then((started) => ([worker, staticSite] = started)),
    ];
    await Promise.all(starting);
  });

  afterAll(async () => {
    await Promise.allSettled(starting);
    await Promise.all([browser?.close(), serve?.stop(), worker?.close(), staticSite?.close()]);
  });

  /** What the tool's answer area shows, without the text's trailing newline. */
  async function outputOf(tool: Locator): Promise<string | undefined> {
    return (await tool.locator('.output-area').textContent())?.trim();
  }

  async function checkLayoutAndAccess(watched: WatchedPage): Promise<void> {
    expect(await findWideElements(watched.page)).toEqual([]);
    expect(await findAccessibilityProblems(watched.page)).toEqual([]);
    expect(watched.problems).toEqual([]);
  }

  for (const viewport of VIEWPORTS) {
    it(`serve --http at ${viewport.width} px (${viewport.colorScheme}): a filled form runs, live-only tools answer, configs copy, resources open`, async () => {
      // The CSP the page passes (no report below) comes from _headers too, where a host reads it.
      const policy = (await fetch(`${serve.base}/`)).headers.get('content-security-policy');
      expect(policy).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*';/);
      const watched = await openPage(browser, `${serve.base}/`, viewport);
      const { page, context } = watched;
      await expect
        .poll(() => page.locator('#status').textContent(), EVENTUALLY)
        .toMatch(/Connected to http:\/\/127\.0\.0\.1:\d+\/mcp/);

      const greet = page.locator('article.tool[data-tool="greet"]');
      await greet.getByLabel('language').selectOption({ label: 'fr ✓ precomputed' });
      await greet.getByLabel('shout').check();
      await greet.getByRole('button', { name: 'Run' }).click();
      await expect.poll(() => outputOf(greet), EVENTUALLY).toBe('BONJOUR !');

      // divide has no precomputed call: this server runs the project's script.
      const divide = page.locator('article.tool[data-tool="divide"]');
      await divide.getByRole('spinbutton', { name: /^a / }).fill('7');
      await divide.getByRole('spinbutton', { name: /^b / }).fill('2');
      await divide.getByRole('button', { name: 'Run' }).click();
      await expect.poll(() => outputOf(divide), EVENTUALLY).toBe('3.5');

      // For this origin only: the file's other pages share the context and do not get it.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.base });
      // Connecting is one click away: the panel opens by its heading.
      await page.locator('#connect > summary').click();
      await page.getByRole('button', { name: 'Copy: Claude Code' }).first().click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
        `claude mcp add --transport http example ${serve.base}/mcp`,
      );

      const guide = page.locator('article.resource[data-uri="resource://guide.md"]');
      await guide.getByRole('button', { name: 'View' }).click();
      await expect.poll(() => outputOf(guide), EVENTUALLY).toMatch(/resource:\/\/guide\.md/);

      await checkLayoutAndAccess(watched);
    });
  }

  it('from file:// it shows what the server offers and says that trying tools needs it served', async () => {
    const watched = await openPage(browser, `file://${path.join(project, 'dist', 'index.html')}`, VIEWPORTS[1]);
    const { page } = watched;
    expect(await page.locator('#status').textContent()).toMatch(/trying its tools needs the page to be served/);
    expect(await page.locator('article.tool').count()).toBe(6);
    expect(await page.locator('article.tool form').count()).toBe(0);
    expect(await findWideElements(page)).toEqual([]);
    expect(watched.problems).toEqual([]);
  });

  it("the tree's worker: a precomputed call answers, a miss shows the command that answers it", async () => {
    const watched = await openPage(browser, worker.url.href, VIEWPORTS[1]);
    const { page } = watched;
    const site = worker.url.href;
    await expect.poll(() => page.locator('#status').textContent(), EVENTUALLY).toMatch(/Connected to/);
    const multiply = page.locator('article.tool[data-tool="math_multiply"]');
    await multiply.getByRole('spinbutton', { name: /^a / }).fill('6');
    // By keyboard: Enter in a field runs the tool.
    await multiply.getByRole('spinbutton', { name: /^b / }).fill('7');
    await multiply.getByRole('spinbutton', { name: /^b / }).press('Enter');
    await expect.poll(() => outputOf(multiply), EVENTUALLY).toBe('42');

    const divide = page.locator('article.tool[data-tool="divide"]');
    await divide.getByRole('spinbutton', { name: /^a / }).fill('1');
    await divide.getByRole('spinbutton', { name: /^b / }).fill('4');
    await divide.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => outputOf(divide), EVENTUALLY).toContain(`serve ${site} --live <project folder>`);
    // Every snippet names the address the page is served from.
    await expect.poll(() => page.locator('pre.snippet').first().textContent(), EVENTUALLY).toBe(`${site}mcp`);
    await checkLayoutAndAccess(watched);
  });

  it('a static host without /mcp: answers read from the files and packs in the page, a miss shows the command', async () => {
    const watched = await openPage(browser, staticSite.url.href, VIEWPORTS[0]);
    const { page } = watched;
    const site = staticSite.url.href;
    await expect.poll(() => page.locator('#status').textContent(), EVENTUALLY).toMatch(/No MCP endpoint here/);
    await expect(page.locator('#remote-note').textContent()).resolves.toMatch(/Nothing answers MCP at/);
    expect(await page.locator('#connect-remote .snippet-box:visible').count()).toBe(0);

    // math_multiply is packed: the page finds its record with the core's key encoder and pack reader.
    const multiply = page.locator('article.tool[data-tool="math_multiply"]');
    await multiply.getByRole('spinbutton', { name: /^a / }).fill('3');
    await multiply.getByRole('spinbutton', { name: /^b / }).fill('9');
    await multiply.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => outputOf(multiply), EVENTUALLY).toBe('27');

    const capital = page.locator('article.tool[data-tool="capital"]');
    await capital.getByLabel('country').fill("Côte d'Ivoire");
    await capital.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => outputOf(capital), EVENTUALLY).toMatch(/Yamoussoukro/);
    await capital.getByLabel('country').fill('Peru');
    await capital.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => outputOf(capital), EVENTUALLY).toContain(`staticmcp serve ${site} --live <project folder>`);
    // A prompt rendered in the page from its stored template, with the arguments given.
    const prompt = page.locator('article.prompt[data-prompt="explain-product"]');
    await prompt.getByRole('textbox', { name: /^a / }).fill('6');
    await prompt.getByRole('textbox', { name: /^b / }).fill('7');
    await prompt.getByRole('textbox', { name: 'audience' }).fill('child');
    await prompt.getByRole('button', { name: 'Show' }).click();
    await expect
      .poll(() => outputOf(prompt), EVENTUALLY)
      .toBe(
        'userExplain to a child how to compute 6 times 7 by hand, then check the answer with the math_multiply tool.',
      );
    await page.locator('#connect > summary').click();
    await page.getByRole('button', { name: 'Copy: Command' }).click();
    await checkLayoutAndAccess(watched);
  });
});
