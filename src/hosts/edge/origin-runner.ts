// The edge's live-run port when the tree names a live origin: each run the tree cannot answer
// (a call not precomputed, a live-only tool, a state read, a completion provider) is sent, signed
// with the host's secret, to `staticmcp serve --origin`, whose log and progress lines come back as
// they happen and reach the client as notifications. Whatever goes wrong with the origin (down,
// slow, busy, refusing the signature, redirecting, answering something else or too much) becomes
// a `problem`, which the core answers as a clear `isError`; precomputed answers never come here.
import type { LiveRunner, LiveRunOutcome, LiveRunRequest } from '../../core/mcp/live-port.js';
import { ORIGIN_KEY_NAME, problemWithOriginKey, signOriginRequest } from '../../core/origin/origin-signature.js';
import { ORIGIN_RUN_PATH, ORIGIN_STREAM_TYPE, readOutcome, toOriginRunRequest } from '../../core/origin/origin-wire.js';
import { isObject } from '../../core/tree/json-object.js';
import { utf8Bytes } from '../../core/tree/utf8.js';
import { LOG_LEVELS } from '../../core/mcp/server-context.js';
import type { LogLine } from '../../core/results/log-lines.js';
import type { ProgressLine } from '../../core/results/progress-lines.js';
import { LineLimitExceeded, OriginLineSplitter } from './origin-line-splitter.js';

/** The most the edge reads of one origin answer (all its lines). */
export const MAX_ORIGIN_ANSWER_BYTES = 10 * 1024 * 1024;
/** The longest line of an answer: an outcome line carries the whole call result, so the answer's cap. */
export const MAX_ORIGIN_LINE_BYTES = MAX_ORIGIN_ANSWER_BYTES;
/** The most lines (log, progress, outcome) one run's answer may hold. */
export const MAX_ORIGIN_LINES = 10_000;
/** Most for a Retry-After the edge passes on from a busy origin, in seconds. */
export const MAX_RETRY_AFTER_SECONDS = 3600;
// Reads of a body already received can resolve one after another as microtasks, which would keep
// the isolate's timers (the deadline) and its other requests waiting: after this many chunks or
// bytes the reader lets the event loop run.
const YIELD_EVERY_CHUNKS = 256;
const YIELD_EVERY_BYTES = 256 * 1024;

/** The bounds on what the edge reads of one origin answer. */
export interface OriginAnswerLimits {
  maxAnswerBytes: number;
  maxLineBytes: number;
  maxLines: number;
}

export const DEFAULT_ORIGIN_ANSWER_LIMITS: OriginAnswerLimits = {
  maxAnswerBytes: MAX_ORIGIN_ANSWER_BYTES,
  maxLineBytes: MAX_ORIGIN_LINE_BYTES,
  maxLines: MAX_ORIGIN_LINES,
};

export interface OriginRunnerOptions {
  /** `https://host[:port]` from the tree's `liveOrigin`. */
  url: string;
  /** How long one run may take, from sending it to its outcome. */
  timeoutMs: number;
  /** The Workers secret binding; undefined when the host has none. */
  secret: string | undefined;
  /** Who the edge answers for (the client's address): the origin's per-client limits key on it. */
  client: string;
  /** Bounds on the answer; each one left out is its default (DEFAULT_ORIGIN_ANSWER_LIMITS). */
  limits?: Partial<OriginAnswerLimits>;
  /** What is wrong with the worker's own settings (a limit binding): every run answers it. */
  settingsProblem?: string;
}

