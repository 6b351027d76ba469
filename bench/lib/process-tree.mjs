// CPU of a process and everything under it, read from /proc (Linux): what a runtime the benches
// start (wrangler, chromium) has used so far, its helpers (workerd, esbuild, renderers) included.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user+sys) of `pid` and every process under it, each with the times of the children
 * it has reaped, so a helper that already ended still counts when its parent waited for it.
 */
export function treeCpuSeconds(pid) {
  const stats = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command's closing parenthesis: ppid is field 4, utime, stime, cutime, cstime 14–17.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      stats.set(Number(name), { ppid: Number(fields[1]), ticks });
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  let ticks = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.pop();
    ticks += stats.get(current)?.ticks ?? 0;
    for (const [child, stat] of stats) if (stat.ppid === current) queue.push(child);
  }
  return ticks / TICKS_PER_SECOND;
}
