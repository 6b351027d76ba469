// Switches a rebuilt tree in under a running server (`serve <folder>` over stdio or HTTP, `dev`):
// the tree writer replaces the whole output folder with two renames, so a server that kept its
// loaded `mcp.json` would answer from an old search index table and pack table over new files.
// As a request arrives (at most once per check interval), `mcp.json`'s identity (inode, size,
// mtime) is compared with the one loaded; when it differs the manifest is loaded again, and when
// its content hash differs too the new tree and a fresh file cache replace the old ones together
// and every session is told what changed. `dev` asks for the same switch after each rebuild.
import { statSync } from 'node:fs';
import path from 'node:path';
import { CachedTreeReader } from '../../core/tree-reading/cached-tree-reader.js';
import { type LoadedTree, loadTree } from '../../core/tree-reading/loaded-tree.js';
import type { ServerContext } from '../../core/mcp/server-context.js';
import type { ListChanges } from '../../core/mcp/tree-changes.js';
import type { TreeSwitchPort } from '../../core/mcp/tree-switch-port.js';
import type { TreeSource } from '../../core/tree/tree-source.js';
import type { PackFileSource } from '../../core/packs/pack-reader.js';
import { MANIFEST_FILE } from '../../core/tree/manifest.js';

/** How often a request may look at `mcp.json` (milliseconds); `STATICMCP_TREE_CHECK_MS` changes it. */
export const DEFAULT_TREE_CHECK_MS = 1_000;
export const TREE_CHECK_VARIABLE = 'STATICMCP_TREE_CHECK_MS';
/**
 * A request that failed while `mcp.json` was missing (the output folder between the writer's two
 * renames, microseconds on one disk) waits this long, in steps, for the new tree to appear.
 */
const MISSING_MANIFEST_WAIT_MS = 250;
const MISSING_MANIFEST_STEP_MS = 10;

export interface TreeReload extends ListChanges {
  /** Subscribed resources whose content changed (each got `notifications/resources/updated`). */
  updated: string[];
}

export interface TreeSwitchOptions {
  /** The tree's folder: where `mcp.json` is looked at. */
  treeRoot: string;
  source: TreeSource;
  packFiles?: PackFileSource;
  /** `mcp.json`'s identity when the served tree was loaded (readTreeIdentity before loading it). */
  loadedIdentity: string | undefined;
  /** Milliseconds between two looks at `mcp.json` (0: every request looks). */
  checkIntervalMs: number;
  /** The clock the interval is measured on (Date.now unless a test steps it). */
  nowMs?: () => number;
  /** Tells every session what changed; resolves with the subscribed URIs whose content changed. */
  notify(changes: ListChanges): Promise<string[]>;
  logProblem(text: string): void;
}

