// CPU seconds of the processes vitest's own process runs outside any test file (the global setup's
// shared host runtimes, its reaped workers and compile steps), read from Linux /proc: with
// STATICMCP_TEST_CPU_LOG set, test/global-setup.ts appends them to the log at teardown beside the
// per-file lines of cpu-log.setup.ts, so the log accounts for the time outside the files too.
// Tests that bound a server's work read its CPU here too (readCpuMs): CPU, unlike a wall-clock
// bound, does not grow with the machine's load. A process a test file starts whose own children
// outlive it (chromium's renderers, reparented to init when the browser ends) leaves their CPU in
// no process's reaped time: noteUnreapedCpu keeps it for the file's line in cpu-log.setup.ts.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

interface ProcessStat {
  pid: number;
  ppid: number;
  /** utime + stime of the process itself, in clock ticks. */
  ownTicks: number;
  /** cutime + cstime: its children that have ended and were waited for, in clock ticks. */
  reapedTicks: number;
}

/** One /proc/<pid>/stat; undefined when the process ended meanwhile or /proc is missing. */
function readStat(pid: number | 'self'): ProcessStat | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command may hold spaces and parentheses: the fields start after its last ') '.
    const fields = line.slice(line.lastIndexOf(') ') + 2).split(' ');
    const at = (index: number): number => Number(fields[index] ?? 0);
    return {
      pid: Number(line.slice(0, line.indexOf(' '))),
      ppid: at(1),
      ownTicks: at(11) + at(12),
      reapedTicks: at(13) + at(14),
    };
  } catch {
    return undefined;
  }
}

/** The CPU time process `pid` has used (all its threads, user and system), in milliseconds; Linux only. */
export function readCpuMs(pid: number): number {
  const stat = readStat(pid);
  if (!stat) throw new Error(`no /proc/${pid}/stat: the process ended, or this system has no /proc`);
  return (stat.ownTicks * 1000) / CLOCK_TICKS_PER_SECOND;
}

function listProcesses(): ProcessStat[] {
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.map((pid) => readStat(Number(pid))).filter((stat): stat is ProcessStat => stat !== undefined);
}

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(0, 4).join(' ');
  } catch {
    return '';
  }
}

const toSeconds = (ticks: number): number => Math.round(ticks) / CLOCK_TICKS_PER_SECOND;

/**
 * Appends to `logFile` one JSON line for this process (its own CPU, and its ended children's) and one
 * for each child still running with everything under it (a host runtime, chromium, a worker).
 */
export function logOutsideCpu(logFile: string, label: string): void {
  const self = readStat('self');
  if (!self) return;
  const processes = listProcesses();
  const children = new Map<number, ProcessStat[]>();
  for (const stat of processes) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const subtreeTicks = (stat: ProcessStat): number =>
    stat.ownTicks +
    stat.reapedTicks +
    (children.get(stat.pid) ?? []).reduce((sum, child) => sum + subtreeTicks(child), 0);
  const lines = [
    { outside: `${label}: vitest's process`, cpuSeconds: toSeconds(self.ownTicks) },
    // The test workers are among them: this overlaps the files' own lines.
    { outside: `${label}: its ended children`, cpuSeconds: toSeconds(self.reapedTicks) },
    ...(children.get(self.pid) ?? []).map((child) => ({
      // A child that ended and was not waited for yet has no command line left.
      outside: `${label}: ${readCommand(child.pid) || `process ${child.pid}, ended (a test worker?)`}`,
      cpuSeconds: toSeconds(subtreeTicks(child)),
    })),
  ];
  appendFileSync(logFile, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** CPU seconds of `pid` and every process under it now, each with the children it has reaped. */
export function readTreeCpuSeconds(pid: number): number {
  const processes = listProcesses();
  let ticks = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.pop();
    for (const stat of processes) {
      if (stat.pid === current) ticks += stat.ownTicks + stat.reapedTicks;
      else if (stat.ppid === current) queue.push(stat.pid);
    }
  }
  return toSeconds(ticks);
}

/** CPU seconds of the children this process has waited for. */
export function readReapedCpuSeconds(): number {
  return toSeconds(readStat('self')?.reapedTicks ?? 0);
}

/** The running children of this process whose command starts with `executable`. */
export function listChildPids(executable: string): number[] {
  return listProcesses()
    .filter((stat) => stat.ppid === process.pid && readCommand(stat.pid).split(' ')[0] === executable)
    .map((stat) => stat.pid);
}

// On globalThis: the test file's helpers and the setup file may load this module apart.
const UNREAPED = Symbol.for('staticmcp.test.unreaped-cpu');
type WithUnreaped = typeof globalThis & { [UNREAPED]?: number };

/** Adds CPU seconds the running test file's processes used that no reaped time of this process holds. */
export function noteUnreapedCpu(seconds: number): void {
  const shared = globalThis as WithUnreaped;
  shared[UNREAPED] = (shared[UNREAPED] ?? 0) + seconds;
}

/** The CPU seconds noted since the last call (cpu-log.setup.ts adds them to the file's line). */
export function takeUnreapedCpu(): number {
  const shared = globalThis as WithUnreaped;
  const seconds = shared[UNREAPED] ?? 0;
  shared[UNREAPED] = 0;
  return seconds;
}
