// Bounded work per answer, on every host (stdio, serve --http, the worker). A batch longer than the
// cap is refused whole before any of it runs (with --live, one POST must not start thousands of
// script runs). Every answer is bounded BEFORE it is built: a handler about to read a file whose
// size it knows (a resource, a precomputed call, a prompt) claims that size from its request's
// room first, and a file that would pass what is left is refused from its size, unread; so a batch
// of a hundred reads of a large file reads as many as fit, not a hundred. The answers of a batch
// are then counted as they arrive, so one that still passes the cap (a size nobody knew, such as a
// live run's output) is replaced by an error naming its request. A batch's answer never reaches
// the size where serialising it fails (V8 strings end near 512 MB), a small request cannot buy a
// huge answer, and one request holds a small multiple of the cap at its peak.
import type { AnswerRoom } from '../tree-reading/answer-room.js';
import { stringifyAndKeep } from './exact-ids.js';
import {
  DEFAULT_MAX_MESSAGE_VALUES,
  errorResponse,
  holdsMoreValuesThan,
  INVALID_PARAMS,
  INVALID_REQUEST,
  RpcError,
} from './json-rpc.js';

type Outgoing = Record<string, unknown>;

/**
 * Messages in one batch. Batching left the protocol in 2025-06-18 and the clients that still send
 * batches send a handful (a list and a few calls); 100 leaves them all room while one POST can
 * queue at most 100 requests (and so at most 100 live runs, which the live slots then pace).
 */
export const DEFAULT_MAX_BATCH_LENGTH = 100;
/**
 * Bytes of answers one request (or one batch, all its answers together) may produce. Eight times
 * the 4 MiB body cap: a batch reading several large resources of a real tree fits, while a client
 * that does not read its answers holds at most this much per request (the write timeout frees it),
 * far from the ~512 MB where JSON fails. A single file larger than this is refused from its size.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** A server error: the request was valid, the answer is what the server will not send. */
export const ANSWER_TOO_LARGE = -32000;
/**
 * An error answer this short is always let through (and counted): it is what tells the client
 * why its request got nothing, and a batch's errors together stay within maxBatchLength of these.
 */
const ALWAYS_ADMITTED_ERROR_BYTES = 4096;

/** The caps on what one request (or batch) may make a server do: its length, answers and values. */
export interface AnswerLimits {
  maxBatchLength: number;
  maxAnswerBytes: number;
  /** Array items and object members in one message or batch (json-rpc.ts has the why). */
  maxMessageValues: number;
}

export const DEFAULT_ANSWER_LIMITS: AnswerLimits = {
  maxBatchLength: DEFAULT_MAX_BATCH_LENGTH,
  maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES,
  maxMessageValues: DEFAULT_MAX_MESSAGE_VALUES,
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

/**
 * The error for a message or batch holding more values than the cap, answered before anything
 * walks it (keys, validation and quotes cost per value), or undefined. A message's carries its id.
 */
export function refuseManyValues(parsed: unknown, limits: AnswerLimits): Outgoing | undefined {
  const limit = limits.maxMessageValues;
  if (!holdsMoreValuesThan(parsed, limit)) return undefined;
  const what = Array.isArray(parsed) ? 'batch' : 'message';
  const id = Array.isArray(parsed) ? undefined : (parsed as { id?: unknown }).id;
  return errorResponse(
    typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null,
    INVALID_PARAMS,
    `Invalid params: the ${what} holds more than ${limit} values (array items and object members together), more than this server reads in one ${what}; send less data per request`,
  );
}

/**
 * Answers each entry of a batch in a room of one budget they share: each claims the known size of
 * what it reads before reading it (so past the cap the rest are refused unread), and each answer
 * is counted as it arrives. The answers in order, without the entries that answer nothing.
 */
export async function answerBatchWithin(
  items: unknown[],
  maxBytes: number,
  answer: (item: unknown, room: AnswerRoom) => Promise<Outgoing | undefined>,
): Promise<Outgoing[]> {
  const budget = new AnswerBudget(maxBytes, true);
  const answers = await Promise.all(
    items.map(async (item) => {
      const room = budget.openRoom();
      const response = await answer(item, room);
      if (response) return budget.admit(response, room);
      budget.giveBack(room);
      return undefined;
    }),
  );
  return answers.filter((response): response is Outgoing => response !== undefined);
}

/** The bytes one batch's answers may still take; each answer is admitted or replaced by an error. */
export class AnswerBudget {
  private leftBytes: number;

  /** `batch`: the budget is shared by the entries of a batch (said in the refusals). */
  constructor(
    private readonly maxBytes: number,
    private readonly batch = false,
  ) {
    this.leftBytes = maxBytes;
  }

  /** A room for one request of this budget; what it claims is held until its answer is admitted. */
  openRoom(): AnswerRoom & { heldBytes: number } {
    const room = {
      heldBytes: 0,
      claim: (bytes: number, what: string): void => {
        if (bytes > this.leftBytes) throw this.refusal(bytes, what);
        this.leftBytes -= bytes;
        room.heldBytes += bytes;
      },
    };
    return room;
  }

  /**
   * The answer itself while the batch stays under its cap; past it, an error with the answer's id.
   * `room` is the room the answer's request claimed from: what it held is given back first, and
   * the answer's real size counted instead.
   */
  admit(answer: Outgoing, room?: { heldBytes: number }): Outgoing {
    if (room) this.giveBack(room);
    let bytes: number;
    try {
      bytes = countUtf8Bytes(stringifyAndKeep(answer));
    } catch {
      // Too large to serialise at all (past V8's string length).
      bytes = Number.POSITIVE_INFINITY;
    }
    if (bytes <= this.leftBytes || ('error' in answer && bytes <= ALWAYS_ADMITTED_ERROR_BYTES)) {
      this.leftBytes = Math.max(0, this.leftBytes - bytes);
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

  /** What `room` held, back to the budget (its request ended without an answer to count). */
  giveBack(room: { heldBytes: number }): void {
    this.leftBytes += room.heldBytes;
    room.heldBytes = 0;
  }

  private refusal(bytes: number, what: string): RpcError {
    if (bytes > this.maxBytes || !this.batch) {
      return new RpcError(
        ANSWER_TOO_LARGE,
        `Answer too large: ${what} is ${bytes} bytes, more than the ${this.maxBytes} bytes this server sends in one answer; it was not read. Ask the server's operator to raise the answer cap, or read a smaller resource`,
        { sizeBytes: bytes, maxAnswerBytes: this.maxBytes },
      );
    }
    return new RpcError(
      ANSWER_TOO_LARGE,
      `Answer too large: ${what} is ${bytes} bytes, more than the ${this.leftBytes} bytes left of the ${this.maxBytes} this server sends for one batch; it was not read. Send this request again on its own or in a smaller batch`,
      { sizeBytes: bytes, maxAnswerBytes: this.maxBytes },
    );
  }
}

const NON_ASCII = /[\u0080-\uffff]/;

/** UTF-8 length of a string without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
function countUtf8Bytes(text: string): number {
  // Most answers are ASCII: one native scan instead of a loop over every character.
  if (!NON_ASCII.test(text)) return text.length;
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
