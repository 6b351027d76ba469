// The landing page's script (bundled by scripts/bundle-page.mjs into every tree's index.html, with
// its hash in the page's Content-Security-Policy): it turns the page the build rendered into a
// playground. Served with an MCP endpoint beside it (the tree's worker, `staticmcp serve --http`),
// every run is a request to /mcp; on a static host without one, runs read the tree's own files
// (tree-answers.ts); from file:// nothing can be fetched, so the page says how to serve it.
// Everything the tree says goes into the page as text (dom.ts); requests go to this origin only.
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { APP_MIME_TYPE, appPageFolder, FLAT_RESOURCE_URI_KEY } from '../core/tree/mcp-apps.js';
import type { AnswerToolCall, MountedApp } from './app-host.js';
import { element, safeIconUrl, uniqueId } from './dom.js';
import { connectMcp, type McpEndpoint } from './mcp-endpoint.js';
import { renderPromptMessages, renderResourceContents, renderToolResult } from './result-view.js';
import { buildSchemaFields } from './schema-form.js';
import { openTreeFiles, type TreeAnswer, type TreeFiles } from './tree-answers.js';

interface Backend {
  mcp?: McpEndpoint;
  files?: TreeFiles;
  /** The site's root as the page is served (ends in `/`). */
  site: string;
  /** The command that answers what the tree does not hold. */
  liveCommand: string;
  /** The app host's hash (`integrity` of app-host.js), when the build wrote it: the tree has MCP Apps. */
  appHost?: string;
  /** The tree's tool definitions by name: what an app may call is read from them (app-host.ts). */
  tools: ReadonlyMap<string, JsonObject>;
}

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
function appUriOf(tool: JsonObject): string | undefined {
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
async function showApp(
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

const main = document.querySelector('main');
const status = document.getElementById('status');

function say(text: string): void {
  if (status) status.textContent = text;
}

/** The page's `<pre>` snippets name the address the build knew; the served page names its own. */
function fillAddress(site: string): void {
  const built = main?.getAttribute('data-site');
  if (!built || built === site) return;
  for (const pre of document.querySelectorAll('pre.snippet')) {
    pre.textContent = (pre.textContent ?? '').split(built).join(site);
  }
}

function wireCopyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button.copy')) {
    const text = button.closest('.snippet-box')?.querySelector('pre');
    if (!text) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      const value = text.textContent ?? '';
      // Said in the status line: the button keeps its name (its label starts with what it shows).
      const done = (): void => say('Copied to the clipboard.');
      if (navigator.clipboard) {
        navigator.clipboard.writeText(value).then(done, () => selectText(text));
      } else selectText(text);
    });
  }
}

/** Without clipboard access (an insecure origin), the text is selected for the person to copy. */
function selectText(node: Node): void {
  const range = document.createRange();
  range.selectNodeContents(node);
  const selection = getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  say('Selected: press Ctrl+C (⌘C) to copy.');
}

/** A miss, with the command that answers it. */
function missView(backend: Backend, why: string, then: string): HTMLElement {
  return element(
    'div',
    { class: 'result error' },
    element('p', {}, `Not answered here: ${why}.`),
    element('p', {}, "Run the project's scripts to answer it:"),
    element('div', { class: 'snippet-box' }, element('pre', { class: 'command' }, backend.liveCommand)),
    element('p', {}, then),
  );
}

function showAnswer(output: HTMLElement, view: HTMLElement): void {
  output.replaceChildren(view);
  output.setAttribute('aria-busy', 'false');
}

