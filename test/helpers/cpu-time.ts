// The CPU time this test process spends on a piece of work, for the tests that bound work (linear,
// not quadratic; refused before it is parsed): a busy machine stretches the wall time of the same
// work many times over, but hardly its CPU time. Test files run in forks, one at a time per
// process, so the process's CPU time is this test's.

/** CPU milliseconds (user + system) this process has spent since `start`. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000;
}