/** `bytes` as the owner wrote it: whole MB when it is, else bytes. */
function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${bytes} bytes`;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

class OriginProblem extends Error {}

/** A Retry-After in whole seconds, at most MAX_RETRY_AFTER_SECONDS; undefined when it is not one (a date, text). */
export function readRetryAfterSeconds(header: string | null): number | undefined {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Math.min(Number(header.trim()), MAX_RETRY_AFTER_SECONDS);
}

export class OriginRunner implements LiveRunner {
  private readonly runUrl: URL;
  private readonly host: string;
  private readonly limits: OriginAnswerLimits;

  constructor(private readonly options: OriginRunnerOptions) {
    this.runUrl = new URL(ORIGIN_RUN_PATH, options.url);
    this.host = this.runUrl.host;
    this.limits = { ...DEFAULT_ORIGIN_ANSWER_LIMITS, ...options.limits };
  }

  async run(request: LiveRunRequest): Promise<LiveRunOutcome> {
    if (this.options.settingsProblem) return { problem: this.options.settingsProblem };
    const keyProblem = problemWithOriginKey(this.options.secret);
    if (keyProblem)
      return {
        problem: `this site forwards live calls to its origin ${this.host}, but the worker's secret cannot sign them (${keyProblem}); the site's owner sets it with: wrangler secret put ${ORIGIN_KEY_NAME} (Cloudflare) or as a Netlify environment variable`,
      };
    // One deadline for the whole run, the project's own choice (limits.originTimeoutMs): the
    // client hears within it, whatever the origin does; progress does not extend it.
    const deadlineMs = this.options.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), deadlineMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    // The timer alone cannot end a run whose reads never let it fire: the reader also checks the clock.
    const deadlineAt = Date.now() + deadlineMs;
    const checkDeadline = (): void => {
      if (Date.now() >= deadlineAt) deadline.abort();
      signal.throwIfAborted();
    };
    try {
      return await this.forward(request, signal, checkDeadline);
    } catch (error) {
      if (request.signal?.aborted) return { problem: 'cancelled' };
      if (deadline.signal.aborted)
        return {
          problem: `the live origin ${this.host} did not answer within ${deadlineMs} ms; try again later (the site's owner can raise limits.originTimeoutMs)`,
        };
      if (error instanceof OriginProblem) return { problem: error.message };
      return {
        problem: `the live origin ${this.host} cannot be reached (${(error as Error).message}); try again later`,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  private async forward(
    request: LiveRunRequest,
    signal: AbortSignal,
    checkDeadline: () => void,
  ): Promise<LiveRunOutcome> {
    const body = utf8Bytes(JSON.stringify(toOriginRunRequest(request)));
    const headers = await signOriginRequest(this.options.secret!, {
      method: 'POST',
      path: this.runUrl.pathname,
      body,
      client: this.options.client,
    });
    const response = await fetch(this.runUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ORIGIN_STREAM_TYPE, ...headers },
      body,
      // A redirect is refused, never followed: the signed request must not go anywhere else.
      redirect: 'manual',
      signal,
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw new OriginProblem(await this.describeStatus(response));
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== ORIGIN_STREAM_TYPE) {
      await response.body?.cancel().catch(() => {});
      throw new OriginProblem(
        `the live origin ${this.host} answered with ${type || 'no content type'}, not a staticmcp origin's stream; check that liveOrigin points at staticmcp serve --origin`,
      );
    }
    return this.readEvents(response, request, checkDeadline);
  }

  private async describeStatus(response: Response): Promise<string> {
    const status = response.status;
    if (status >= 300 && status < 400)
      return `the live origin ${this.host} answered with a redirect (${status}${response.headers.get('location') ? ` to ${response.headers.get('location')}` : ''}), which the edge does not follow; set liveOrigin to the address that answers`;
    if (status === 503) {
      const retrySeconds = readRetryAfterSeconds(response.headers.get('retry-after'));
      return `the live origin ${this.host} is busy${retrySeconds === undefined ? '; try again shortly' : `; try again in ${retrySeconds} s`}`;
    }
    if (status === 401)
      return `the live origin ${this.host} refused the edge's signature; the site's owner checks that ${ORIGIN_KEY_NAME} is the same secret on the worker and the origin`;
    return `the live origin ${this.host} answered with status ${status}`;
  }

  private async readEvents(
    response: Response,
    request: LiveRunRequest,
    checkDeadline: () => void,
  ): Promise<LiveRunOutcome> {
    const { maxAnswerBytes, maxLineBytes, maxLines } = this.limits;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const splitter = new OriginLineSplitter(maxLineBytes, maxLines);
    let received = 0;
    let chunksSinceYield = 0;
    let bytesSinceYield = 0;
    const take = (line: Uint8Array): LiveRunOutcome | undefined => {
      const text = decoder.decode(line).trim();
      return text === '' ? undefined : this.takeEvent(text, request);
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        checkDeadline();
        if (done) break;
        // Split first: a line too long says so, rather than the answer too long it also makes.
        const lines = this.splitLines(splitter, value);
        received += value.byteLength;
        if (received > maxAnswerBytes)
          throw new OriginProblem(
            `the live origin ${this.host} answered with more than the ${describeBytes(maxAnswerBytes)} the edge accepts; the site's owner makes the script return less, or raises the worker's STATICMCP_ORIGIN_MAX_ANSWER_BYTES`,
          );
        for (const line of lines) {
          const outcome = take(line);
          if (outcome) return outcome;
        }
        chunksSinceYield += 1;
        bytesSinceYield += value.byteLength;
        if (chunksSinceYield >= YIELD_EVERY_CHUNKS || bytesSinceYield >= YIELD_EVERY_BYTES) {
          await yieldToEventLoop();
          checkDeadline();
          chunksSinceYield = 0;
          bytesSinceYield = 0;
        }
      }
      const last = splitter.finish();
      const outcome = last === undefined ? undefined : take(last);
      if (outcome) return outcome;
      throw new OriginProblem(`the live origin ${this.host} ended its answer before the run's outcome`);
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  /** The lines `chunk` completes, or the problem of an answer past its line bounds. */
  private splitLines(splitter: OriginLineSplitter, chunk: Uint8Array): Uint8Array[] {
    try {
      return splitter.push(chunk);
    } catch (error) {
      if (!(error instanceof LineLimitExceeded)) throw error;
      const { maxLineBytes, maxLines } = this.limits;
      throw new OriginProblem(
        error.kind === 'lines'
          ? `the live origin ${this.host} answered with more than the ${maxLines} lines the edge accepts of one run; the site's owner makes the script log less, or raises the worker's STATICMCP_ORIGIN_MAX_LINES`
          : `the live origin ${this.host} answered with a line longer than the ${describeBytes(maxLineBytes)} the edge accepts; the site's owner makes the script print less on one line (a log line) or return less, or raises the worker's STATICMCP_ORIGIN_MAX_LINE_BYTES`,
      );
    }
  }

  /** Passes a log or progress line on; returns the outcome when the line is the last one. */
  private takeEvent(line: string, request: LiveRunRequest): LiveRunOutcome | undefined {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      throw new OriginProblem(`the live origin ${this.host} answered with a line that is not JSON`);
    }
    if (!isObject(event))
      throw new OriginProblem(`the live origin ${this.host} answered with a line that is not an event`);
    if ('outcome' in event) {
      const outcome = readOutcome(event.outcome);
      if (!outcome) throw new OriginProblem(`the live origin ${this.host} answered with a malformed outcome`);
      return outcome;
    }
    if (
      isObject(event.log) &&
      typeof event.log.message === 'string' &&
      LOG_LEVELS.includes(event.log.level as LogLine['level'])
    )
      request.onLogLine?.(event.log as unknown as LogLine);
    else if (isObject(event.progress) && typeof event.progress.progress === 'number')
      request.onProgressLine?.(event.progress as unknown as ProgressLine);
    return undefined;
  }
}
