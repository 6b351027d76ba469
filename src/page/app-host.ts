// The playground's MCP Apps host: @modelcontextprotocol/ext-apps' AppBridge over postMessage to a
// tool's app framed by the page (sandbox="allow-scripts", so the app has an opaque origin and
// reaches the page only through these messages). Bundled by scripts/bundle-page.mjs into its own
// file (`app-host.js`, written only into trees with apps: the SDK and zod make it about 0.5 MB),
// which the page loads when it first shows an app; it sets globalThis.StaticmcpAppHost. An app's
// `tools/call` is answered only for the tools MCP Apps lets an app call (`_meta.ui.visibility`).
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { isObject, type JsonObject } from '../core/tree/json-object.js';

/** A tool call as the page answers it (the same path as its Run button: /mcp, else the tree's files). */
export type AnswerToolCall = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** JSON-RPC's "invalid params", as MCP answers a call to a tool it does not offer. */
const INVALID_PARAMS = -32602;

/**
 * Why an app may not call the tool `name` (its definition `tool`, undefined when the tree has
 * none), or undefined when it may. MCP Apps: `_meta.ui.visibility` lists who may call a tool,
 * "model" and/or "app"; without one it is ["model", "app"] (the extension's default), so an app may
 * call every tool of its server not kept for the model alone. A visibility that is not a list of
 * strings is refused: what its author meant cannot be told, and the safe reading is "not the app".
 */
export function refuseAppCall(name: string, tool: JsonObject | undefined): string | undefined {
  if (!tool) return `this server has no tool named ${JSON.stringify(name)}`;
  const ui = isObject(tool._meta) ? tool._meta.ui : undefined;
  const visibility = isObject(ui) ? ui.visibility : undefined;
  if (visibility === undefined) return undefined;
  if (!Array.isArray(visibility) || !visibility.every((who) => typeof who === 'string'))
    return `the tool ${JSON.stringify(name)} declares a _meta.ui.visibility that is not a list of "model" and/or "app", so no app may call it`;
  if (visibility.includes('app')) return undefined;
  return `the tool ${JSON.stringify(name)} is not visible to apps (its _meta.ui.visibility is ${JSON.stringify(visibility)}, without "app"): only the model may call it`;
}

export interface MountedApp {
  close(): Promise<void>;
}

/**
 * Connects a bridge to the frame (before its page loads, so the app's `ui/initialize` is heard),
 * then gives the app the tool's arguments and result once it says it is initialized. `tools` are
 * the server's tool definitions by name: an app's call to a tool it may not call is a JSON-RPC
 * error, never answered.
 */
async function mountApp(
  frame: HTMLIFrameElement,
  toolArguments: Record<string, unknown>,
  toolResult: Record<string, unknown>,
  answerToolCall: AnswerToolCall,
  tools: ReadonlyMap<string, JsonObject>,
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
  bridge.oncalltool = async (params) => {
    const refused = refuseAppCall(params.name, tools.get(params.name));
    // The SDK answers a thrown error's `code` and `message` as the JSON-RPC error.
    if (refused !== undefined) throw Object.assign(new Error(`Refused: ${refused}.`), { code: INVALID_PARAMS });
    return (await answerToolCall(params.name, params.arguments ?? {})) as Awaited<
      ReturnType<NonNullable<typeof bridge.oncalltool>>
    >;
  };
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
