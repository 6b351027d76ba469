// `staticmcp serve <folder>` (or `serve <URL>`) over stdio, opened in-process: the session serve's
// bridge answers with (openBridgeSession, src/hosts/node/start-bridge.ts), its tree switch included,
// over the same sources serve opens for a tree folder, a built project or a URL, fed raw lines and collecting the frames
// it writes as RawBridge collects them from a process. For the protocol's decisions (versions,
// batches, errors); what only the process shows (framing, the frame cap, stderr, the exit code)
// stays tested through RawBridge.
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { ManifestPackedSource } from '../../src/core/packs/manifest-packed-source.js';
import { stringifyJsonRpc } from '../../src/core/mcp/exact-ids.js';
import type { McpSession } from '../../src/core/mcp/mcp-session.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { openBridgeSession } from '../../src/hosts/node/start-bridge.js';
import { UrlSource } from '../../src/hosts/node/url-source.js';
import { JsonRpcLines } from './raw-bridge.js';

export class InProcessBridge extends JsonRpcLines {
  /** Also given each frame as it arrives (an SDK client's transport). */
  onFrame: ((frame: unknown) => void) | undefined;

  private constructor(
    private readonly session: McpSession,
    private readonly closeSource: () => void,
  ) {
    super();
  }

  /**
   * Opens `folder` as `serve <folder>` does: a tree (it holds mcp.json), or a project built into
   * dist/, whose scripts then answer live what the tree lacks; `live` as `--live <project>`. An
   * http(s) URL is opened as `serve <URL>` does: files by HTTP, packs by byte range.
   */
  static async open(folder: string, options: { live?: string } = {}): Promise<InProcessBridge> {
    if (/^https?:\/\//i.test(folder)) return InProcessBridge.openUrl(folder);
    const given = path.resolve(folder);
    const isTree = existsSync(path.join(given, 'mcp.json'));
    const treeRoot = isTree ? given : path.join(given, 'dist');
    const projectRoot = options.live !== undefined ? path.resolve(options.live) : isTree ? undefined : given;
    const packFiles = new FolderPackFiles(treeRoot);
    const folderSource = new FolderSource(treeRoot, path.relative(process.cwd(), treeRoot) || '.');
    return InProcessBridge.start(
      (onProblem) => new ManifestPackedSource(folderSource, packFiles, { onProblem }),
      packFiles,
      { projectRoot, treeRoot },
    );
  }

  private static openUrl(url: string): Promise<InProcessBridge> {
    const urlSource = new UrlSource(url);
    return InProcessBridge.start(
      (onProblem) => new ManifestPackedSource(urlSource, urlSource, { onProblem }),
      urlSource,
      {},
    );
  }

  /** serve's own session over the source `makeSource` returns; what it logs is kept in `stderr`. */
  private static async start(
    makeSource: (onProblem: (text: string) => void) => ManifestPackedSource,
    packFiles: FolderPackFiles | UrlSource,
    roots: { projectRoot?: string | undefined; treeRoot?: string },
  ): Promise<InProcessBridge> {
    let bridge: InProcessBridge | undefined;
    let logged = '';
    const logProblem = (text: string): void => {
      logged += `staticmcp serve: ${text}\n`;
      if (!bridge) return;
      bridge.stderr = logged;
      bridge.received();
    };
    const source = makeSource(logProblem);
    const { session } = await openBridgeSession({ source, packFiles, ...roots }, logProblem, (message) =>
      bridge!.receive(stringifyJsonRpc(message)),
    );
    bridge = new InProcessBridge(session, () => source.close());
    bridge.stderr = logged;
    return bridge;
  }

  /** A frame as it would cross the pipe: serialized, then parsed by the client. */
  private receive(line: string): void {
    const frame: unknown = JSON.parse(line);
    this.frames.push(frame);
    this.received();
    this.onFrame?.(frame);
  }

  sendLine(line: string): void {
    // The transport hands the session each line without its newline, and no empty line.
    for (const piece of line.split('\n')) {
      const frame = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
      if (frame.trim() !== '') this.session.handleFrame(frame);
    }
  }

  /** Ends the session as stdin's end does (answers in flight, then live children), and closes the tree. */
  async close(): Promise<void> {
    await this.session.close(500, 3_000);
    this.closeSource();
  }
}

/** The SDK's transport over an in-process bridge: each message a line in, each frame a message out. */
class InProcessTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(private readonly bridge: InProcessBridge) {}

  async start(): Promise<void> {
    this.bridge.onFrame = (frame) => this.onmessage?.(frame as JSONRPCMessage);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.bridge.send(message);
  }

  async close(): Promise<void> {
    await this.bridge.close();
    this.onclose?.();
  }
}

/** The official SDK client connected to `serve <folder>` in-process (InProcessBridge.open's arguments). */
export async function connectInProcess(folder: string, options: { live?: string } = {}): Promise<Client> {
  const client = new Client({ name: 'in-process-bridge', version: '1.0.0' });
  await client.connect(new InProcessTransport(await InProcessBridge.open(folder, options)));
  return client;
}
