// Limits for live runs, apart from live-project.ts so handlers can name them without loading
// the spawning module (and node:child_process) at start-up.
export const LIVE_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_LIVE_TIMEOUT_MS = 30_000;
