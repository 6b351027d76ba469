// What the edge and the live origin say to each other: one signed POST per live run (a tool call,
// a state read, a completion provider), answered with newline-delimited JSON as the run goes: its
// log and progress lines, then its outcome. The run is described as the core's live-run port
// describes it (live-port.ts), so the edge keeps every MCP rule (lookups, result shapes, both
// protocol eras) and the origin only runs scripts of its own project. Portable.
import type { LogLine } from '../results/log-lines.js';
import type { ProgressLine } from '../results/progress-lines.js';
import type { LiveRunOutcome, LiveRunRequest } from '../mcp/live-port.js';
import { isObject } from '../tree/json-object.js';
import { base64FromBytes } from '../tree/utf8.js';

/** The origin's one endpoint for runs. */
export const ORIGIN_RUN_PATH = '/live-run';
/** Answers 200 without a signature: for a container platform's health checks. */
export const ORIGIN_HEALTH_PATH = '/healthz';
export const ORIGIN_STREAM_TYPE = 'application/x-ndjson';
/** The largest run request the origin reads (arguments come from an MCP request the edge already capped). */
export const MAX_ORIGIN_REQUEST_BYTES = 4 * 1024 * 1024;

/** The serialisable part of a LiveRunRequest. */
export type OriginRunRequest = Pick<
  LiveRunRequest,
  'scriptPath' | 'toolName' | 'phase' | 'args' | 'declaredOptions' | 'toolsFolder' | 'timeoutMs' | 'environment'
>;

export type OriginEvent =
  | { log: LogLine }
  | { progress: ProgressLine }
  | { outcome: { problem: string } | { run: WireRun } };

interface WireRun {
  exitCode: number | null;
  failed: boolean;
  message: string;
  stdout: string;
  stderr: string;
}

export function toOriginRunRequest(request: LiveRunRequest): OriginRunRequest {
  return {
    scriptPath: request.scriptPath,
    phase: request.phase,
    ...(request.toolName !== undefined ? { toolName: request.toolName } : {}),
    ...(request.args !== undefined ? { args: request.args } : {}),
    ...(request.declaredOptions !== undefined ? { declaredOptions: [...request.declaredOptions] } : {}),
    ...(request.toolsFolder !== undefined ? { toolsFolder: request.toolsFolder } : {}),
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    ...(request.environment !== undefined ? { environment: request.environment } : {}),
  };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((item) => typeof item === 'string');
}

/** The run request in `raw`, or why it is not one (the origin answers 400 with it). */
export function readOriginRunRequest(raw: unknown): OriginRunRequest | { problem: string } {
  if (!isObject(raw)) return { problem: 'the body is not a JSON object' };
  const { scriptPath, phase, toolName, args, declaredOptions, toolsFolder, timeoutMs, environment } = raw;
  if (typeof scriptPath !== 'string' || scriptPath === '') return { problem: 'scriptPath is not a string' };
  if (phase !== 'live' && phase !== 'state') return { problem: 'phase is neither "live" nor "state"' };
  if (toolName !== undefined && typeof toolName !== 'string') return { problem: 'toolName is not a string' };
  if (args !== undefined && !isObject(args)) return { problem: 'args is not an object' };
  if (
    declaredOptions !== undefined &&
    !(Array.isArray(declaredOptions) && declaredOptions.every((item) => typeof item === 'string'))
  )
    return { problem: 'declaredOptions is not a list of names' };
  if (toolsFolder !== undefined && typeof toolsFolder !== 'string') return { problem: 'toolsFolder is not a string' };
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && (timeoutMs as number) > 0))
    return { problem: 'timeoutMs is not a whole number above 0' };
  // Only a completion provider's MCP_COMPLETION_* variables travel: nothing else of the
  // environment is the edge's to set.
  if (
    environment !== undefined &&
    !(isStringRecord(environment) && Object.keys(environment).every((name) => name.startsWith('MCP_COMPLETION_')))
  )
    return { problem: 'environment holds something other than MCP_COMPLETION_* text variables' };
  return {
    scriptPath,
    phase,
    ...(toolName !== undefined ? { toolName } : {}),
    ...(args !== undefined ? { args } : {}),
    ...(declaredOptions !== undefined ? { declaredOptions: declaredOptions as string[] } : {}),
    ...(toolsFolder !== undefined ? { toolsFolder } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs as number } : {}),
    ...(environment !== undefined ? { environment } : {}),
  };
}

/** One NDJSON line for `outcome`. */
export function outcomeEvent(outcome: LiveRunOutcome): OriginEvent {
  if ('problem' in outcome) return { outcome: { problem: outcome.problem } };
  const { run } = outcome;
  return {
    outcome: {
      run: {
        exitCode: run.exitCode,
        failed: run.failed,
        message: run.message,
        stdout: base64FromBytes(run.stdout),
        stderr: base64FromBytes(run.stderr),
      },
    },
  };
}

function bytesOfBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** The outcome an `outcome` event carries, or undefined when it is malformed. */
export function readOutcome(raw: unknown): LiveRunOutcome | undefined {
  if (!isObject(raw)) return undefined;
  if (typeof raw.problem === 'string') return { problem: raw.problem };
  const run = raw.run;
  if (!isObject(run)) return undefined;
  const { exitCode, failed, message, stdout, stderr } = run;
  if (
    !(exitCode === null || typeof exitCode === 'number') ||
    typeof failed !== 'boolean' ||
    typeof message !== 'string'
  )
    return undefined;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') return undefined;
  try {
    return { run: { exitCode, failed, message, stdout: bytesOfBase64(stdout), stderr: bytesOfBase64(stderr) } };
  } catch {
    return undefined;
  }
}
