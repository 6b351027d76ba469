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

/** The most the edge reads of one origin answer. */
export const MAX_ORIGIN_ANSWER_BYTES = 10 * 1024 * 1024;

export interface OriginRunnerOptions {
  /** `https://host[:port]` from the tree's `liveOrigin`. */
  url: string;
  /** How long one run may take, from sending it to its outcome. */
  timeoutMs: number;
  /** The Workers secret binding; undefined when the host has none. */
  secret: string | undefined;
  /** Who the edge answers for (the client's address): the origin's per-client limits key on it. */
  client: string;
}

class OriginProblem extends Error {}

export class OriginRunner implements LiveRunner {
  private readonly runUrl: URL;
  private readonly host: string;

  constructor(private readonly options: OriginRunnerOptions) {
    this.runUrl = new URL(ORIGIN_RUN_PATH, options.url);
    this.host = this.runUrl.host;
  }

  async run(request: LiveRunRequest): Promise<LiveRunOutcome> {
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
    try {
      return await this.forward(request, signal);
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

  private async forward(request: LiveRunRequest, signal: AbortSignal): Promise<LiveRunOutcome> {
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
    return this.readEvents(response, request);
  }

  private async describeStatus(response: Response): Promise<string> {
    const status = response.status;
    if (status >= 300 && status < 400)
      return `the live origin ${this.host} answered with a redirect (${status}${response.headers.get('location') ? ` to ${response.headers.get('location')}` : ''}), which the edge does not follow; set liveOrigin to the address that answers`;
    if (status === 503) {
      const retry = response.headers.get('retry-after');
      return `the live origin ${this.host} is busy${retry && /^\d+$/.test(retry) ? `; try again in ${retry} s` : '; try again shortly'}`;
    }
    if (status === 401)
      return `the live origin ${this.host} refused the edge's signature; the site's owner checks that ${ORIGIN_KEY_NAME} is the same secret on the worker and the origin`;
    return `the live origin ${this.host} answered with status ${status}`;
  }

  private async readEvents(response: Response, request: LiveRunRequest): Promise<LiveRunOutcome> {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let pending = '';
    let received = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        if (received > MAX_ORIGIN_ANSWER_BYTES)
          throw new OriginProblem(
            `the live origin ${this.host} answered with more than the ${MAX_ORIGIN_ANSWER_BYTES / 1024 / 1024} MB the edge accepts`,
          );
        pending += decoder.decode(value, { stream: true });
        let newline = pending.indexOf('\n');
        while (newline >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line !== '') {
            const outcome = this.takeEvent(line, request);
            if (outcome) return outcome;
          }
          newline = pending.indexOf('\n');
        }
      }
      const last = pending.trim();
      const outcome = last === '' ? undefined : this.takeEvent(last, request);
      if (outcome) return outcome;
      throw new OriginProblem(`the live origin ${this.host} ended its answer before the run's outcome`);
    } finally {
      reader.cancel().catch(() => {});
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
