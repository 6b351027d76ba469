// A finished script run → an MCP CallToolResult. Shared by the build (precomputed calls) and the
// bridge (live calls) so a precomputed answer is exactly what a live call would have said.
// Portable (no Buffer, no node:): the MCP core turns live runs into results with it on any host.
import { parseLogLine } from './log-lines.js';
import { parseProgressLine } from './progress-lines.js';
import { parseMcpOutput, type ContentBlock, type OutputFormat } from './mcp-output.js';
import { decodeUtf8 } from '../tree/utf8.js';
import type { Validator } from '../../validators/validator.js';

/** A type, not an interface, so it is a JsonObject too (answers are built as JsonObjects). */
export type ToolResult = {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

export interface ToolResultOptions {
  toolName: string;
  /** Checks structured output when the tool declares an outputSchema. */
  validateOutput?: Validator;
  /** `mcp`: stdout is a CallToolResult the script printed (see mcp-output.ts); default `text`. */
  outputFormat?: OutputFormat;
}

/** What a finished run left behind (a ScriptRun on Node; only these fields matter here). */
export interface FinishedRun {
  exitCode: number | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Decodes UTF-8; invalid bytes become U+FFFD and `replaced` says so. */
export const decodeOutput = decodeUtf8;

/** stderr without its structured log and progress lines: what a script said about why it failed. */
function plainStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => parseLogLine(line) === null && parseProgressLine(line) === null)
    .join('\n')
    .trim();
}

function textResult(text: string, isError: boolean): ToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/**
 * The result of a run that ended by itself with an exit code (callers handle timeouts, signals
 * and cancellation, which are failures of the run rather than answers).
 */
export function toToolResult(run: FinishedRun, options: ToolResultOptions): ToolResult {
  const stdout = decodeOutput(run.stdout).text;
  if (options.outputFormat === 'mcp') return toRichResult(run, stdout, options);
  if (run.exitCode !== 0) {
    const said = stdout.trim() || plainStderr(decodeOutput(run.stderr).text);
    return textResult(said || `${options.toolName} failed with exit code ${run.exitCode} and printed nothing`, true);
  }
  if (!options.validateOutput) return textResult(stdout, false);
  let structured: unknown;
  try {
    structured = JSON.parse(stdout);
  } catch {
    return textResult(`${options.toolName} declares an outputSchema but printed text that is not JSON`, true);
  }
  const problems = options.validateOutput(structured);
  if (problems.length > 0 || structured === null || typeof structured !== 'object' || Array.isArray(structured)) {
    const why = problems.length > 0 ? problems.join('; ') : 'the output must be a JSON object';
    return textResult(`${options.toolName} printed output that does not match its outputSchema: ${why}`, true);
  }
  return { content: [{ type: 'text', text: stdout }], structuredContent: structured as Record<string, unknown> };
}

/**
 * An `"outputFormat": "mcp"` run: the printed CallToolResult, checked. A failing exit code still
 * makes it an error (with the script's own content when it printed a valid result); output that
 * breaks the convention is an error result that says what to fix, never passed on half-checked.
 */
function toRichResult(run: FinishedRun, stdout: string, options: ToolResultOptions): ToolResult {
  const parsed = parseMcpOutput(stdout);
  if (run.exitCode !== 0) {
    if ('output' in parsed) return { ...parsed.output, isError: true };
    const said = stdout.trim() || plainStderr(decodeOutput(run.stderr).text);
    return textResult(said || `${options.toolName} failed with exit code ${run.exitCode}`, true);
  }
  if ('problem' in parsed) {
    return textResult(`${options.toolName} declares "outputFormat": "mcp" but ${parsed.problem}`, true);
  }
  const { output } = parsed;
  if (options.validateOutput && !output.isError) {
    if (output.structuredContent === undefined) {
      return textResult(`${options.toolName} declares an outputSchema but its result has no "structuredContent"`, true);
    }
    const problems = options.validateOutput(output.structuredContent);
    if (problems.length > 0) {
      return textResult(
        `${options.toolName} printed structuredContent that does not match its outputSchema: ${problems.join('; ')}`,
        true,
      );
    }
  }
  return output;
}
