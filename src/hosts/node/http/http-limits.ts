// The per-request caps of `serve --http` that an operator (or a test) may lower or raise without a
// rebuild: environment variables read once at start-up. Each one unset keeps the default named
// beside it (the defaults and why those numbers live with the code they bound).
import type { AnswerLimits } from '../../../core/mcp/answer-budget.js';

/**
 * A client that takes none of its answer for this long is cut and its buffered answer freed. As
 * long as the whole-request timeout: a reading client on the slowest link takes a chunk far more
 * often, and a live call still running writes nothing, so it is never cut by this.
 */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

export interface HttpLimits {
  answerLimits: Partial<AnswerLimits>;
  maxQueuedStreamBytes?: number;
  writeTimeoutMs: number;
}

/** Variable → the limit it sets (all whole numbers above 0). */
const VARIABLES = {
  STATICMCP_HTTP_MAX_BATCH_LENGTH: 'maxBatchLength',
  STATICMCP_HTTP_MAX_ANSWER_BYTES: 'maxAnswerBytes',
  STATICMCP_HTTP_MAX_MESSAGE_VALUES: 'maxMessageValues',
  STATICMCP_HTTP_MAX_QUEUED_STREAM_BYTES: 'maxQueuedStreamBytes',
  STATICMCP_HTTP_WRITE_TIMEOUT_MS: 'writeTimeoutMs',
} as const;

/** The limits `env` sets; throws, naming the variable, for a value that is not a whole number above 0. */
export function readHttpLimits(env: NodeJS.ProcessEnv = process.env): HttpLimits {
  const given: Partial<Record<(typeof VARIABLES)[keyof typeof VARIABLES], number>> = {};
  for (const [variable, limit] of Object.entries(VARIABLES)) {
    const text = env[variable];
    if (text === undefined || text === '') continue;
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1)
      throw new Error(
        `${variable}=${JSON.stringify(text.slice(0, 40))} is not a whole number above 0; fix or unset it`,
      );
    given[limit as (typeof VARIABLES)[keyof typeof VARIABLES]] = value;
  }
  return {
    answerLimits: {
      ...(given.maxBatchLength !== undefined ? { maxBatchLength: given.maxBatchLength } : {}),
      ...(given.maxAnswerBytes !== undefined ? { maxAnswerBytes: given.maxAnswerBytes } : {}),
      ...(given.maxMessageValues !== undefined ? { maxMessageValues: given.maxMessageValues } : {}),
    },
    ...(given.maxQueuedStreamBytes !== undefined ? { maxQueuedStreamBytes: given.maxQueuedStreamBytes } : {}),
    writeTimeoutMs: given.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
  };
}
