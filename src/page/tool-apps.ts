// A tool's MCP App under its result: app-host.js (ext-apps' AppBridge) loaded once, when the first
// app is shown, and the app's own calls answered as the Run button answers them.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { FLAT_RESOURCE_URI_KEY, appPageFolder } from '../core/tree/mcp-apps.js';
import type { AnswerToolCall, MountedApp } from './app-host.js';
import { element } from './dom.js';
import { answerOf, type Backend } from './page-backend.js';

interface AppHost {
  mountApp(
    frame: HTMLIFrameElement,
    toolArguments: JsonObject,
    toolResult: JsonObject,
    answerToolCall: AnswerToolCall,
    tools: ReadonlyMap<string, JsonObject>,
  ): Promise<MountedApp>;
}

let appHostLoad: Promise<AppHost> | undefined;

/** app-host.js (ext-apps' AppBridge, ~0.5 MB), fetched once, when the first app is shown; its hash is in the page's CSP. */
function loadAppHost(site: string, integrity: string): Promise<AppHost> {
  appHostLoad ??= new Promise<AppHost>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = new URL('app-host.js', site).href;
    script.integrity = integrity;
    script.addEventListener('load', () => {
      const host = (globalThis as { StaticmcpAppHost?: AppHost }).StaticmcpAppHost;
      if (host) resolve(host);
      else reject(new Error("app-host.js loaded but did not set up the apps' host"));
    });
    script.addEventListener('error', () => reject(new Error('app-host.js could not be loaded from this site')));
    document.head.append(script);
  });
  return appHostLoad;
}

/** The UI resource a tool names (`_meta.ui.resourceUri`, or the deprecated flat key). */
export function appUriOf(tool: JsonObject): string | undefined {
  const meta = isObject(tool._meta) ? tool._meta : {};
  const uri = isObject(meta.ui) ? meta.ui.resourceUri : meta[FLAT_RESOURCE_URI_KEY];
  return typeof uri === 'string' ? uri : undefined;
}

/** A tool call from an app, answered as the Run button answers one; a miss is a tool error that says what answers it. */
function answerAppCall(backend: Backend): AnswerToolCall {
  return async (name, args) => {
    const answer = await answerOf(backend, 'tools/call', { name, arguments: args as JsonObject }, (files) =>
      files.callTool(name, args as JsonObject),
    );
    if ('error' in answer) throw new Error(answer.error);
    if ('miss' in answer)
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `Not answered here: ${answer.miss}. Run the project's scripts to answer it: ${backend.liveCommand}`,
          },
        ],
      };
    return answer.result;
  };
}

/**
 * The tool's app under its result, the way an MCP Apps host shows it: its page from the tree
 * (apps/<key>/, served with the app's declared CSP) in a frame with an opaque origin
 * (sandbox="allow-scripts", never allow-same-origin), talking to the page only through AppBridge.
 */
export async function showApp(
  output: HTMLElement,
  backend: Backend & { appHost: string },
  name: string,
  appUri: string,
  args: JsonObject,
  result: JsonObject,
): Promise<void> {
  const host = await loadAppHost(backend.site, backend.appHost);
  const frame = element('iframe', {
    sandbox: 'allow-scripts',
    title: `${name}: the tool's app`,
    class: 'app-frame',
    src: new URL(appPageFolder(appUri), backend.site).href,
  });
  output.append(frame);
  // Connected before the frame's page has loaded: its first message is the app's ui/initialize.
  const mounted = await host.mountApp(frame, args, result, answerAppCall(backend), backend.tools);
  // The next answer replaces this one: the bridge stops listening to a frame no longer shown.
  const watcher = new MutationObserver(() => {
    if (frame.isConnected) return;
    watcher.disconnect();
    void mounted.close();
  });
  watcher.observe(output, { childList: true });
}