/** `mcp.json`'s inode, size and mtime as one string; undefined while it is not there. */
export function readTreeIdentity(treeRoot: string): string | undefined {
  try {
    const stats = statSync(path.join(treeRoot, MANIFEST_FILE), { bigint: true, throwIfNoEntry: false });
    return stats?.isFile() ? `${stats.ino}:${stats.size}:${stats.mtimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/** The check interval `STATICMCP_TREE_CHECK_MS` sets; throws, naming it, for a value that is not a whole number. */
export function readTreeCheckIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[TREE_CHECK_VARIABLE];
  if (text === undefined || text === '') return DEFAULT_TREE_CHECK_MS;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value))
    throw new Error(
      `${TREE_CHECK_VARIABLE}=${JSON.stringify(text.slice(0, 40))} is not a whole number of milliseconds; fix or unset it`,
    );
  return value;
}

export class FolderTreeSwitch implements TreeSwitchPort {
  private identity: string | undefined;
  private checkedAtMs = Number.NEGATIVE_INFINITY;
  /** The look in progress: requests that arrive meanwhile wait for the same one. */
  private looking: Promise<void> | undefined;
  /** Loads and swaps run one at a time, in order, so notifications follow the order of the trees. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly server: ServerContext,
    private readonly options: TreeSwitchOptions,
  ) {
    this.identity = options.loadedIdentity;
  }

  checkIfDue(): Promise<void> | undefined {
    if (this.looking) return this.looking;
    const nowMs = (this.options.nowMs ?? Date.now)();
    if (nowMs - this.checkedAtMs < this.options.checkIntervalMs) return undefined;
    this.checkedAtMs = nowMs;
    // One stat, synchronous: the usual answer (unchanged) costs the request no turn of the event loop.
    if (readTreeIdentity(this.options.treeRoot) === this.identity) return undefined;
    return this.look();
  }

  async switchedSince(tree: LoadedTree): Promise<boolean> {
    if (this.server.tree !== tree) return true;
    this.checkedAtMs = (this.options.nowMs ?? Date.now)();
    await this.look();
    return this.server.tree !== tree;
  }

  /**
   * Loads the tree now and switches to it (dev, after a rebuild); throws, keeping the tree served,
   * when it cannot be loaded. Nothing changes when `mcp.json` is the one already served.
   */
  reloadNow(): Promise<TreeReload> {
    return this.serially(async () => {
      const identity = readTreeIdentity(this.options.treeRoot);
      if (identity !== undefined && identity === this.identity)
        return { tools: false, resources: false, prompts: false, updated: [] };
      const next = await this.load();
      this.identity = identity;
      return this.swap(next);
    });
  }

  private look(): Promise<void> {
    this.looking ??= this.serially(() => this.switchIfChanged()).finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  private async switchIfChanged(): Promise<void> {
    let identity = readTreeIdentity(this.options.treeRoot);
    for (let waitedMs = 0; identity === undefined && waitedMs < MISSING_MANIFEST_WAIT_MS; ) {
      await new Promise((resolve) => setTimeout(resolve, MISSING_MANIFEST_STEP_MS));
      waitedMs += MISSING_MANIFEST_STEP_MS;
      identity = readTreeIdentity(this.options.treeRoot);
    }
    // Gone for good (the folder deleted): the loaded tree keeps answering what it can.
    if (identity === undefined || identity === this.identity) return;
    let next: LoadedTree;
    try {
      next = await this.load();
    } catch (error) {
      this.options.logProblem(
        `${MANIFEST_FILE} changed but cannot be loaded, so the previous tree is still served: ${(error as Error).message}`,
      );
      // Looked at again once it changes once more, not on every request.
      this.identity = identity;
      return;
    }
    this.identity = identity;
    // Rewritten with the same content (a no-op rebuild, a touch): nothing to switch.
    if (next.manifestHash === this.server.tree.manifestHash) return;
    const reload = await this.swap(next);
    const lists = (['tools', 'resources', 'prompts'] as const).filter((kind) => reload[kind]);
    this.options.logProblem(
      `switched to the rebuilt tree${lists.length > 0 ? `; ${lists.join(', ')} list(s) changed` : ''}`,
    );
  }

  private load(): Promise<LoadedTree> {
    const { source, packFiles, logProblem } = this.options;
    return loadTree(source, { packFiles, onProblem: logProblem });
  }

  private async swap(next: LoadedTree): Promise<TreeReload> {
    const { compareTreeLists } = await import('../../core/mcp/tree-changes.js');
    const changes = compareTreeLists(this.server.tree, next);
    // Swapped together: a new tree's files must never be answered from the old tree's cache.
    this.server.tree = next;
    this.server.reader = new CachedTreeReader(this.options.source);
    const updated = await this.options.notify(changes);
    return { ...changes, updated };
  }

  private serially<T>(job: () => Promise<T>): Promise<T> {
    const result = this.turn.then(job, job);
    this.turn = result.catch(() => undefined);
    return result;
  }
}

/** Makes `server` switch to rebuilt trees of `options.treeRoot` (its requests look first, tree-switch-port.ts). */
export function attachTreeSwitch(server: ServerContext, options: TreeSwitchOptions): FolderTreeSwitch {
  const treeSwitch = new FolderTreeSwitch(server, options);
  server.treeSwitch = treeSwitch;
  return treeSwitch;
}
