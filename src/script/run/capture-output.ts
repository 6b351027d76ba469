// A run's stdout and stderr, drained always and kept up to a cap each; the first byte past the cap
// is reported once (the caller kills the run). Whole stderr lines are handed to the log and
// progress callbacks as they arrive, in time linear in the output (a line split over many chunks
// is scanned once, and a character split between chunks is decoded whole).
import { StringDecoder } from 'node:string_decoder';
import { parseLogLine, type LogLine } from '../../core/results/log-lines.js';
import { parseProgressLine, type ProgressLine } from '../../core/results/progress-lines.js';

export interface OutputCapture {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Chunks kept so far: the run is still active while this grows. */
  chunksRead(): number;
  /** Reports the unfinished last stderr line, and returns what was kept. */
  finish(): { stdout: Buffer; stderr: Buffer };
}

export interface CaptureOptions {
  maxOutputBytes: number;
  onOverflow: () => void;
  onLogLine?: (line: LogLine) => void;
  onProgressLine?: (line: ProgressLine) => void;
}

export function captureOutput(options: CaptureOptions): OutputCapture {
  const stdoutChunks: Buffer[] = [];
  const stderrChunks: Buffer[] = [];
  let stdoutBytes = 0;
  let stderrBytes = 0;
  let overflowed = false;
  let kept = 0;
  let pendingLogText = '';
  const stderrDecoder = new StringDecoder('utf8');
  const watchesLines = options.onLogLine !== undefined || options.onProgressLine !== undefined;

  /** One whole stderr line: a log line or a progress line goes to its callback, anything else stays output only. */
  const reportStderrLine = (text: string): void => {
    const logLine = options.onLogLine ? parseLogLine(text) : null;
    if (logLine) {
      options.onLogLine!(logLine);
      return;
    }
    const progressLine = options.onProgressLine ? parseProgressLine(text) : null;
    if (progressLine) options.onProgressLine!(progressLine);
  };

  /** Keeps a chunk unless its stream passed the cap; the first overflow is reported. */
  const keepWithinCap = (chunks: Buffer[], bytesSoFar: number, chunk: Buffer): boolean => {
    if (bytesSoFar > options.maxOutputBytes) {
      if (!overflowed) {
        overflowed = true;
        options.onOverflow();
      }
      return false;
    }
    // Output past the cap is dropped and does not count as activity, so a chatty leftover
    // process cannot keep the run open.
    kept += 1;
    chunks.push(chunk);
    return true;
  };

  return {
    onStdout(chunk) {
      stdoutBytes += chunk.length;
      keepWithinCap(stdoutChunks, stdoutBytes, chunk);
    },
    onStderr(chunk) {
      stderrBytes += chunk.length;
      if (!keepWithinCap(stderrChunks, stderrBytes, chunk) || !watchesLines) return;
      const text = stderrDecoder.write(chunk);
      // Only the new text is searched: a long line arriving in pieces is not split again per piece.
      if (!text.includes('\n')) {
        pendingLogText += text;
        return;
      }
      const lines = (pendingLogText + text).split('\n');
      pendingLogText = lines.pop() ?? '';
      for (const line of lines) reportStderrLine(line);
    },
    chunksRead: () => kept,
    finish() {
      if (watchesLines) pendingLogText += stderrDecoder.end();
      if (pendingLogText) reportStderrLine(pendingLogText);
      pendingLogText = '';
      return { stdout: Buffer.concat(stdoutChunks), stderr: Buffer.concat(stderrChunks) };
    },
  };
}
