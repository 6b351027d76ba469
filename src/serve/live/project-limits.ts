// The live-run limits a project sets in its staticmcp.json (`limits.timeoutMs`,
// `limits.maxOutputBytes`, `limits.liveConcurrency`), read as plain JSON on each live run: no ajv at start-up, and a
// `staticmcp dev` session sees an edited config at once. Anything unusable falls back to the
// defaults with a reason (the build reports the same file strictly).
import { promises as fs } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { DEFAULT_LIVE_TIMEOUT_MS, LIVE_MAX_OUTPUT_BYTES } from './live-limits.js';

export interface LiveLimits {
  timeoutMs: number;
  maxOutputBytes: number;
  /** Live runs at once; more wait their turn, the wait counting against their timeout. */
  liveConcurrency: number;
}

/**
 * Live scripts mostly wait (on the network, a database, a disk), so a few per core: two at once,
 * as before, made the hundredth of 100 concurrent one-second calls answer after 50 s.
 */
export const DEFAULT_LIVE_CONCURRENCY = Math.max(8, 4 * availableParallelism());
export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  timeoutMs: DEFAULT_LIVE_TIMEOUT_MS,
  maxOutputBytes: LIVE_MAX_OUTPUT_BYTES,
  liveConcurrency: DEFAULT_LIVE_CONCURRENCY,
};
const CONFIG_FILE = 'staticmcp.json';

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The limits, and a problem to report when the file exists but could not be used as a whole. */
export async function readProjectLimits(projectRoot: string): Promise<{ limits: LiveLimits; problem?: string }> {
  let text: string;
  try {
    text = await fs.readFile(path.join(projectRoot, CONFIG_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { limits: DEFAULT_LIVE_LIMITS };
    return {
      limits: DEFAULT_LIVE_LIMITS,
      problem: `${CONFIG_FILE} cannot be read (${code ?? 'error'}); live runs use the default limits`,
    };
  }
  let config: unknown;
  try {
    config = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return {
      limits: DEFAULT_LIVE_LIMITS,
      problem: `${CONFIG_FILE} is not valid JSON; live runs use the default limits`,
    };
  }
  const raw = config && typeof config === 'object' ? (config as { limits?: unknown }).limits : undefined;
  if (raw === undefined) return { limits: DEFAULT_LIVE_LIMITS };
  const given = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const limits = { ...DEFAULT_LIVE_LIMITS };
  const ignored: string[] = [];
  for (const key of ['timeoutMs', 'maxOutputBytes', 'liveConcurrency'] as const) {
    if (given[key] === undefined) continue;
    if (isPositiveInteger(given[key])) limits[key] = given[key];
    else ignored.push(`limits.${key}`);
  }
  return ignored.length > 0
    ? {
        limits,
        problem: `${CONFIG_FILE}: ${ignored.join(' and ')} must be a whole number above 0; the default is used for live runs`,
      }
    : { limits };
}
