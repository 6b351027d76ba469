// The client channel of a live tool call: a script may ask the MCP client something (an LLM
// completion with sampling/createMessage, user input with elicitation/create, roots/list) by
// writing one JSON line `{"method": …, "params": {…}}` to file descriptor 3 and reading one JSON
// line back: `{"result": {…}}` or `{"error": {"code": …, "message": …}}`. This turns those lines
// into questions for the session and answers into lines; portable, like the rest of the core.
import type { ClientAnswer } from './server-context.js';
import { isObject } from '../tree/json-object.js';

/** The file descriptor the channel is on, also given to scripts as STATICMCP_CLIENT_FD. */
export const CLIENT_CHANNEL_FD = 3;
/** A question longer than this is refused (and the rest of the line skipped). */
export const MAX_CLIENT_REQUEST_BYTES = 1024 * 1024;

/** `key` (optional, any JSON as written) names the question in a 2026-07-28 InputRequiredResult. */
export type ClientQuestion = { method: string; params: Record<string, unknown>; key?: unknown };

/** One line a script wrote → its question, or why it cannot be asked (answered to the script as an error). */
export function parseClientQuestion(line: string): ClientQuestion | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: 'the line is not JSON; write one line {"method": "…", "params": {…}}' };
  }
  if (!isObject(value) || typeof value.method !== 'string')
    return { problem: 'the line needs a "method" (a string) and "params" (an object)' };
  if (value.params !== undefined && !isObject(value.params)) return { problem: '"params" must be an object' };
  return {
    method: value.method,
    params: (value.params as Record<string, unknown> | undefined) ?? {},
    ...(value.key !== undefined ? { key: value.key } : {}),
  };
}

/** The line written back to the script (one line: JSON text has no raw newlines). */
export function formatClientAnswer(answer: ClientAnswer): string {
  return JSON.stringify('result' in answer ? { result: answer.result ?? {} } : { error: answer.error });
}

/** An answer for a line that could not be asked. */
export function refusedAnswer(problem: string): ClientAnswer {
  return { error: { code: -32600, message: problem } };
}
