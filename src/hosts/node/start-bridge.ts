// Wires a tree source, the optional live project and the stdio transport into a running bridge.
// `startBridge` resolves with the exit code once stdin closes (or a signal arrives) and live
// children are gone; `openBridge` also hands back the controls `staticmcp dev` needs: reload the
// tree (and notify the client of what changed) and warn the client.
import { McpSession } from '../../core/mcp/mcp-session.js';
import type { ServerContext } from '../../core/mcp/server-context.js';
import { createNodeServerContext, type NodeServerOptions } from './node-server-context.js';
import { guardServerProcess } from './process-guard.js';
import { startStdioTransport } from './stdio-transport.js';
import { escapeTerminalText } from '../../shared/terminal-text.js';
import { attachTreeSwitch, readTreeCheckIntervalMs, readTreeIdentity, type TreeReload } from './tree-switch.js';

export type { TreeReload } from './tree-switch.js';

export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** After stdin closes: how long answers already being prepared may still be sent. */
const CLOSE_GRACE_MS = 500;
/** Then how long killed live scripts get to go away before we exit anyway. */
const CLOSE_WAIT_MS = 3_000;

export interface BridgeOptions extends Omit<NodeServerOptions, 'logProblem'> {
  /** How stderr lines start (`staticmcp serve`, `staticmcp dev`). */
  logPrefix?: string;
  /** The tree's folder, for a folder source: a rebuilt tree there is switched in (tree-switch.ts). */
  treeRoot?: string;
  /** Answer what the client sent before the server started ahead of loading Node's streams (stdio-transport.ts). */
  answerWaitingFirst?: boolean;
}

export interface RunningBridge {
  /** Resolves with the exit code once the client went away and live children are gone. */
  finished: Promise<number>;
  /** Reads the tree again and tells the client what changed; throws (keeping the old tree) when it cannot be loaded. */
  reloadTree(): Promise<TreeReload>;
  /** A warning for the operator (stderr) and the client (`notifications/message`). */
  warn(text: string): void;
  /** How many tools of the project's scripts the served tree has (the search and fetch tools are the index's). */
  toolCount(): number;
}

/** What a bridge answers with: the server context, the session over it and the tree switch, if any. */
export interface BridgeSession {
  server: ServerContext;
  session: McpSession;
  /** Only for a tree in a folder (`treeRoot`). */
  treeSwitch: { reloadNow(): Promise<TreeReload> } | undefined;
}

/**
 * The session a bridge answers with, wired as `openBridge` wires it but writing frames through
 * `send` instead of stdout: tests ask it protocol questions in-process, with the same tree switch.
 */
export async function openBridgeSession(
  options: BridgeOptions,
  logProblem: (text: string) => void,
  send: (message: unknown) => void,
): Promise<BridgeSession> {
  // Checked before anything starts: a bad STATICMCP_TREE_CHECK_MS stops the start, naming it.
  const checkIntervalMs = options.treeRoot !== undefined ? readTreeCheckIntervalMs() : 0;
  // Read before the tree is loaded: a rebuild that lands meanwhile is then seen as one.
  const loadedIdentity = options.treeRoot !== undefined ? readTreeIdentity(options.treeRoot) : undefined;
  const server: ServerContext = await createNodeServerContext({ ...options, logProblem });
  let session: McpSession | undefined;
  const treeSwitch =
    options.treeRoot === undefined
      ? undefined
      : attachTreeSwitch(server, {
          treeRoot: options.treeRoot,
          source: options.source,
          packFiles: options.packFiles,
          loadedIdentity,
          checkIntervalMs,
          notify: (changes) => session!.treeReloaded(changes),
          logProblem,
        });
  session = new McpSession(server, send);
  return { server, session, treeSwitch };
}

export async function openBridge(options: BridgeOptions): Promise<RunningBridge> {
  const prefix = options.logPrefix ?? 'staticmcp serve';
  const logProblem = (text: string): void => {
    // Text from clients (a URI, a tool name) and trees reaches this line: never raw escapes.
    process.stderr.write(`${prefix}: ${escapeTerminalText(text)}\n`);
  };
  // Frames go out once the transport below is started; nothing is sent before a frame arrives.
  const {
    server: bridge,
    session,
    treeSwitch,
  } = await openBridgeSession(options, logProblem, (message) => transport.send(message));
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    void session.close(CLOSE_GRACE_MS, CLOSE_WAIT_MS).then(() => {
      options.source.close();
      transport.stopReading();
      finish(0);
    });
  };
  const transport = startStdioTransport({
    maxFrameBytes: MAX_FRAME_BYTES,
    onFrame: (text) => session.handleFrame(text),
    onOversizedFrame: () => session.handleOversizedFrame(MAX_FRAME_BYTES),
    onClose: shutdown,
    answerWaitingFirst: options.answerWaitingFirst,
  });
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  guardServerProcess(logProblem, shutdown);

  return {
    finished,
    reloadTree: () => {
      if (!treeSwitch) return Promise.reject(new Error('only a tree in a folder is reloaded'));
      return treeSwitch.reloadNow();
    },
    toolCount: () => bridge.tree.tools.filter((tool) => tool.searchTool === undefined).length,
    warn: (text) => {
      logProblem(text);
      session.logToClient('warning', 'staticmcp', text);
    },
  };
}

export async function startBridge(options: BridgeOptions): Promise<number> {
  return (await openBridge(options)).finished;
}
