// A tool's MCP App in the playground, in Debian's chromium: Run the forecast tool, see its app
// render the result inside a frame with an opaque origin (sandbox="allow-scripts", no
// allow-same-origin) under the app's own CSP, press one of the app's buttons and see the tool's
// answer to that call come back into the app (through ext-apps' AppBridge and the page's answer
// path: /mcp where it answers, else the tree's files), while its call to a tool kept for the model
// (`_meta.ui.visibility: ["model"]`) is refused. Served by `serve --http` with the project and by
// the tree's worker in workerd; the page stays accessible with the app in it.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerdSitesOnPorts, type WorkerdSite } from '../edge/workerd-site.js';
import { buildAppsProject } from '../helpers/apps-project.js';
import { HttpServe } from '../helpers/http-serve.js';
import {
  findAccessibilityProblems,
  findWideElements,
  HAS_CHROMIUM,
  launchChromium,
  openPage,
  POLL_INTERVAL_MS,
  VIEWPORTS,
} from './browser.js';

/** Answers come from real processes on a shared machine: wait for them as a person would. */
const EVENTUALLY = { timeout: 20_000, interval: POLL_INTERVAL_MS };

/** A tool only the model may call (MCP Apps visibility), and a button in the forecast app that calls it. */
function addModelOnlyTool(project: string): void {
  const script = path.join(project, 'tools', 'secret.sh');
  writeFileSync(
    script,
    '#!/bin/sh\nif [ "$1" = "--help" ]; then\n  echo \'{"description": "For the model only"}\'\n  exit 0\nfi\necho "the secret"\n',
  );
  chmodSync(script, 0o755);
  writeFileSync(`${script}.meta.json`, '{ "_meta": { "ui": { "visibility": ["model"] } } }\n');
  const page = path.join(project, 'tools', 'forecast', 'ui', 'index.html');
  const html = readFileSync(page, 'utf8')
    .replace('</main>', '  <button type="button" id="secret">Secret</button>\n</main>')
    .replace(
      'for (const button of',
      `document.getElementById('secret').addEventListener('click', () =>
      app.callServerTool({ name: 'secret', arguments: {} }).then(
        (answer) => { result.textContent = textOf(answer); },
        (error) => { result.textContent = \`The call failed: \${error.message}\`; }));
    for (const button of`,
    );
  writeFileSync(page, html);
}

/** A static host: the tree's files, and nothing at /mcp (GitHub Pages, a bucket). */
const STATIC_ONLY_WORKER = 'export default { fetch: (request, env) => env.ASSETS.fetch(request) };\n';

describe.skipIf(!HAS_CHROMIUM)("a tool's MCP App in the playground", () => {
  let browser: Browser;
  let project: string;
  let serve: HttpServe;
  let worker: WorkerdSite;
  let staticSite: WorkerdSite;

  beforeAll(async () => {
    project = buildAppsProject([], addModelOnlyTool);
    const staticWorker = path.join(project, 'static-worker.js');
    writeFileSync(staticWorker, STATIC_ONLY_WORKER);
    [browser, serve, [worker, staticSite]] = await Promise.all([
      launchChromium(),
      HttpServe.start([project]),
      startWorkerdSitesOnPorts([
        { treeDir: path.join(project, 'dist') },
        { treeDir: path.join(project, 'dist'), workerFile: staticWorker },
      ]),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), serve?.stop(), worker?.close(), staticSite?.close()]);
  });

  /** What the app shows, without the script output's trailing newline. */
  async function appText(app: FrameLocator): Promise<string | undefined> {
    return (await app.locator('#result').textContent())?.trim();
  }

  async function runForecastAndCallBack(page: Page): Promise<FrameLocator> {
    const forecast = page.locator('article.tool[data-tool="forecast"]');
    await forecast.getByLabel('city').selectOption({ label: 'Paris ✓ precomputed' });
    await forecast.getByRole('button', { name: 'Run' }).click();
    const frame = forecast.locator('iframe.app-frame');
    await frame.waitFor(EVENTUALLY);
    // A host's sandbox: scripts run, but with an opaque origin (nothing of this site's is the app's).
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    const app = forecast.frameLocator('iframe.app-frame');
    // The tool's result, delivered to the app (ui/notifications/tool-result).
    await expect.poll(() => appText(app), EVENTUALLY).toBe('Paris: sunny, 21 °C');
    expect(await app.locator('body').evaluate('origin')).toBe('null');
    // The app calls the tool back (tools/call through the bridge) and shows the answer.
    await app.getByRole('button', { name: 'Tokyo' }).click();
    await expect.poll(() => appText(app), EVENTUALLY).toBe('Tokyo: rain, 17 °C');
    // A tool kept for the model: the app's call is refused with a JSON-RPC error saying why...
    await app.getByRole('button', { name: 'Secret' }).click();
    await expect
      .poll(() => appText(app), EVENTUALLY)
      .toMatch(/^The call failed: .*-32602.*"secret" is not visible to apps .*\["model"\].*only the model may call it/);
    // ...and the app's next call to its own tool is answered as before.
    await app.getByRole('button', { name: 'Lima' }).click();
    await expect.poll(() => appText(app), EVENTUALLY).toMatch(/^Lima: /);
    return app;
  }

  /** Under the app's declared CSP (no connectDomains: no network), not the page's; checked last, as the refusal is reported. */
  async function expectNoNetwork(app: FrameLocator): Promise<void> {
    const probe = "fetch('/mcp.json').then(() => 'fetched', () => 'refused')";
    expect(await app.locator('body').evaluate(probe)).toBe('refused');
  }

  it('served by serve --http at 1280 px: the app renders the result in a sandboxed frame and calls the tool back', async () => {
    const appPage = await fetch(`${serve.base}/apps/forecast/index_html/`);
    expect(appPage.status).toBe(200);
    // The app's declared CSP, and an opaque origin even where its page is opened on its own.
    expect(appPage.headers.get('content-security-policy')).toMatch(/^default-src 'none';.*; sandbox allow-scripts$/);
    const watched = await openPage(browser, `${serve.base}/`, VIEWPORTS[0]);
    await expect.poll(() => watched.page.locator('#status').textContent(), EVENTUALLY).toMatch(/Connected to/);
    const app = await runForecastAndCallBack(watched.page);
    expect(await findWideElements(watched.page)).toEqual([]);
    expect(await findAccessibilityProblems(watched.page)).toEqual([]);
    expect(watched.problems).toEqual([]);
    await expectNoNetwork(app);
  }, 90_000);

  it("served by the tree's worker at 390 px: the same app, its call answered by the worker", async () => {
    const watched = await openPage(browser, worker.url.href, VIEWPORTS[1]);
    await expect.poll(() => watched.page.locator('#status').textContent(), EVENTUALLY).toMatch(/Connected to/);
    const app = await runForecastAndCallBack(watched.page);
    expect(await findWideElements(watched.page)).toEqual([]);
    expect(await findAccessibilityProblems(watched.page)).toEqual([]);
    expect(watched.problems).toEqual([]);
    await expectNoNetwork(app);
  }, 90_000);

  it("a static host without /mcp: the app's call is answered from the tree's files", async () => {
    const watched = await openPage(browser, staticSite.url.href, VIEWPORTS[0]);
    await expect.poll(() => watched.page.locator('#status').textContent(), EVENTUALLY).toMatch(/No MCP endpoint here/);
    const app = await runForecastAndCallBack(watched.page);
    expect(watched.problems).toEqual([]);
    await expectNoNetwork(app);
  }, 90_000);
});
