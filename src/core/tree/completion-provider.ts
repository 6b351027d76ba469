// Script-backed completion providers (mcp-bash's `{name, path, timeoutSecs}` register.json entries):
// what a provider script is given and what it may print, shared by the build (which precomputes
// each argument's answer to an empty value) and every bridge (which runs it live). Portable.
//
// The script gets, as mcp-bash gives it: MCP_COMPLETION_NAME, MCP_COMPLETION_ARGS_JSON
// (`{"query", "prefix", "argument", "ref", "context": {"arguments"}}`, also on stdin),
// MCP_COMPLETION_LIMIT (100) and MCP_COMPLETION_OFFSET (0). It prints a JSON array of strings, or
// `{"suggestions": [...], "hasMore": bool}`.
import { isObject } from './json-object.js';

export type CompletionKind = 'ref/prompt' | 'ref/resource' | 'ref/tool';

export interface CompletionProvider {
  /** The register.json entry's name (MCP_COMPLETION_NAME). */
  name: string;
  /** Script path relative to the project root, `/`-separated. */
  script: string;
  timeoutMs: number;
}

/** Per reference kind, per referenced name (or uriTemplate): the provider that answers it live. */
export type CompletionProviders = Partial<Record<CompletionKind, Record<string, CompletionProvider>>>;

/** mcp-bash's default: completions run on every keystroke, so they must be quick. */
export const DEFAULT_COMPLETION_TIMEOUT_MS = 5000;
export const COMPLETION_LIMIT = 100;

export interface CompletionRequest {
  name: string;
  ref: Record<string, unknown>;
  argument: string;
  value: string;
  contextArguments?: Record<string, unknown>;
}

/** The environment variables and stdin of one provider run. */
export function completionRunInput(request: CompletionRequest): {
  environment: Record<string, string>;
  args: Record<string, unknown>;
} {
  const args = {
    query: request.value,
    prefix: request.value,
    argument: request.argument,
    ref: request.ref,
    context: { arguments: request.contextArguments ?? {} },
  };
  return {
    environment: {
      MCP_COMPLETION_NAME: request.name,
      MCP_COMPLETION_ARGS_JSON: JSON.stringify(args),
      MCP_COMPLETION_LIMIT: String(COMPLETION_LIMIT),
      MCP_COMPLETION_OFFSET: '0',
    },
    args,
  };
}

/** A provider's stdout → its suggestions, or what is wrong with it (naming the shapes it may print). */
export function parseCompletionOutput(text: string): { values: string[]; hasMore: boolean } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      problem: 'printed something that is not JSON; print ["a", "b"] or {"suggestions": [...], "hasMore": false}',
    };
  }
  const object = isObject(value) ? value : undefined;
  const suggestions = Array.isArray(value) ? value : object?.suggestions;
  if (!Array.isArray(suggestions) || !suggestions.every((item) => typeof item === 'string'))
    return { problem: 'must print a JSON array of strings, or {"suggestions": [strings], "hasMore": bool}' };
  return { values: suggestions as string[], hasMore: object?.hasMore === true };
}
