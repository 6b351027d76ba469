// The CPU chromium spends on the browser tests' kind of visit (the landing page of the built
// example, at the two screens test/browser uses, each visit with the wide-element check and an
// axe-core scan), for each way of starting it: through Debian's /usr/bin/chromium launcher (which
// adds the flags of /etc/chromium.d, GPU rasterization among them) or the binary it runs, with
// or without extra switches, and Debian's chromium-headless-shell (the old headless mode, which
// test/browser runs where it is installed; `apt-get install chromium-headless-shell`). Visits alternate between two `serve --http` servers on two ports,
// each visit from about:blank, as the test files' visits do (test/browser/browser.ts, openPage).
// CPU is user+sys of chromium's whole process tree, read from /proc just before it closes (every
// process under it, and what each has reaped), so the page servers and this process are not
// counted. Variants run alternately, a browser each round. (Run over test/browser,
// --process-per-site started as many renderers as no switch; --renderer-process-limit=1 fewer,
// but more than --disable-site-isolation-trials.)
// VISITS (default 6) visits per round, RUNS (default 5) rounds.
// Run: npm run build && node bench/browser-cpu.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { treeCpuSeconds } from './lib/process-tree.mjs';
import { startServeHttp } from './lib/serve-http.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const VISITS = Number(process.env.VISITS ?? 6);
const LAUNCHER = '/usr/bin/chromium';
const BINARY = '/usr/lib/chromium/chromium';
/** Debian's chromium-headless-shell (the old headless mode, a build without the browser's UI). */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
if (!existsSync(LAUNCHER) || !existsSync(BINARY)) {
  console.log(`browser-cpu: needs Debian's chromium (${LAUNCHER}, ${BINARY}); skipped`);
  process.exit(0);
}
const require = createRequire(path.join(repoRoot, 'package.json'));
const { chromium } = require('playwright-core');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const VARIANTS = [
  { label: 'launcher', executablePath: LAUNCHER, args: ['--no-sandbox'] },
  { label: 'binary', executablePath: BINARY, args: ['--no-sandbox'] },
  { label: 'binary', executablePath: BINARY, args: ['--no-sandbox', '--disable-gpu'] },
  // What test/browser/browser.ts starts where the headless shell is not installed.
  { label: 'launcher', executablePath: LAUNCHER, args: ['--no-sandbox', '--disable-site-isolation-trials'] },
  // What test/browser/browser.ts starts where Debian's chromium-headless-shell is installed.
  {
    label: 'headless shell',
    executablePath: HEADLESS_SHELL,
    args: ['--no-sandbox', '--disable-site-isolation-trials'],
  },
].filter((variant) => existsSync(variant.executablePath));
const SCREENS = [
  { width: 1280, height: 900, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
];
/** One browser of `variant`: VISITS visits, alternating the screens and `urls`; its CPU seconds. */
async function measureOnce(variant, urls) {
  const browser = await chromium.launch({ executablePath: variant.executablePath, args: variant.args });
  const context = await browser.newContext();
  const page = await context.newPage();
  for (let visit = 0; visit < VISITS; visit += 1) {
    const { width, height, colorScheme } = SCREENS[visit % SCREENS.length];
    await page.goto('about:blank');
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    await page.goto(urls[visit % urls.length]);
    await page
      .locator('#status')
      .filter({ hasNotText: /Looking for|Served, this page/ })
      .waitFor();
    await page.evaluate(`document.body.querySelectorAll('*').length`);
    await page.evaluate(AXE_SOURCE);
    await page.evaluate('axe.run().then(({ violations }) => violations.length)');
  }
  const seconds = treeCpuSeconds(findBrowserPid());
  await browser.close();
  return seconds;
}

/** This process's chromium child (playwright starts it; the launcher execs the binary in place). */
function findBrowserPid() {
  const found = spawnSync('pgrep', ['-P', String(process.pid), 'chromium'], { encoding: 'utf8' }).stdout.trim();
  return Number(found.split('\n')[0]);
}

const root = tempDir('staticmcp-browser-cpu-');
const project = path.join(root, 'example');
cpSync(path.join(repoRoot, 'fixtures', 'example'), project, { recursive: true });
const built = spawnSync(process.execPath, [cliPath, 'build', project], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
const serves = await Promise.all([startServeHttp(project), startServeHttp(project)]);
try {
  const urls = serves.map((serve) => `${serve.base}/`);
  await measureOnce(VARIANTS[0], urls);
  const seconds = VARIANTS.map(() => []);
  for (let round = 0; round < RUNS; round += 1)
    for (const [index, variant] of VARIANTS.entries()) seconds[index].push(await measureOnce(variant, urls));
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`chromium CPU (user+sys, s) for ${VISITS} visits, ${RUNS} alternating rounds: median (mean)`);
  for (const [index, variant] of VARIANTS.entries()) {
    const ratio = index === 0 ? '' : `, ${(mean(seconds[index]) / mean(seconds[0])).toFixed(2)} of launcher (means)`;
    console.log(
      `  ${variant.label} ${variant.args.join(' ')}: ${median(seconds[index]).toFixed(2)} (${mean(seconds[index]).toFixed(2)})${ratio}`,
    );
  }
} finally {
  for (const serve of serves) serve.stop();
}
