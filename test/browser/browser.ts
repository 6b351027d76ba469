// Debian's chromium driven by playwright-core (the one test module that imports it; its own browser
// downloads cannot be fetched here), with the checks every page view gets: no element wider than
// the viewport, an axe-core scan, and the Content-Security-Policy reports the page caused. Each
// test file starts its own chromium in its worker and visits its URLs in one page of its own.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import {
  listChildPids,
  noteUnreapedCpu,
  readReapedCpuSeconds,
  readTreeCpuSeconds,
} from '../helpers/process-tree-cpu.js';

// Required, not imported: Node's ESM loader would parse playwright's CommonJS bundle once more to
// find its exports, in vitest's process and in each worker that loads this module.
const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');

/**
 * Debian's chromium-headless-shell (its binary; /usr/bin/chromium-headless-shell is a shell script
 * around it), the old headless mode, a build without the browser's user interface: on the tests'
 * visits it spends much less CPU than the full browser's headless mode (bench/browser-cpu.mjs
 * compares them). The same Blink and V8 of the same release render the page, so what a test
 * asserts (layout, CSP, the iframe sandbox, axe) holds in both.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
/** Debian's chromium, in its headless mode: where the headless shell is not installed. */
const FULL_CHROMIUM = '/usr/bin/chromium';
/** The chromium the browser tests run: the headless shell where installed, else the full browser. */
export const CHROMIUM = [HEADLESS_SHELL, FULL_CHROMIUM].find((file) => existsSync(file));
export const HAS_CHROMIUM = CHROMIUM !== undefined;
/** What to tell a person on a machine without either. */
export const MISSING_CHROMIUM = `test/browser: skipped, neither ${HEADLESS_SHELL} nor ${FULL_CHROMIUM} is installed (apt-get install -y chromium-headless-shell)`;

/**
 * How often a test's `expect.poll` looks at the page again. Each look is a round trip through
 * playwright's server to chromium and a query in the page, so vitest's default of 50 ms costs
 * chromium and the processes between about twice the CPU of an idle page while a test waits for an
 * answer; waits here are for processes on a loaded machine, seconds each, so a quarter second
 * late is nothing a test would notice.
 */
export const POLL_INTERVAL_MS = 250;

/** A desktop in light mode and a phone in dark mode (prefers-color-scheme), so axe checks both palettes' contrast. */
export const VIEWPORTS = [
  { width: 1280, height: 900, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
] as const;

/** A window size and colour scheme to open a page in. */
export interface Screen {
  width: number;
  height: number;
  colorScheme: 'light' | 'dark';
}

/**
 * The switches each file's chromium starts with. As root (CI), Chromium's sandbox cannot start.
 * With site isolation on, chromium starts a new renderer process for most navigations of a
 * file's page and for sandboxed frames such as an MCP App's, and each start costs CPU; without
 * it, renderers are reused (bench/browser-cpu.mjs runs both ways).
 * The tests assert what a page shows and does, its CSP and iframe sandbox included, which
 * chromium enforces in one process as in many; none asserts which process renders a frame.
 */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-site-isolation-trials'];

/**
 * Starts this file's chromium, driven over a pipe from this worker; `close()` ends it. A browser
 * shared by the run would put playwright's server in vitest's own process, relaying every message
 * between a file's worker and chromium, at more CPU than a chromium start per file costs.
 */
export async function launchChromium(): Promise<Browser> {
  if (CHROMIUM === undefined) throw new Error(MISSING_CHROMIUM);
  const executable = CHROMIUM;
  const running = new Set(listChildPids(executable));
  const browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
  const pid = listChildPids(executable).find((child) => !running.has(child));
  if (pid !== undefined && process.env.STATICMCP_TEST_CPU_LOG) countRenderersOnClose(browser, pid);
  return browser;
}

/**
 * Makes `browser.close()` note for the file's CPU line (test/helpers/cpu-log.setup.ts) what
 * chromium's processes used that this worker will not reap: its renderers outlive the browser
 * process and are reaped by init, so their CPU is in no reaped time of the worker.
 */
function countRenderersOnClose(browser: Browser, pid: number): void {
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    const treeSeconds = readTreeCpuSeconds(pid);
    const reapedBefore = readReapedCpuSeconds();
    await close(options);
    noteUnreapedCpu(Math.max(0, treeSeconds - (readReapedCpuSeconds() - reapedBefore)));
  };
}

/** A page whose CSP violations, script errors and dialogs (an `alert` from the tree) are recorded. */
export interface WatchedPage {
  page: Page;
  /** The file's one context: its permissions last for the file (grant them for one origin). */
  context: BrowserContext;
  problems: string[];
}

/** What the file's page records into: the visit under way (an empty origin between visits). */
interface Visit {
  origin: string;
  problems: string[];
}