async function answerOf(
  backend: Backend,
  method: string,
  params: JsonObject,
  fromFiles: (files: TreeFiles) => Promise<TreeAnswer>,
): Promise<TreeAnswer | { error: string }> {
  if (backend.mcp) {
    const reply = await backend.mcp.request(method, params);
    return 'error' in reply ? { error: reply.error } : reply;
  }
  if (backend.files) {
    try {
      return await fromFiles(backend.files);
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  return { error: 'this page is not served, so it cannot read the tree' };
}

function errorView(text: string): HTMLElement {
  return element('div', { class: 'result error', role: 'alert' }, element('p', {}, text));
}

function enhanceTool(
  article: HTMLElement,
  tool: JsonObject,
  extension: JsonObject | undefined,
  backend: Backend,
  appUri: string | undefined,
): void {
  const name = String(tool.name);
  const icon = (Array.isArray(tool.icons) ? tool.icons : []).map(safeIconUrl).find((url) => url !== undefined);
  // Decorative: the tool's name is right beside it.
  if (icon)
    article
      .querySelector('h3')
      ?.prepend(element('img', { src: icon, alt: '', class: 'icon', width: '24', height: '24' }), ' ');
  const form = element('form', { class: 'run-form', 'aria-label': `Try ${name}` });
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const readArguments = buildSchemaFields(form, schema, {
    enumerated: Array.isArray(extension?.enumerated)
      ? extension.enumerated.filter((item) => typeof item === 'string')
      : [],
    recordsEnumerated: Array.isArray(extension?.enumerated),
  });
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  form.append(element('button', { type: 'submit' }, 'Run'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const read = readArguments();
    if ('problem' in read) {
      showAnswer(output, errorView(read.problem));
      read.field.focus();
      return;
    }
    output.setAttribute('aria-busy', 'true');
    output.replaceChildren(element('p', {}, 'Running…'));
    void answerOf(backend, 'tools/call', { name, arguments: read.args }, (files) =>
      files.callTool(name, read.args),
    ).then((answer) => {
      if ('error' in answer) showAnswer(output, errorView(answer.error));
      else if ('miss' in answer)
        showAnswer(
          output,
          missView(backend, answer.miss, `then call ${name} with ${JSON.stringify(read.args)} from your MCP client.`),
        );
      else {
        showAnswer(output, renderToolResult(answer.result));
        if (appUri && backend.appHost)
          void showApp(output, { ...backend, appHost: backend.appHost }, name, appUri, read.args, answer.result).catch(
            (error: Error) => output.append(errorView(`The tool's app cannot be shown: ${error.message}`)),
          );
      }
    });
  });
  article.querySelector('.tool-run')?.append(form, output);
}

function enhanceResource(article: HTMLElement, resource: JsonObject, backend: Backend, template: boolean): void {
  const uri = String(template ? resource.uriTemplate : resource.uri);
  const mimeType = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  const form = element('form', { class: 'run-form', 'aria-label': `Read ${uri}` });
  let uriInput: HTMLInputElement | undefined;
  if (template) {
    const id = uniqueId('uri');
    uriInput = element('input', { id, type: 'text', spellcheck: 'false' });
    uriInput.value = uri;
    form.append(
      element('div', { class: 'field' }, element('label', { for: id }, 'URI (fill in the template)'), uriInput),
    );
  }
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  form.append(element('button', { type: 'submit' }, template ? 'Read' : 'View'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const target = uriInput ? uriInput.value : uri;
    output.setAttribute('aria-busy', 'true');
    void answerOf(backend, 'resources/read', { uri: target }, (files) => files.readResource(target, mimeType)).then(
      (answer) => {
        if ('error' in answer) showAnswer(output, errorView(answer.error));
        else if ('miss' in answer)
          showAnswer(output, missView(backend, answer.miss, `then read ${target} from your MCP client.`));
        else
          showAnswer(
            output,
            renderResourceContents(Array.isArray(answer.result.contents) ? answer.result.contents : []),
          );
      },
    );
  });
  article.append(form, output);
}

function enhancePrompt(article: HTMLElement, prompt: JsonObject, backend: Backend): void {
  const name = String(prompt.name);
  const form = element('form', { class: 'run-form', 'aria-label': `Show prompt ${name}` });
  const inputs: [string, HTMLInputElement][] = [];
  for (const argument of Array.isArray(prompt.arguments) ? prompt.arguments : []) {
    if (!isObject(argument) || typeof argument.name !== 'string') continue;
    const id = uniqueId('arg');
    const input = element('input', { id, type: 'text', spellcheck: 'false' });
    if (argument.required === true) input.setAttribute('aria-required', 'true');
    form.append(
      element(
        'div',
        { class: 'field' },
        element(
          'label',
          { for: id },
          element('code', {}, argument.name),
          argument.required === true ? ' (required)' : '',
        ),
        input,
        typeof argument.description === 'string' ? element('div', { class: 'hint' }, argument.description) : null,
      ),
    );
    inputs.push([argument.name, input]);
  }
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  form.append(element('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const args = Object.fromEntries(
      inputs.filter(([, input]) => input.value !== '').map(([key, input]) => [key, input.value]),
    );
    output.setAttribute('aria-busy', 'true');
    void answerOf(backend, 'prompts/get', { name, arguments: args }, (files) => files.getPrompt(name, args)).then(
      (answer) => {
        if ('error' in answer) showAnswer(output, errorView(answer.error));
        else if ('miss' in answer)
          showAnswer(output, missView(backend, answer.miss, `then get prompt ${name} from your MCP client.`));
        else showAnswer(output, renderPromptMessages(answer.result));
      },
    );
  });
  article.append(form, output);
}

function addSearch(backend: Backend & { mcp: McpEndpoint }): void {
  const tools = document.getElementById('tools');
  if (!tools) return;
  const id = uniqueId('search');
  const input = element('input', { id, type: 'search', spellcheck: 'false' });
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  const form = element(
    'form',
    { role: 'search', class: 'run-form' },
    element('div', { class: 'field' }, element('label', { for: id }, 'Search this server'), input),
    element('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void backend.mcp.request('tools/call', { name: 'search', arguments: { query: input.value } }).then((reply) => {
      showAnswer(output, 'error' in reply ? errorView(reply.error) : renderToolResult(reply.result));
    });
  });
  tools.before(element('section', { id: 'search', 'aria-label': 'Search' }, form, output));
}

