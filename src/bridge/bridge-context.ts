// What every handler gets: the tree and its reader (replaced together when `staticmcp dev` reloads
// the tree, so a handler reads `bridge.tree` once and keeps it), the live project (when there is
// one), and the per-request view (negotiated version, cancellation, notifications to the client).
import type { LogLevel } from '../script/log-lines.js';
import type { CachedTreeReader } from './cached-tree-reader.js';
import type { LiveRunner } from './live-project.js';
import type { LoadedTree } from './loaded-tree.js';
import type { ProtocolVersion } from './protocol-versions.js';

export interface BridgeContext {
  tree: LoadedTree;
  reader: CachedTreeReader;
  project?: LiveRunner;
  /** True under `staticmcp dev`: the tree can change, so list changes and subscriptions are offered. */
  dev: boolean;
  /** A line for the operator on stderr (never stdout). */
  logProblem(text: string): void;
}

export interface RequestContext {
  version: ProtocolVersion;
  signal: AbortSignal;
  progressToken?: string | number;
  notify(method: string, params: Record<string, unknown>): void;
  /** Whether the client asked for messages at this level (logging/setLevel). */
  wantsLog(level: LogLevel): boolean;
}

/** Thrown when a request was cancelled: no response is sent for it. */
export class RequestCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'RequestCancelled';
  }
}

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
