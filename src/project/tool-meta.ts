// Tool metadata: the `<script>.meta.json` sidecar merged over the extra keys of the `--help`
// stdout JSON (sidecar wins, as 000_* orders them). Validated with ajv; a bad sidecar affects
// only its own tool.
import { readJsonSidecar } from './read-json-sidecar.js';
import { sidecarValidator } from './sidecar-validators.js';
import type { OutputFormat } from '../core/results/mcp-output.js';

export interface ToolMeta {
  name?: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: Record<string, unknown>[];
  timeoutSecs?: number;
  precompute?: boolean;
  inputs?: string[];
  values?: Record<string, unknown[] | { command: string }>;
  state?: boolean;
  /** `mcp`: the script prints a JSON CallToolResult (rich content) instead of text. */
  outputFormat?: OutputFormat;
  /** Client capabilities a call needs (`{"sampling": {}}`); a request that did not declare them gets -32021. */
  requiredClientCapabilities?: Record<string, Record<string, unknown>>;
  /** `_meta.ui` (MCP Apps: `resourceUri`, `visibility`) is published; checked by discover-apps.ts. */
  _meta?: Record<string, unknown>;
}

/** Reads `<script>.meta.json`; absent is fine, unreadable or invalid is a reason to skip the tool. */
export async function readToolSidecar(
  scriptFile: string,
  displayPath: string,
  projectRoot: string,
): Promise<{ meta?: ToolMeta; problem?: string }> {
  const sidecar = await readJsonSidecar(
    `${scriptFile}.meta.json`,
    `${displayPath}.meta.json`,
    () => sidecarValidator('toolMeta', 'meta'),
    projectRoot,
  );
  if (!sidecar.found) return {};
  return 'problem' in sidecar ? { problem: sidecar.problem } : { meta: sidecar.meta as ToolMeta };
}

/** Help metadata with the sidecar's keys on top. */
export function mergeToolMeta(helpMetadata: Record<string, unknown>, sidecar: ToolMeta | undefined): ToolMeta {
  return { ...(helpMetadata as ToolMeta), ...(sidecar ?? {}) };
}
