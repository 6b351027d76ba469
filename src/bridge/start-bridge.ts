// Wires a tree source, the optional live project and the stdio transport into a running bridge.
// `startBridge` resolves with the exit code once stdin closes (or a signal arrives) and live
// children are gone; `openBridge` also hands back the controls `staticmcp dev` needs: reload the
// tree (and notify the client of what changed) and warn the client.
import { availableParallelism } from 'node:os';
import { CachedTreeReader } from './cached-tree-reader.js';
import type { LiveProject, LiveRunner } from './live-project.js';
import { loadTree } from './loaded-tree.js';
import { BridgeSession } from './bridge-session.js';
import { startStdioTransport } from './stdio-transport.js';
import type { TreeSource } from './tree-source.js';
import type { BridgeContext } from './bridge-context.js';
import type { ListChanges } from './tree-changes.js';

export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** After stdin closes: how long answers already being prepared may still be sent. */
const CLOSE_GRACE_MS = 500;
/** Then how long killed live scripts get to go away before we exit anyway. */
const CLOSE_WAIT_MS = 3_000;

export interface BridgeOptions {
  source: TreeSource;
  /** Absolute path of the project whose scripts answer misses; none = precomputed answers only. */
  projectRoot?: string;
  liveConcurrency?: number;
  /** `staticmcp dev`: the tree is reloaded on change (list changes and subscriptions are offered). */
  dev?: boolean;
  /** How stderr lines start (`staticmcp serve`, `staticmcp dev`). */
  logPrefix?: string;
}

export interface TreeReload extends ListChanges {
  /** Subscribed resources whose content changed (each got `notifications/resources/updated`). */
  updated: string[];
}

export interface RunningBridge {
  /** Resolves with the exit code once the client went away and live children are gone. */
  finished: Promise<number>;
  /** Reads the tree again and tells the client what changed; throws (keeping the old tree) when it cannot be loaded. */
  reloadTree(): Promise<TreeReload>;
  /** A warning for the operator (stderr) and the client (`notifications/message`). */
  warn(text: string): void;
}

/** The spawning module (and node:child_process) loads on the first live run, not at start-up. */
function lazyLiveProject(root: string, concurrency: number, logProblem: (text: string) => void): LiveRunner {
  let loaded: Promise<LiveProject> | undefined;
  return {
    root,
    run: async (request) => {
      loaded ??= import('./live-project.js').then((module) => new module.LiveProject(root, concurrency, logProblem));
      return (await loaded).run(request);
    },
  };
}

export async function openBridge(options: BridgeOptions): Promise<RunningBridge> {
  const prefix = options.logPrefix ?? 'staticmcp serve';
  const logProblem = (text: string): void => {
    process.stderr.write(`${prefix}: ${text}\n`);
  };
  const tree = await loadTree(options.source);
  const project = options.projectRoot ? lazyLiveProject(options.projectRoot, options.liveConcurrency ?? Math.max(2, availableParallelism()), logProblem) : undefined;
  const bridge: BridgeContext = { tree, reader: new CachedTreeReader(options.source), project, dev: options.dev === true, logProblem };
  let session: BridgeSession | undefined;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    void session!.close(CLOSE_GRACE_MS, CLOSE_WAIT_MS).then(() => {
      options.source.close();
      finish(0);
    });
  };
  const transport = startStdioTransport({
    maxFrameBytes: MAX_FRAME_BYTES,
    onFrame: (text) => session!.handleFrame(text),
    onOversizedFrame: () => session!.handleOversizedFrame(MAX_FRAME_BYTES),
    onClose: shutdown,
  });
  session = new BridgeSession(bridge, (message) => transport.send(message));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  let reloading = Promise.resolve<unknown>(undefined);
  const reloadOnce = async (): Promise<TreeReload> => {
    const next = await loadTree(options.source);
    const { compareTreeLists } = await import('./tree-changes.js');
    const changes = compareTreeLists(bridge.tree, next);
    // Swapped together: a new tree's files must never be answered from the old tree's cache.
    bridge.tree = next;
    bridge.reader = new CachedTreeReader(options.source);
    const updated = await session!.treeReloaded(changes);
    return { ...changes, updated };
  };
  return {
    finished,
    reloadTree: () => {
      // One reload at a time, in order, so notifications follow the order of the trees.
      const result = reloading.then(reloadOnce, reloadOnce);
      reloading = result.catch(() => undefined);
      return result;
    },
    warn: (text) => {
      logProblem(text);
      session!.logToClient('warning', 'staticmcp', text);
    },
  };
}

export async function startBridge(options: BridgeOptions): Promise<number> {
  return (await openBridge(options)).finished;
}
