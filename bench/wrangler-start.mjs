// The CPU of starting `wrangler pages dev` over the built example, as the runtimes tier starts it
// (test/hosts/host-processes.ts): through wrangler's bin (bin/wrangler.js, which starts a second
// node on wrangler-dist/cli.js) or that second line directly. CPU is user+sys of the whole process
// tree (workerd and esbuild included) from its start until 3 s after it first answered a request,
// read from /proc; the two ways run alternately.
// RUNS (default 4) rounds. Run: npm run build && node bench/wrangler-start.mjs
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { cliPath, median, repoRoot, tempDir } from './lib/common.mjs';
import { treeCpuSeconds } from './lib/process-tree.mjs';

const RUNS = Number(process.env.RUNS ?? 4);
const wranglerFolder = path.dirname(
  createRequire(path.join(repoRoot, 'package.json')).resolve('wrangler/package.json'),
);
const WAYS = [
  { label: 'bin/wrangler.js', args: [path.join(wranglerFolder, 'bin', 'wrangler.js')] },
  {
    label: 'wrangler-dist/cli.js',
    args: ['--no-warnings', '--experimental-vm-modules', path.join(wranglerFolder, 'wrangler-dist', 'cli.js')],
  },
];

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One start: CPU seconds of the tree once it answered, and 3 s later. */
async function measureOnce(way, tree, round) {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const home = path.join(root, `home-${round}`);
  mkdirSync(home, { recursive: true });
  const child = spawn(
    process.execPath,
    [...way.args, 'pages', 'dev', tree, '--compatibility-date', '2025-09-01', '--ip', '127.0.0.1'].concat([
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
    ]),
    {
      cwd: home,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: home, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
    },
  );
  let output = '';
  await new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      if (output.includes(`Ready on http://127.0.0.1:${port}`)) resolve();
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.on('exit', (code) => reject(new Error(`wrangler exited ${code}:\n${output}`)));
  });
  const answer = await fetch(`http://127.0.0.1:${port}/mcp.json`);
  await answer.text();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const seconds = treeCpuSeconds(child.pid);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGKILL');
  await exited;
  return seconds;
}

const root = tempDir('staticmcp-wrangler-start-');
const project = path.join(root, 'example');
cpSync(path.join(repoRoot, 'fixtures', 'example'), project, { recursive: true });
const built = spawnSync(process.execPath, [cliPath, 'build', project], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
const tree = path.join(project, 'dist');
// Not counted: the file cache filled.
await measureOnce(WAYS[0], tree, 'warm');
const seconds = WAYS.map(() => []);
for (let round = 0; round < RUNS; round += 1)
  for (const [index, way] of WAYS.entries()) seconds[index].push(await measureOnce(way, tree, `${index}-${round}`));
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log(`wrangler pages dev start, CPU (user+sys, s), ${RUNS} alternating rounds: median (mean)`);
for (const [index, way] of WAYS.entries()) {
  const ratio = index === 0 ? '' : `, ${(mean(seconds[index]) / mean(seconds[0])).toFixed(2)} of the bin's (means)`;
  console.log(`  ${way.label}: ${median(seconds[index]).toFixed(2)} (${mean(seconds[index]).toFixed(2)})${ratio}`);
}
