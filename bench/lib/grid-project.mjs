// Shared by bench/build-memory.mjs and bench/build-scale.mjs: a one-tool project whose shell script
// multiplies two integers, `a` (1 … size / 100) and `b` (1 … 100), so its calls number `size`
// rounded up to a hundred; and the --import hook that records a child's own peak RSS (not its
// scripts') when it exits.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
    JSON.stringify({ limits: { maxCallsPerTool: first * SECOND_VALUES } }),
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
