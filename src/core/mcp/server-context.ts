// What every handler gets: the tree and its reader (replaced together when `staticmcp dev` reloads
// the tree, so a handler reads `server.tree` once and keeps it), the ports a host plugs in (live
// runs, schema compilation, the operator's log), and the per-request view (negotiated version,
// cancellation, notifications to the client).
import type { LogLevel } from '../results/log-lines.js';
import type { CompileValidator } from '../../validators/validator.js';
import type { AnswerRoom } from '../tree-reading/answer-room.js';
import type { CachedTreeReader } from '../tree-reading/cached-tree-reader.js';
import type { LiveRunner } from './live-port.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import type { ProtocolVersion } from './protocol-versions.js';
import { INVALID_PARAMS, RpcError } from './json-rpc.js';
import type { JsonObject } from '../tree/json-object.js';

/**
 * Resource URIs one legacy session may subscribe to, and one 2026-07-28 listener may follow
 * (template instances are unbounded).
 */
export const MAX_SUBSCRIPTIONS = 1000;

/** How a host switches a rebuilt tree in under running sessions (used by tree-switch-port.ts). */
export interface TreeSwitchPort {
  /**
   * As a request arrives: a promise when the host is looking for (or switching to) a rebuilt tree
   * the request must wait for; undefined when it has looked recently and the request goes on at once.
   */
  checkIfDue(): Promise<void> | undefined;
  /**
   * After an answer from `tree` failed: looks now (however recently it looked) and resolves true
   * when the server answers from another tree than `tree` (switched by this look or an earlier one).
   */
  switchedSince(tree: LoadedTree): Promise<boolean>;
}

export interface ServerContext {
  tree: LoadedTree;
  reader: CachedTreeReader;
  /** Runs project scripts for misses; absent = precomputed answers only. */
  live?: LiveRunner;
  /** What a miss tells the client to do to get live answers (the edge names its own URL). */
  liveHint: string;
  /** True under `staticmcp dev`: the tree can change, so list changes and subscriptions are offered. */
  dev: boolean;
  /**
   * False where a request's timers end with it (the edge worker: workerd cancels them), so the
   * preload a session plans after `initialize` (handler-table.ts) would never run there; run in
   * Node instead, it landed in the middle of the next request. Absent: planned.
   */
  preloadWhenIdle?: boolean;
  /**
   * Set by a host that switches a rebuilt tree in (`serve <folder>`, `dev`): requests let it look
   * for one first, a legacy session is offered list changes and subscriptions, and a request that
   * failed because the tree changed under it is answered again (tree-switch-port.ts).
   */
  treeSwitch?: TreeSwitchPort;
  /** Loads the JSON Schema compiler (ajv on Node, on first use; one without code generation on the edge). */
  loadValidatorCompiler(): Promise<CompileValidator>;
  /** A line for the operator (stderr on Node, the console on the edge), never the protocol stream. */
  logProblem(text: string): void;
  /**
   * The origin the session's first request was addressed to (HTTP hosts; absent on stdio): what a
   * document's relative page is made absolute from when the tree has no publicUrl.
   */
  requestOrigin?: string;
  /** How long a live run goes before its start tick (progress-reporter.ts); absent: START_TICK_MS. */
  startTickMs?: number;
}

export interface RequestContext {
  version: ProtocolVersion;
  signal: AbortSignal;
  progressToken?: string | number;
  notify(method: string, params: Record<string, unknown>): void;
  /** Whether the client asked for messages at this level (logging/setLevel). */
  wantsLog(level: LogLevel): boolean;
  /**
   * Sends a request to the client (sampling/createMessage, elicitation/create, roots/list) on
   * this request's stream and resolves with its answer; never rejects. `signal` abandons the wait.
   */
  askClient(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<ClientAnswer>;
  /**
   * The capabilities the client declared, when this request knows them: its own `_meta` (2026-07-28)
   * or the session's initialize. Absent (a stateless legacy POST) = unknown, so nothing is refused.
   */
  clientCapabilities?: Record<string, unknown>;
  /**
   * True in 2026-07-28: a script's question is not sent to the client but answered with an
   * InputRequiredResult, and the client re-sends the call with `inputResponses` (SEP-2322).
   */
  multiRoundTrip?: boolean;
  /**
   * What this request's answer may still take (its batch's budget, or its own): a handler claims a
   * file's known size here before reading it, so a file that would pass the cap is never read.
   */
  answerRoom?: AnswerRoom;
}

/** What the client answered: its result, or an error (its own, or ours when it could not be asked). */
export type ClientAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** Thrown when a request was cancelled: no response is sent for it. */
export class RequestCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'RequestCancelled';
  }
}

export const DEFAULT_LIVE_HINT = 'run staticmcp serve with --live <project folder>';

export const LOG_LEVELS: readonly LogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** The level a `logging/setLevel` request asks for; -32602 when it names none of LOG_LEVELS. */
export function readLogLevel(params: JsonObject | undefined): LogLevel {
  const level = params?.level;
  if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new RpcError(INVALID_PARAMS, `logging/setLevel needs params.level, one of ${LOG_LEVELS.join(', ')}`);
  }
  return level as LogLevel;
}
