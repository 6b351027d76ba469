// The CPU a browser test spends while it waits for an answer with `expect.poll`, for each polling
// interval: every look at the page is a round trip from playwright's client through its server to
// chromium and a query in the page. Chromium is started as a browser
// server (Debian's /usr/bin/chromium with --no-sandbox) and connected to from this process, so its
// CPU is playwright's client and server (this process, process.cpuUsage) plus chromium's whole
// process tree (/proc). The page is the built example's landing page under `serve --http`; each
// wait reads #status's text every INTERVAL for WAIT_MS. Intervals run alternately, RUNS rounds.
// Run: npm run build && node bench/browser-poll-cpu.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { treeCpuSeconds } from './lib/process-tree.mjs';
import { startServeHttp } from './lib/serve-http.mjs';

const RUNS = Number(process.env.RUNS ?? 3);
const WAIT_MS = Number(process.env.WAIT_MS ?? 5_000);
const INTERVALS_MS = [50, 250];
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`browser-poll-cpu: needs Debian's chromium (${CHROMIUM}); skipped`);
  process.exit(0);
}
const { chromium } = createRequire(path.join(repoRoot, 'package.json'))('playwright-core');

/** CPU seconds of chromium's tree and of this process (playwright's client and server). */
function cpuSeconds(browserPid) {
  const own = process.cpuUsage();
  return treeCpuSeconds(browserPid) + (own.user + own.system) / 1e6;
}

const root = tempDir('staticmcp-browser-poll-cpu-');
const project = path.join(root, 'example');
cpSync(path.join(repoRoot, 'fixtures', 'example'), project, { recursive: true });
const built = spawnSync(process.execPath, [cliPath, 'build', project], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
const serve = await startServeHttp(project);
const server = await chromium.launchServer({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const browserPid = server.process().pid;
  const browser = await chromium.connect(server.wsEndpoint());
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${serve.base}/`);
  await page
    .locator('#status')
    .filter({ hasNotText: /Looking for|Served, this page/ })
    .waitFor();
  const seconds = INTERVALS_MS.map(() => []);
  for (let round = 0; round < RUNS; round += 1)
    for (const [index, intervalMs] of INTERVALS_MS.entries()) {
      const before = cpuSeconds(browserPid);
      const end = Date.now() + WAIT_MS;
      while (Date.now() < end) {
        await page.locator('#status').textContent();
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
      seconds[index].push(cpuSeconds(browserPid) - before);
    }
  await browser.close();
  console.log(`CPU (user+sys, s) per second of waiting, ${WAIT_MS} ms waits, ${RUNS} alternating rounds: median`);
  const base = median(seconds[0]);
  for (const [index, intervalMs] of INTERVALS_MS.entries()) {
    const perSecond = median(seconds[index]) / (WAIT_MS / 1000);
    const ratio = index === 0 ? '' : ` (${(median(seconds[index]) / base).toFixed(2)} of ${INTERVALS_MS[0]} ms)`;
    console.log(`  poll every ${intervalMs} ms: ${perSecond.toFixed(3)}${ratio}`);
  }
} finally {
  await server.close();
  serve.stop();
}
