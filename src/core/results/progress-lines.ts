// Progress lines on a live script's stderr: `PROGRESS <done> [<total>] [message]`, e.g.
// `PROGRESS 50 100 halfway`. The bridge turns them into `notifications/progress` for a call that
// carries a progressToken. Portable: the core reads them on any host.

export interface ProgressLine {
  /** Work done so far (a non-negative number; MCP asks that it increases from one to the next). */
  progress: number;
  /** Total work, when the script knows it. */
  total?: number;
  message?: string;
}

const PROGRESS = /^\s*PROGRESS\s+(\d+(?:\.\d+)?)(?:\s+(\d+(?:\.\d+)?))?(?:\s+(.*?))?\s*$/;

/** The progress a stderr line reports, or null when it is not a well-formed PROGRESS line. */
export function parseProgressLine(line: string): ProgressLine | null {
  const match = PROGRESS.exec(line.replace(/\r$/, ''));
  if (!match) return null;
  const parsed: ProgressLine = { progress: Number(match[1]) };
  // A total of 0 says nothing about the work left: left out rather than sent.
  if (match[2] !== undefined && Number(match[2]) > 0) parsed.total = Number(match[2]);
  if (match[3]) parsed.message = match[3];
  return parsed;
}
