// Structured log lines on a script's stderr (`INFO …`, `ERROR …`, …) → MCP logging levels.

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export interface LogLine {
  level: LogLevel;
  message: string;
}

const PREFIX = /^\s*\[?(INFO|ERROR|WARNING|WARN|DEBUG|TRACE)\]?(?::\s*|\s+|$)(.*)$/;
const LEVEL_BY_PREFIX: Record<string, LogLevel> = {
  INFO: 'info',
  ERROR: 'error',
  WARNING: 'warning',
  WARN: 'warning',
  DEBUG: 'debug',
  TRACE: 'debug',
};

/** The log line a stderr line carries, or null when it has no recognised prefix. */
export function parseLogLine(line: string): LogLine | null {
  const [, prefix = '', message = ''] = PREFIX.exec(line) ?? [];
  const level = LEVEL_BY_PREFIX[prefix];
  if (!level) return null;
  return { level, message: message.replace(/\r$/, '') };
}

/** Every prefixed line of a whole stderr text. */
export function parseLogLines(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    const parsed = parseLogLine(line);
    if (parsed) lines.push(parsed);
  }
  return lines;
}
