// The landing page of a tree with 10,000 resources in Debian's chromium: time to interactive (the
// page says where its answers come from and the first tool's Run button is there), the time until
// every resource is listed, the JS heap and the DOM's node count once it settles, and index.html's
// bytes. Measured for this CLI and, when BASELINE_CLI names another compiled CLI (main's, for
// before/after), for that one on the same project in the same run, as ratios.
// Run: npm run build && node bench/landing-page-scale.mjs
// (BASELINE_CLI=../main/dist/cli/main.js RESOURCES=10000 RUNS=3)
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { cliPath, median, tempDir } from './lib/common.mjs';

const RESOURCES = Number(process.env.RESOURCES ?? 10_000);
const RUNS = Number(process.env.RUNS ?? 3);
const BASELINE_CLI = process.env.BASELINE_CLI ? path.resolve(process.env.BASELINE_CLI) : undefined;

function writeProject() {
  const project = path.join(tempDir('staticmcp-page-scale-'), 'project');
  mkdirSync(path.join(project, 'resources'), { recursive: true });
  mkdirSync(path.join(project, 'tools'), { recursive: true });
  writeFileSync(path.join(project, 'staticmcp.json'), JSON.stringify({ name: 'page-scale', search: false }));
  const tool = path.join(project, 'tools', 'echo');
  writeFileSync(
    tool,
    '#!/bin/sh\nif [ "$1" = "--help" ]; then echo \'{"description": "Echo"}\'; echo \'{"text": {"value_type": "string", "required": true}}\' >&2; exit 0; fi\necho "$text"\n',
  );
  chmodSync(tool, 0o755);
  for (let index = 0; index < RESOURCES; index += 1) {
    const id = String(index).padStart(5, '0');
    writeFileSync(path.join(project, 'resources', `note-${id}.txt`), `Note ${id}: a short text resource.\n`);
  }
  return project;
}

function build(cli, project, out) {
  const startedAt = performance.now();
  execFileSync(process.execPath, [cli, 'build', project, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  return performance.now() - startedAt;
}

function serve(cli, tree) {
  const child = spawn(process.execPath, [cli, 'serve', tree, '--http', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(text);
      if (match) resolve({ base: match[1], stop: () => child.kill() });
    });
    child.on('exit', () => reject(new Error(`serve exited: ${text}`)));
  });
}

/** One page view: time to interactive, time to every resource listed (new page only), heap and nodes. */
async function measureView(browser, base) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  await session.send('Performance.enable');
  const startedAt = performance.now();
  await page.goto(`${base}/`, { timeout: 300_000 });
  await page
    .locator('#status')
    .filter({ hasText: /Connected to/ })
    .waitFor({ timeout: 300_000 });
  await page.locator('article.tool form button').first().waitFor({ timeout: 300_000 });
  const interactiveMs = performance.now() - startedAt;
  let listedMs;
  if ((await page.locator('button.more').count()) > 0) {
    await page.waitForFunction(
      (count) => document.querySelector('button.more')?.textContent?.includes(`(${count - 50} not shown)`),
      RESOURCES,
      { timeout: 120_000 },
    );
    listedMs = performance.now() - startedAt;
  } else {
    await page.locator('article.resource form').last().waitFor({ timeout: 120_000 });
    listedMs = performance.now() - startedAt;
  }
  await session.send('HeapProfiler.collectGarbage');
  const { metrics } = await session.send('Performance.getMetrics');
  const metric = (name) => metrics.find((entry) => entry.name === name)?.value ?? 0;
  const result = {
    interactiveMs,
    listedMs,
    heapMb: metric('JSHeapUsedSize') / 1024 / 1024,
    nodes: metric('Nodes'),
    heightPx: await page.evaluate(() => document.documentElement.scrollHeight),
  };
  await context.close();
  return result;
}

async function measure(label, cli, project, browser) {
  const out = path.join(tempDir('staticmcp-page-tree-'), 'tree');
  const buildMs = build(cli, project, out);
  const html = readFileSync(path.join(out, 'index.html'));
  const server = await serve(cli, out);
  try {
    await measureView(browser, server.base);
    const views = [];
    for (let run = 0; run < RUNS; run += 1) views.push(await measureView(browser, server.base));
    const figures = {
      label,
      buildS: buildMs / 1000,
      indexHtmlBytes: html.length,
      indexHtmlGzip: gzipSync(html).length,
      interactiveMs: median(views.map((view) => view.interactiveMs)),
      listedMs: median(views.map((view) => view.listedMs)),
      heapMb: median(views.map((view) => view.heapMb)),
      nodes: median(views.map((view) => view.nodes)),
      heightPx: median(views.map((view) => view.heightPx)),
    };
    console.log(
      `${label}: index.html ${figures.indexHtmlBytes} B (${figures.indexHtmlGzip} gzip), interactive ${figures.interactiveMs.toFixed(0)} ms, ` +
        `every resource listed ${figures.listedMs.toFixed(0)} ms, JS heap ${figures.heapMb.toFixed(1)} MB, ` +
        `${figures.nodes} DOM nodes, page ${figures.heightPx} px tall (build ${figures.buildS.toFixed(1)} s)`,
    );
    return figures;
  } finally {
    server.stop();
  }
}

if (!existsSync('/usr/bin/chromium')) {
  console.log('skipped: /usr/bin/chromium is missing (apt-get install chromium)');
  process.exit(0);
}
const project = writeProject();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  console.log(`${RESOURCES} resources, median of ${RUNS} views at 1280×800`);
  const current = await measure('this build', cliPath, project, browser);
  if (BASELINE_CLI) {
    const baseline = await measure('baseline', BASELINE_CLI, project, browser);
    const ratio = (key) => (current[key] / baseline[key]).toFixed(2);
    console.log(
      `ratios (this / baseline): index.html ${ratio('indexHtmlBytes')}, interactive ${ratio('interactiveMs')}, ` +
        `listed ${ratio('listedMs')}, heap ${ratio('heapMb')}, nodes ${ratio('nodes')}, height ${ratio('heightPx')}`,
    );
  }
} finally {
  await browser.close();
}
