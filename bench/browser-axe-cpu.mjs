// The CPU chromium and this process spend on one axe-core scan of the landing page as test/browser
// runs it (the rules that can report a serious or critical violation), for each way of loading
// and asking axe: its source sent by playwright's page.evaluate or by one Runtime.evaluate on a
// CDP session of the page; the rules alone, or with `resultTypes: ['violations']`, which keeps axe
// from building a selector for every node that passes (the violations are the same; the bench
// checks they match).
// Each visit loads the page at one of test/browser's two screens from about:blank, then times
// loading axe and the scan: chromium's whole process tree, user+sys, read from /proc around the
// scan, plus this process's own. Variants alternate visit by visit in one browser; the first
// visit of each is not measured.
// VISITS (default 8) measured visits per variant.
// Run: npm run build && node bench/browser-axe-cpu.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { treeCpuSeconds } from './lib/process-tree.mjs';
import { startServeHttp } from './lib/serve-http.mjs';

/** This process's CPU seconds so far (playwright's client side of each evaluate). */
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const VISITS = Number(process.env.VISITS ?? 8);
const CHROMIUM = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((file) => existsSync(file));
if (CHROMIUM === undefined) {
  console.log('browser-axe-cpu: needs chromium-headless-shell or chromium; skipped');
  process.exit(0);
}
const require = createRequire(path.join(repoRoot, 'package.json'));
const { chromium } = require('playwright-core');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/** test/browser/browser.ts's rule selection: off, each rule that cannot report serious or critical. */
const SERIOUS_RULES = `(() => {
  const off = {};
  for (const rule of axe._audit.rules) {
    const checks = [...rule.any, ...rule.all, ...rule.none].map((check) => typeof check === 'string' ? check : check.id);
    const impacts = [rule.impact, ...checks.map((id) => axe._audit.checks[id]?.metadata?.impact)];
    if (!impacts.some((impact) => impact === 'serious' || impact === 'critical')) off[rule.id] = { enabled: false };
  }
  return { rules: off };
})()`;
const VIOLATIONS_ONLY = `({ ...${SERIOUS_RULES}, resultTypes: ['violations'] })`;
/** How axe's source reaches the page: playwright's evaluate, or one Runtime.evaluate on a CDP session of the page's. */
const VARIANTS = [
  { label: 'page.evaluate, serious rules', options: SERIOUS_RULES, load: 'playwright' },
  { label: "page.evaluate, serious rules, resultTypes: ['violations']", options: VIOLATIONS_ONLY, load: 'playwright' },
  { label: "CDP Runtime.evaluate, serious rules, resultTypes: ['violations']", options: VIOLATIONS_ONLY, load: 'cdp' },
];
const SCREENS = [
  { width: 1280, height: 900, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
];

const root = tempDir('staticmcp-browser-axe-');
const project = path.join(root, 'example');
cpSync(path.join(repoRoot, 'fixtures', 'example'), project, { recursive: true });
const built = spawnSync(process.execPath, [cliPath, 'build', project], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
const serve = await startServeHttp(project);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-site-isolation-trials'],
});
const pid = Number(
  spawnSync('pgrep', ['-P', String(process.pid), 'chromium'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')[0],
);
try {
  const page = await (await browser.newContext()).newPage();
  const session = await page.context().newCDPSession(page);
  const seconds = VARIANTS.map(() => []);
  const found = VARIANTS.map(() => new Set());
  for (let visit = 0; visit < (VISITS + 1) * VARIANTS.length; visit += 1) {
    const index = visit % VARIANTS.length;
    const { width, height, colorScheme } = SCREENS[Math.floor(visit / VARIANTS.length) % SCREENS.length];
    await page.goto('about:blank');
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    await page.goto(`${serve.base}/`);
    await page
      .locator('#status')
      .filter({ hasNotText: /Looking for|Served, this page/ })
      .waitFor();
    const before = treeCpuSeconds(pid) + cpuSeconds();
    if (VARIANTS[index].load === 'cdp') await session.send('Runtime.evaluate', { expression: AXE_SOURCE });
    else await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(
      `axe.run(${VARIANTS[index].options}).then(({ violations }) => violations.map((v) => v.id + ' ' + v.impact + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
    );
    const used = treeCpuSeconds(pid) + cpuSeconds() - before;
    found[index].add(JSON.stringify(violations));
    if (visit >= VARIANTS.length) seconds[index].push(used);
  }
  console.log(
    `chromium + node CPU (user+sys, s) of loading axe and one scan, ${VISITS} visits each, alternated: median [each]`,
  );
  for (const [index, variant] of VARIANTS.entries()) {
    const ratio = index === 0 ? '' : `, ${(median(seconds[index]) / median(seconds[0])).toFixed(2)} of the first`;
    const each = seconds[index].map((value) => value.toFixed(2)).join(' ');
    console.log(`  ${variant.label}: ${median(seconds[index]).toFixed(2)}${ratio} [${each}]`);
  }
  const same = found.every((set) => set.size === found[0].size && [...set].every((one) => found[0].has(one)));
  console.log(`  violations the same in every variant: ${same} (${[...found[0]].join(' | ')})`);
} finally {
  await browser.close();
  serve.stop();
}