/** Elements of the build-rendered page named by a data attribute, by that attribute's value. */
function byData(selector: string, attribute: string): Map<string, HTMLElement> {
  const found = new Map<string, HTMLElement>();
  for (const node of document.querySelectorAll<HTMLElement>(selector)) {
    const key = node.getAttribute(attribute);
    if (key !== null && !found.has(key)) found.set(key, node);
  }
  return found;
}

async function start(): Promise<void> {
  wireCopyButtons();
  if (location.protocol !== 'http:' && location.protocol !== 'https:') {
    say(
      'Opened from a file: this page shows what the server offers, but trying its tools needs the page to be served (staticmcp serve --http <this folder>, or any static host).',
    );
    return;
  }
  const site = location.origin + location.pathname.replace(/[^/]*$/, '');
  fillAddress(site);
  const mcpUrl = new URL('mcp', site);
  say('Looking for an MCP endpoint beside this page…');
  const [mcp, files] = await Promise.all([
    connectMcp(mcpUrl),
    openTreeFiles(new URL(site)).catch((error: Error) => {
      say(`This tree's mcp.json cannot be read: ${error.message}`);
      return undefined;
    }),
  ]);
  const liveCommand = `${main?.getAttribute('data-command') ?? 'staticmcp'} serve ${site} --live <project folder>`;
  const appHost = main?.getAttribute('data-app-host') || undefined;
  const manifest = files?.tree;
  const toolDefinitions = new Map<string, JsonObject>();
  const extensions = new Map<string, JsonObject>();
  if (manifest) {
    for (const tool of manifest.tools) {
      toolDefinitions.set(tool.definition.name, tool.definition);
      if (tool.extension) extensions.set(tool.definition.name, tool.extension as unknown as JsonObject);
    }
  }
  const backend: Backend = {
    site,
    liveCommand,
    tools: toolDefinitions,
    ...(mcp ? { mcp } : {}),
    ...(files ? { files } : {}),
    ...(appHost ? { appHost } : {}),
  };
  const remote = document.getElementById('connect-remote');
  const remoteNote = document.getElementById('remote-note');
  if (mcp) {
    if (remoteNote)
      remoteNote.textContent = `This server answers MCP at ${mcpUrl.href}: Run sends each call there, so a call the tree does not hold is answered when the server runs the project's scripts (staticmcp serve --live), and otherwise it says how to run them.`;
    say(`Connected to ${mcpUrl.href}.`);
  } else {
    remote?.querySelectorAll('.snippet-box').forEach((box) => {
      (box as HTMLElement).hidden = true;
    });
    if (remoteNote)
      remoteNote.textContent = `Nothing answers MCP at ${mcpUrl.href} on this host (a static host without the tree's _worker.js): connect through the local bridge below. Claude's and ChatGPT's connectors need an MCP URL: deploy the tree with its worker (Cloudflare, Netlify) or run staticmcp serve --http.`;
    say(
      files
        ? "No MCP endpoint here: Run reads the precomputed answers from the tree's files."
        : 'Nothing can be run here.',
    );
  }
  if (!files && !mcp) return;
  for (const [name, article] of byData('article.tool', 'data-tool')) {
    const tool = toolDefinitions.get(name);
    if (!tool) continue;
    // Shown only when the tree holds the app's page (a resource of the extension's type).
    const appUri = appUriOf(tool);
    const app = appUri ? manifest?.resourcesByUri.get(appUri)?.definition : undefined;
    enhanceTool(article, tool, extensions.get(name), backend, app?.mimeType === APP_MIME_TYPE ? appUri : undefined);
  }
  for (const [uri, article] of byData('article.resource', 'data-uri')) {
    const resource = manifest?.resourcesByUri.get(uri)?.definition;
    if (resource) enhanceResource(article, resource, backend, false);
  }
  const templates = new Map((manifest?.templates ?? []).map((template) => [String(template.uriTemplate), template]));
  for (const [uriTemplate, article] of byData('article.template', 'data-template')) {
    const template = templates.get(uriTemplate);
    if (template) enhanceResource(article, template, backend, true);
  }
  for (const [name, article] of byData('article.prompt', 'data-prompt')) {
    const prompt = manifest?.promptsByName.get(name)?.definition;
    if (prompt) enhancePrompt(article, prompt, backend);
  }
  if (mcp && files?.hasSearch) addSearch({ ...backend, mcp });
}

void start().catch((error: Error) => say(`The playground failed: ${error.message}`));
