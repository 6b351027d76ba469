// Ends the host runtimes' process groups when the test process that started them dies, however it
// dies (Ctrl-C, SIGTERM, SIGKILL, a crash): the runtimes run detached, in groups of their own, so
// nothing else would stop them. test/hosts/host-processes.ts starts one of these per process and
// writes `+<pgid>` when a group starts and `-<pgid>` when it ended it; this process runs in a group
// of its own (a terminal's Ctrl-C does not reach it) and, once its stdin closes (the parent ended:
// its pipe closes whatever killed it), sends SIGTERM to each group still listed, SIGKILL to those
// alive after GRACE_MS, then exits.
//   node group-watchdog.mjs
const GRACE_MS = 5_000;

/** Process group ids still running. */
const groups = new Set();
let pending = '';

/** Sends `signal` to group `pgid`; false once the group is gone. */
function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line.startsWith('+')) groups.add(pgid);
    else if (line.startsWith('-')) groups.delete(pgid);
  }
});
process.stdin.on('close', () => {
  for (const pgid of groups) {
    signalGroup(pgid, 'SIGTERM');
    // A group the run paused (test/shared-hosts.ts) handles SIGTERM only once it runs again.
    signalGroup(pgid, 'SIGCONT');
  }
  const startedMs = Date.now();
  const poll = setInterval(() => {
    const alive = [...groups].filter((pgid) => signalGroup(pgid, 0));
    if (alive.length > 0 && Date.now() - startedMs < GRACE_MS) return;
    for (const pgid of alive) signalGroup(pgid, 'SIGKILL');
    clearInterval(poll);
    process.exit(0);
  }, 100);
});
// The parent's own signals never end the watchdog before it has done its work.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
