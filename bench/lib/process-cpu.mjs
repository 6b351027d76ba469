// CPU of a server process measured from outside it: workerd reports no CPU time per request
// locally, so benches read the on-CPU time of all its threads before and after each request.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** On-CPU nanoseconds of every thread of `pid` so far (the schedstat of each /proc/<pid>/task). */
export function cpuNs(pid) {
  let total = 0;
  for (const task of spawnSync('ls', [`/proc/${pid}/task`], { encoding: 'utf8' }).stdout.split('\n')) {
    if (!task) continue;
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total;
}

/**
 * On-CPU nanoseconds of `pid`'s main thread (workerd runs its isolates, their I/O and the file
 * service there) and of its other threads together (V8's workers: background compiles and GC).
 */
export function cpuNsByThread(pid) {
  const main = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  return { main, others: cpuNs(pid) - main };
}

/** The pid of `parentPid`'s child named `name` (miniflare starts workerd as one). */
export function childPid(parentPid, name) {
  const found = spawnSync('pgrep', ['-P', String(parentPid), name], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n');
  return Number(found[0]);
}
