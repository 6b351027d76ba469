// The fixed CPU of one CLI run on a small project (fixtures/example), what every user and every
// CLI test pays: a cold build (no build cache, a new output folder), a no-op rebuild, `check` of
// the tree, `init` of a new project, and `serve` started, asked `initialize`, and closed. CPU is user+sys of the whole
// process tree (the fixture's scripts included) from /usr/bin/time, which a loaded machine
// disturbs far less than the wall time; `node -e 0` is Node's own start, measured alongside.
// BEFORE_CLI=/old/checkout/dist/cli/staticmcp.cjs measures that CLI alternately in the same run,
// for before/after ratios; NODE24=/path/to/node measures on that Node too. RUNS (default 12).
// Run: npm run build && node bench/cli-overhead.mjs
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cliPath, median, nodeBinaries, repoRoot, tempDir } from './lib/bridge-lib.mjs';

const RUNS = Number(process.env.RUNS ?? 12);
const TIME = '/usr/bin/time';
if (!existsSync(TIME)) {
  console.log('cli-overhead: needs GNU time at /usr/bin/time; skipped');
  process.exit(0);
}
const clis = [
  ...(process.env.BEFORE_CLI ? [{ label: 'before', path: path.resolve(process.env.BEFORE_CLI) }] : []),
  { label: process.env.BEFORE_CLI ? 'after' : 'this', path: cliPath },
];
const root = tempDir('staticmcp-cli-overhead-');
const timeFile = path.join(root, 'time.txt');
const example = path.join(repoRoot, 'fixtures', 'example');

/** CPU ms (user+sys, children included) of the last command run under GNU time. */
function readCpuMs() {
  const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
  return (user + system) * 1000;
}

function timeCommand(node, args) {
  const result = spawnSync(TIME, ['-f', '%U %S', '-o', timeFile, node, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return readCpuMs();
}

/** `serve <tree>` from spawn to exit, having answered one initialize request. */
function timeServe(node, cli, tree) {
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ['-f', '%U %S', '-o', timeFile, node, cli, 'serve', tree], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      output += text;
      if (output.includes('\n')) child.stdin.end();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      output.includes('"protocolVersion"')
        ? resolve(readCpuMs())
        : reject(new Error(`serve exited ${code}: ${output}`)),
    );
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}

/** One round of every case for one CLI: ms of CPU by case. */
async function measureOnce(node, cli, round) {
  const project = path.join(root, `project-${round}`);
  const tree = path.join(root, `tree-${round}`);
  const started = path.join(root, `init-${round}`);
  for (const folder of [project, tree, started]) rmSync(folder, { recursive: true, force: true });
  cpSync(example, project, { recursive: true, filter: (source) => path.basename(source) !== '.staticmcp' });
  const figures = {
    'cold build': timeCommand(node, [cli, 'build', project, '--out', tree]),
    'no-op rebuild': timeCommand(node, [cli, 'build', project, '--out', tree]),
    check: timeCommand(node, [cli, 'check', tree]),
    init: timeCommand(node, [cli, 'init', started]),
    'serve → initialize': await timeServe(node, cli, tree),
  };
  for (const folder of [project, tree, started]) rmSync(folder, { recursive: true, force: true });
  return figures;
}

for (const { binary, version } of nodeBinaries()) {
  const nodeStart = [];
  const byCli = clis.map(() => ({}));
  // A first round of each, not counted: the file cache and the code caches filled.
  for (const cli of clis) await measureOnce(binary, cli.path, 'warm');
  for (let round = 0; round < RUNS; round += 1) {
    nodeStart.push(timeCommand(binary, ['-e', '0']));
    for (const [index, cli] of clis.entries()) {
      const figures = await measureOnce(binary, cli.path, `${index}-${round}`);
      for (const [name, ms] of Object.entries(figures)) {
        byCli[index][name] ??= [];
        byCli[index][name].push(ms);
      }
    }
  }
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`CPU (user+sys, ms) on Node ${version}, ${RUNS} alternating rounds: median (mean)`);
  console.log(`  node -e 0: ${median(nodeStart).toFixed(0)} (${mean(nodeStart).toFixed(0)})`);
  for (const name of Object.keys(byCli[0])) {
    const cells = clis.map((cli, index) => {
      const values = byCli[index][name];
      return `${cli.label} ${median(values).toFixed(0)} (${mean(values).toFixed(0)})`;
    });
    const ratio =
      clis.length === 2 ? `, after/before ${(mean(byCli[1][name]) / mean(byCli[0][name])).toFixed(2)} (means)` : '';
    console.log(`  ${name}: ${cells.join(', ')}${ratio}`);
  }
}
