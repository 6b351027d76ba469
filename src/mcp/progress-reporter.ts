// `notifications/progress` for one live tool call that carries a progressToken. A script that
// prints `PROGRESS <done> [<total>] [message]` lines is reported exactly as it says; one that
// prints none still shows activity: a tick per log line, then one "done" tick before its result.
// MCP requires the progress value to increase with each notification, so a value that does not
// is left out rather than sent.
import type { ProgressLine } from '../script/progress-lines.js';
import { versionAtLeast } from './protocol-versions.js';
import type { RequestContext } from './server-context.js';

export class ProgressReporter {
  private lastSent: number | undefined;
  /** Set by the script's first PROGRESS line: from then on only its own values are sent. */
  private scriptReports = false;

  constructor(private readonly request: RequestContext) {}

  /** The script's own progress. */
  report(line: ProgressLine): void {
    this.scriptReports = true;
    this.send(line.progress, line.total, line.message);
  }

  /** Activity without a measure (a log line), while the script has reported no progress of its own. */
  tick(message: string): void {
    if (!this.scriptReports) this.send(this.nextTick(), undefined, message);
  }

  /** The run ended by itself: a script that never reported progress is shown as done (progress = total). */
  finish(): void {
    if (this.scriptReports) return;
    const done = Math.max(this.nextTick(), 1);
    this.send(done, done, undefined);
  }

  private nextTick(): number {
    return this.lastSent === undefined ? 0 : Math.floor(this.lastSent) + 1;
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
