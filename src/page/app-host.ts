// The playground's MCP Apps host: @modelcontextprotocol/ext-apps' AppBridge over postMessage to a
// tool's app framed by the page (sandbox="allow-scripts", so the app has an opaque origin and
// reaches the page only through these messages). Bundled by scripts/bundle-page.mjs into its own
// file (`app-host.js`, written only into trees with apps: the SDK and zod make it about 0.5 MB),
// which the page loads when it first shows an app; it sets globalThis.StaticmcpAppHost.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** A tool call as the page answers it (the same path as its Run button: /mcp, else the tree's files). */
export type AnswerToolCall = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface MountedApp {
  close(): Promise<void>;
}

/**
 * Connects a bridge to the frame (before its page loads, so the app's `ui/initialize` is heard),
 * then gives the app the tool's arguments and result once it says it is initialized.
 */
async function mountApp(
  frame: HTMLIFrameElement,
  toolArguments: Record<string, unknown>,
  toolResult: Record<string, unknown>,
  answerToolCall: AnswerToolCall,
): Promise<MountedApp> {
  const target = frame.contentWindow;
  if (!target) throw new Error('the app frame is not in the page');
  const bridge = new AppBridge(
    null,
    { name: 'staticmcp playground', version: '1' },
    { serverTools: {} },
    {
      hostContext: {
        theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
        displayMode: 'inline',
      },
    },
  );
  // The SDK checks the shape of what it returns: a CallToolResult from the tree is one already.
  bridge.oncalltool = async (params) =>
    (await answerToolCall(params.name, params.arguments ?? {})) as Awaited<
      ReturnType<NonNullable<typeof bridge.oncalltool>>
    >;
  bridge.onsizechange = ({ height }) => {
    if (typeof height === 'number' && height > 0) frame.style.height = `${Math.min(Math.ceil(height), 2000)}px`;
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: toolArguments });
    void bridge.sendToolResult(toolResult as Parameters<typeof bridge.sendToolResult>[0]);
  };
  const transport = new PostMessageTransport(target, target);
  await bridge.connect(transport);
  // Closing the transport stops listening to the frame (the page drops it on the next Run).
  return { close: () => transport.close() };
}

(globalThis as { StaticmcpAppHost?: unknown }).StaticmcpAppHost = { mountApp };
