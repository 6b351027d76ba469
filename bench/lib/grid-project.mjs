// Shared by bench/build-memory.mjs and bench/build-scale.mjs: a one-tool project whose shell script
// multiplies two integers, `a` (1 … size / 100) and `b` (1 … 100), so its calls number `size`
// rounded up to a hundred; and the --import hook that records a child's own peak RSS (not its
// scripts') when it exits.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Values of the second parameter; the first gets size / this many. */
export const SECOND_VALUES = 100;

/** `node --import PEAK_RSS_HOOK …` writes the process's peak RSS in KiB to $BENCH_RSS_FILE at exit. */
export const PEAK_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  'import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(process.env.BENCH_RSS_FILE,String(process.resourceUsage().maxRSS)))',
)}`;

/**
 * Writes the grid project to `<root>/project`; returns its folder, its script, how many calls it
 * has, and the (a, b) pairs of those calls, one `a b` a line (for an xargs baseline).
 */
export function createGridProject(root, size) {
  const first = Math.ceil(size / SECOND_VALUES);
  const project = path.join(root, 'project');
  mkdirSync(path.join(project, 'tools'), { recursive: true });
  const script = path.join(project, 'tools', 'grid');
  writeFileSync(
    script,
    `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Multiply two numbers"}'
  echo '{"a": {"required": true, "value_type": "integer", "size": {"min": 1, "max": ${first}}}, "b": {"required": true, "value_type": "integer", "size": {"min": 1, "max": ${SECOND_VALUES}}}}' >&2
  exit 0
fi
echo "$a x $b"
`,
  );
  chmodSync(script, 0o755);
  writeFileSync(
    path.join(project, 'staticmcp.json'),
    // Past 100,000 calls `a` has more values than maxIntegerRange's default (1,000) enumerates.
    JSON.stringify({
      limits: { maxCallsPerTool: first * SECOND_VALUES, ...(first > 1000 ? { maxIntegerRange: first } : {}) },
    }),
  );
  return {
    project,
    script,
    calls: first * SECOND_VALUES,
    *pairs() {
      for (let a = 1; a <= first; a++) for (let b = 1; b <= SECOND_VALUES; b++) yield `${a} ${b}`;
    },
  };
}

/**
 * Fills the grid project's build cache as its cold build would, without running its scripts (a
 * cold build of 650,000 calls takes hours on two loaded cores): one real build of a single shard
 * (`--shard 1/<n>`, a few dozen calls) makes the tool's cache bucket, then every missing pair's
 * line is appended, keyed as the build keys it (dist/builder/cache-keys.js of `cli`), holding what
 * the script prints. A wrong key would show: the next build would run that call.
 */
export async function fillGridCache(project, size, cli) {
  const { hashParts } = await import(
    pathToFileURL(path.join(path.dirname(cli), '..', 'builder', 'cache-keys.js')).href
  );
  // At most 1,000 shards (the CLI's bound): 650 calls run at 650,000.
  const shards = Math.min(1000, Math.max(1, Math.floor(size / 50)));
  const out = path.join(path.dirname(project), 'shard-tree');
  const result = spawnSync(process.execPath, [cli, 'build', project, '--out', out, '--shard', `1/${shards}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  rmSync(out, { recursive: true, force: true });
  if (result.status !== 0) throw new Error(`the shard build failed (${result.status}): ${result.stderr}`);
  const runs = path.join(project, '.staticmcp', 'cache', 'runs');
  const buckets = readdirSync(runs).filter((name) => name.endsWith('.log'));
  if (buckets.length !== 1) throw new Error(`expected one cache bucket in ${runs}, found ${buckets.length}`);
  const bucket = path.join(runs, buckets[0]);
  const known = new Set(
    readFileSync(bucket, 'utf8')
      .split('\n')
      .map((line) => line.slice(0, 32)),
  );
  const first = Math.ceil(size / SECOND_VALUES);
  const descriptor = openSync(bucket, 'a');
  let lines = [];
  for (let a = 1; a <= first; a++) {
    for (let b = 1; b <= SECOND_VALUES; b++) {
      const key = hashParts({ a, b }).slice(0, 32);
      if (known.has(key)) continue;
      const run = { result: { content: [{ type: 'text', text: `${a} x ${b}\n` }] }, logLines: [], warnings: [] };
      lines.push(`${key}\t${JSON.stringify(run)}\n`);
    }
    if (lines.length >= 10_000 || a === first) {
      writeSync(descriptor, lines.join(''));
      lines = [];
    }
  }
  closeSync(descriptor);
}
