// Wires a tree source, the optional live project and the stdio transport into a running bridge;
// resolves with the exit code once stdin closes (or a signal arrives) and live children are gone.
import { availableParallelism } from 'node:os';
import { CachedTreeReader } from './cached-tree-reader.js';
import type { LiveProject, LiveRunner } from './live-project.js';
import { loadTree } from './loaded-tree.js';
import { BridgeSession } from './bridge-session.js';
import { startStdioTransport } from './stdio-transport.js';
import type { TreeSource } from './tree-source.js';

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
}

/** The spawning module (and node:child_process) loads on the first live run, not at start-up. */
function lazyLiveProject(root: string, concurrency: number): LiveRunner {
  let loaded: Promise<LiveProject> | undefined;
  return {
    root,
    run: async (request) => {
      loaded ??= import('./live-project.js').then((module) => new module.LiveProject(root, concurrency));
      return (await loaded).run(request);
    },
  };
}

function logProblem(text: string): void {
  process.stderr.write(`staticmcp serve: ${text}\n`);
}

export async function startBridge(options: BridgeOptions): Promise<number> {
  const tree = await loadTree(options.source);
  const project = options.projectRoot ? lazyLiveProject(options.projectRoot, options.liveConcurrency ?? Math.max(2, availableParallelism())) : undefined;
  const bridge = { tree, reader: new CachedTreeReader(options.source), project, logProblem };
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
  return finished;
}
