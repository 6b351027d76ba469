// A developer's view of where a build's memory and CPU go: with STATICMCP_STAGE_MEMORY=1 the build
// prints the process's memory after each of its stages to stderr (build-project.ts), so a growth
// with the number of calls shows at the stage that makes it (bench/build-memory.mjs measures the
// peak). Under `node --expose-gc` each line follows a full collection: the live bytes, not garbage.
// Each line starts with the process's CPU time so far (user + system, all threads): the
// difference between two lines is what a stage cost, which a loaded machine's wall time hides.
// Then the wall time since the process started: where a stage waited (on the disk, on a child
// process, on the machine's other load) shows as wall time its CPU does not account for.
// Each line ends with the process's peak RSS so far: a rise there between two lines is a peak
// inside the stage between them, which the line after it (maybe after a collection) no longer shows.

const enabled = process.env.STATICMCP_STAGE_MEMORY === '1';

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/** Prints `stage` with RSS, heap used/total, external, array buffers and peak RSS in MB (nothing unless enabled). */
export function noteStageMemory(stage: string): void {
  if (!enabled) return;
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  const cpu = process.cpuUsage();
  process.stderr.write(
    `[memory] ${stage.padEnd(12)} cpu ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(6)} ms wall ${performance.now().toFixed(0).padStart(6)} ms rss ${megabytes(usage.rss)} heap ${megabytes(usage.heapUsed)}/${megabytes(usage.heapTotal)} external ${megabytes(usage.external)} array buffers ${megabytes(usage.arrayBuffers)} peak rss ${megabytes(process.resourceUsage().maxRSS * 1024)} MB\n`,
  );
}
