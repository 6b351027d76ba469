// The bounds on what the edge worker reads of a live origin's answer that a site's owner may
// change without a rebuild: text bindings of the worker (wrangler `vars`, Netlify environment
// variables), read per request. Each one unset keeps its default (origin-runner.ts).
import type { OriginAnswerLimits } from './origin-runner.js';

/** Binding → the limit it sets (all whole numbers above 0). */
export const ORIGIN_LIMIT_BINDINGS = {
  STATICMCP_ORIGIN_MAX_ANSWER_BYTES: 'maxAnswerBytes',
  STATICMCP_ORIGIN_MAX_LINE_BYTES: 'maxLineBytes',
  STATICMCP_ORIGIN_MAX_LINES: 'maxLines',
} as const satisfies Record<string, keyof OriginAnswerLimits>;

export type OriginLimitBinding = keyof typeof ORIGIN_LIMIT_BINDINGS;

/** The limits the bindings set, or what is wrong with one of them (every forwarded run says so). */
export function readOriginAnswerLimits(
  env: Partial<Record<OriginLimitBinding, unknown>> | undefined,
): { limits: Partial<OriginAnswerLimits> } | { problem: string } {
  const limits: Partial<OriginAnswerLimits> = {};
  for (const [binding, limit] of Object.entries(ORIGIN_LIMIT_BINDINGS)) {
    const given = env?.[binding as OriginLimitBinding];
    if (given === undefined || given === '') continue;
    const text = String(given);
    const value = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < 1)
      return {
        problem: `the worker's ${binding}=${JSON.stringify(text.slice(0, 40))} is not a whole number above 0; the site's owner fixes or unsets it`,
      };
    limits[limit] = value;
  }
  return { limits };
}
