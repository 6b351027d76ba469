// Bounded work per 2025-03-26 batch, on every host that takes batches (stdio, serve --http, the
// worker): a batch longer than the cap is refused whole before any of it runs (with --live, one
// POST must not start thousands of script runs), and the answers of a batch that is let through
// are counted as they arrive, so an answer that would take the batch past the byte cap is replaced
// by an error naming its request. A batch's answer then never reaches the size where serialising
// it fails (V8 strings end near 512 MB), and a small request cannot buy a huge answer.
import { stringifyJsonRpc } from './exact-ids.js';
import { errorResponse, INVALID_REQUEST } from './json-rpc.js';

type Outgoing = Record<string, unknown>;

/**
 * Messages in one batch. Batching left the protocol in 2025-06-18 and the clients that still send
 * batches send a handful (a list and a few calls); 100 leaves them all room while one POST can
 * queue at most 100 requests (and so at most 100 live runs, which the live slots then pace).
 */
export const DEFAULT_MAX_BATCH_LENGTH = 100;
/**
 * Bytes of answers one batch may produce. Eight times the 4 MiB body cap: a batch reading several
 * large resources of a real tree fits, while a client that does not read its answers holds at most
 * this much per request (the write timeout frees it), far from the ~512 MB where JSON fails.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** A server error: the request was valid, the answer is what the server will not send. */
const ANSWER_TOO_LARGE = -32000;

export interface AnswerLimits {
  maxBatchLength: number;
  maxAnswerBytes: number;
}

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = {
  maxBatchLength: DEFAULT_MAX_BATCH_LENGTH,
  maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES,
};

/** The error for a batch over the length cap (answered instead of the batch), or undefined. */
export function refuseLongBatch(length: number, limits: AnswerLimits): Outgoing | undefined {
  if (length <= limits.maxBatchLength) return undefined;
  return errorResponse(
    null,
    INVALID_REQUEST,
    `Invalid request: the batch holds ${length} messages, more than the ${limits.maxBatchLength} this server answers in one batch; send them in smaller batches`,
  );
}

/** The bytes one batch's answers may still take; each answer is admitted or replaced by an error. */
export class AnswerBudget {
  private leftBytes: number;

  constructor(maxBytes: number) {
    this.leftBytes = maxBytes;
  }

  /** The answer itself while the batch stays under its cap; past it, an error with the answer's id. */
  admit(answer: Outgoing): Outgoing {
    let bytes: number;
    try {
      bytes = countUtf8Bytes(stringifyJsonRpc(answer));
    } catch {
      // Too large to serialise at all (past V8's string length).
      bytes = Number.POSITIVE_INFINITY;
    }
    if (bytes <= this.leftBytes) {
      this.leftBytes -= bytes;
      return answer;
    }
    this.leftBytes = Math.max(0, this.leftBytes);
    const id = answer.id === undefined ? null : (answer.id as string | number | null);
    return errorResponse(
      id,
      ANSWER_TOO_LARGE,
      'Answer too large: the answers of this batch passed the size this server sends for one batch; send this request again on its own or in a smaller batch',
    );
  }
}

/** UTF-8 length of a string without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
function countUtf8Bytes(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      // A pair: 4 bytes for 2 code units.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2;
        index += 1;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