const filePages = new WeakMap<Browser, Promise<{ page: Page; visit: Visit }>>();

/**
 * The one page of a connected browser (one per test file), its listeners recording into the visit
 * under way. A new context and page per test cost chromium about twice the CPU of a navigation of
 * this one; our pages keep nothing in storage between visits.
 */
function findFilePage(browser: Browser): Promise<{ page: Page; visit: Visit }> {
  let found = filePages.get(browser);
  if (!found) {
    found = createFilePage(browser);
    filePages.set(browser, found);
  }
  return found;
}

async function createFilePage(browser: Browser): Promise<{ page: Page; visit: Visit }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const visit: Visit = { origin: '', problems: [] };
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) visit.problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => visit.problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    visit.problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    const target = new URL(request.url());
    if (visit.origin !== '' && target.protocol !== 'data:' && target.origin !== visit.origin)
      visit.problems.push(`request to another origin: ${request.url()}`);
  });
  return { page, visit };
}

/**
 * Opens `url` at `screen`'s size and colour scheme in the file's page, after leaving the previous
 * visit's document for about:blank (so nothing it does lands in this visit's problems).
 */
export async function openPage(
  browser: Browser,
  url: string,
  { width, height, colorScheme }: Screen,
): Promise<WatchedPage> {
  const { page, visit } = await findFilePage(browser);
  visit.origin = '';
  await page.goto('about:blank');
  visit.problems = [];
  visit.origin = new URL(url).origin;
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme });
  await page.goto(url);
  // The playground is ready once it has said where its answers come from.
  await page
    .locator('#status')
    .filter({ hasNotText: /Looking for|Served, this page/ })
    .waitFor();
  return { page, context: page.context(), problems: visit.problems };
}

/** Elements whose right edge passes the viewport (what a person would have to scroll the page for). */
export function findWideElements(page: Page): Promise<string[]> {
  // Runs in the page (a string: this file is type-checked without the DOM's types).
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const wide = [];
    for (const node of document.body.querySelectorAll('*')) {
      const box = node.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 1)
        wide.push(node.tagName.toLowerCase() + '.' + node.className + ' (' + Math.round(box.right) + ' px)');
    }
    if (document.documentElement.scrollWidth > width) wide.push('page scrolls to ' + document.documentElement.scrollWidth + ' px');
    return wide;
  })()`);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe's default rules less those that cannot report a serious or critical violation: a rule whose
 * own impact and every check's impact (axe's metadata, read in the page) are minor, moderate or
 * none. What findAccessibilityProblems returns is the same; chromium runs fewer rules (`region`
 * and the landmark rules walk the whole page). An axe without that metadata fails the scan.
 */
const RULES_THAT_CAN_BE_SERIOUS = `(() => {
  const off = {};
  for (const rule of axe._audit.rules) {
    const checks = [...rule.any, ...rule.all, ...rule.none].map((check) => typeof check === 'string' ? check : check.id);
    const impacts = [rule.impact, ...checks.map((id) => axe._audit.checks[id]?.metadata?.impact)];
    if (!impacts.some((impact) => impact === 'serious' || impact === 'critical')) off[rule.id] = { enabled: false };
  }
  return { rules: off };
})()`;

/** axe.run's options: those rules, and only their violations collected. */
const SCAN_OPTIONS = `({ ...${RULES_THAT_CAN_BE_SERIOUS}, resultTypes: ['violations'] })`;

const axeSessions = new WeakMap<Page, Promise<CDPSession>>();

/**
 * Loads axe into the page's current document with one Runtime.evaluate on a DevTools session of
 * the page's own, kept for its later documents: playwright's evaluate of the same source costs
 * chromium and this worker more CPU on each scan (bench/browser-axe-cpu.mjs). Evaluated through
 * the DevTools protocol, which the page's CSP does not govern.
 */
async function loadAxe(page: Page): Promise<void> {
  let session = axeSessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    axeSessions.set(page, session);
  }
  const loaded = (await (await session).send('Runtime.evaluate', { expression: AXE_SOURCE })) as {
    exceptionDetails?: { text: string; exception?: { description?: string } };
  };
  if (loaded.exceptionDetails)
    throw new Error(
      `axe-core did not load: ${loaded.exceptionDetails.exception?.description ?? loaded.exceptionDetails.text}`,
    );
}

/**
 * axe-core's serious and critical violations, as `rule: target` lines. Only violations are
 * collected (`resultTypes`): axe then builds no selector for each element a rule passes, and
 * reports every violating element as before.
 */
export async function findAccessibilityProblems(page: Page): Promise<string[]> {
  await loadAxe(page);
  return page.evaluate<string[]>(`axe.run(${SCAN_OPTIONS}).then(({ violations }) => violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', ')))`);
}
