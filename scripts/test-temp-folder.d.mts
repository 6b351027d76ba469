// Types of scripts/test-temp-folder.mjs for the test that imports it.
export const SHARED_MEMORY: string;
export const CLI_TIER_TMPDIR: string;
export const MIN_FREE_BYTES: number;
export function makeTestTempFolder(options?: {
  env?: NodeJS.ProcessEnv;
  root?: string;
  minFreeBytes?: number;
}): string | undefined;
export function removeTestTempFolder(folder: string): void;
