// The live-run port: how the core asks a host to run a project script (a live tool call, a state
// read, a template provider). Only Node hosts plug one in (hosts/node/live/); the edge worker has
// none, so its misses are answered with a pointer to `staticmcp serve --live`.
import type { LogLine } from '../results/log-lines.js';
import type { ProgressLine } from '../results/progress-lines.js';
import type { FinishedRun } from '../results/tool-result.js';

export interface LiveRunRequest {
  /** Script path relative to the project root, `/`-separated (from the manifest). */
  scriptPath: string;
  toolName?: string;
  phase: 'live' | 'state';
  args?: Record<string, unknown>;
  /** The options the tool declares: the only arguments exported as environment variables. */
  declaredOptions?: readonly string[];
  /** The tools folder relative to the project root (the tree's `toolsFolder`, default `tools`). */
  toolsFolder?: string;
  /** A per-tool timeout from the tree; without one, the project's `limits.timeoutMs` applies. */
  timeoutMs?: number;
  /** Variables set beside the base environment (a completion provider's MCP_COMPLETION_*). */
  environment?: Record<string, string>;
  signal?: AbortSignal;
  onLogLine?: (line: LogLine) => void;
  /** The script's own `PROGRESS` lines, as they arrive. */
  onProgressLine?: (line: ProgressLine) => void;
  /**
   * Opens the client channel (fd 3) for a live tool call: one line asked → one line answered.
   * Called for each line as soon as it is read (answers are written back in the order asked).
   */
  onClientLine?: (line: string) => Promise<string>;
}

/** A run that happened: `failed` when it did not end by itself with an exit code. */
export interface LiveRun extends FinishedRun {
  failed: boolean;
  /** One line that says what happened, naming the script. */
  message: string;
}

export type LiveRunOutcome = { run: LiveRun } | { problem: string };

export interface LiveRunner {
  run(request: LiveRunRequest): Promise<LiveRunOutcome>;
}
