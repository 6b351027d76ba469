// `notifications/progress` for one live tool call that carries a progressToken. A script that
// prints `PROGRESS <done> [<total>] [message]` lines is reported exactly as it says. One that
// prints none still shows it is alive: a start tick once it has run for a moment, and a tick per
// log line. MCP requires progress to increase with each notification, so a value that does not
// is left out rather than sent.
import type { ProgressLine } from '../results/progress-lines.js';
import { versionAtLeast } from './protocol-versions.js';
import type { RequestContext } from './server-context.js';

/**
 * How long a script may run before the bridge reports it started. A script that prints PROGRESS
 * at once is thus reported only in its own values (a start tick of 0 would make its own 0 a
 * repeat). Nothing is sent at the end: SDK clients handle notifications a turn later than
 * responses, so a tick right before the result arrives after its handler is gone.
 */
export const START_TICK_MS = 1000;
/**
 * Sets START_TICK_MS for a test (read by the Node host as it starts: core never reads the
 * environment), which then tells a quick script from a slow one by what it waits for, not by the
 * machine's load.
 */
export const START_TICK_VARIABLE = 'STATICMCP_TEST_START_TICK_MS';

export class ProgressReporter {
  private lastSent: number | undefined;
  /** Set by the script's first PROGRESS line: from then on only its own values are sent. */
  private scriptReports = false;
  private startTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly request: RequestContext,
    toolName: string,
    startTickMs = START_TICK_MS,
  ) {
    if (request.progressToken === undefined) return;
    this.startTimer = setTimeout(() => this.tick(`running ${toolName}`), startTickMs);
  }

  /** The script's own progress. */
  report(line: ProgressLine): void {
    this.stopStartTimer();
    this.scriptReports = true;
    this.send(line.progress, line.total, line.message);
  }

  /** Activity without a measure (a log line), while the script has reported no progress of its own. */
  tick(message: string): void {
    this.stopStartTimer();
    if (!this.scriptReports)
      this.send(this.lastSent === undefined ? 0 : Math.floor(this.lastSent) + 1, undefined, message);
  }

  /** The run is over: nothing more is sent. */
  finish(): void {
    this.stopStartTimer();
    this.scriptReports = true;
  }

  private stopStartTimer(): void {
    if (this.startTimer !== undefined) clearTimeout(this.startTimer);
    this.startTimer = undefined;
  }

  private send(progress: number, total: number | undefined, message: string | undefined): void {
    const { progressToken, version } = this.request;
    if (progressToken === undefined) return;
    if (this.lastSent !== undefined && progress <= this.lastSent) return;
    this.lastSent = progress;
    this.request.notify('notifications/progress', {
      progressToken,
      progress,
      ...(total !== undefined ? { total } : {}),
      // `message` was added to progress notifications in 2025-03-26.
      ...(message !== undefined && message !== '' && versionAtLeast(version, '2025-03-26') ? { message } : {}),
    });
  }
}
