// A developer's view of where a build's memory goes: with STATICMCP_STAGE_MEMORY=1 the build
// prints the process's memory after each of its stages to stderr (build-project.ts), so a growth
// with the number of calls shows at the stage that makes it (bench/build-memory.mjs measures the
// peak). Under `node --expose-gc` each line follows a full collection: the live bytes, not garbage.

const enabled = process.env.STATICMCP_STAGE_MEMORY === '1';

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/** Prints `stage` with RSS, heap used/total, external and array buffers in MB (nothing unless enabled). */
export function noteStageMemory(stage: string): void {
  if (!enabled) return;
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  process.stderr.write(
    `[memory] ${stage.padEnd(12)} rss ${megabytes(usage.rss)} heap ${megabytes(usage.heapUsed)}/${megabytes(usage.heapTotal)} external ${megabytes(usage.external)} array buffers ${megabytes(usage.arrayBuffers)} MB\n`,
  );
}
