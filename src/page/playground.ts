// The landing page's script (bundled by scripts/bundle-page.mjs into every tree's index.html, with
// its hash in the page's Content-Security-Policy): it turns the page the build rendered into a
// playground. Served with an MCP endpoint beside it (the tree's worker, `staticmcp serve --http`),
// every run is a request to /mcp; on a static host without one, runs read the tree's own files
// (tree-answers.ts); from file:// nothing can be fetched, so the page says how to serve it.
// Everything the tree says goes into the page as text (dom.ts); requests go to this origin only.
import type { JsonObject } from '../core/tree/json-object.js';
import { APP_MIME_TYPE } from '../core/tree/mcp-apps.js';
import { connectMcp } from './mcp-endpoint.js';
import type { Backend } from './page-backend.js';
import { addFilter } from './page-filter.js';
import { startResourceList } from './resource-list.js';
import { enhancePrompt, enhanceResource, enhanceTool } from './run-forms.js';
import { addSearch, DOCUMENT_PARAMETER, showDocument } from './search-view.js';
import { appUriOf } from './tool-apps.js';
import { openTreeFiles } from './tree-answers.js';
import type { ToolFacts } from './schema-form.js';
import type { TreeToolExtension } from '../core/tree-reading/tree-extension.js';

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

/** Elements of the build-rendered page named by a data attribute, by that attribute's value. */
function byData(selector: string, attribute: string): Map<string, HTMLElement> {
  const found = new Map<string, HTMLElement>();
  for (const node of document.querySelectorAll<HTMLElement>(selector)) {
    const key = node.getAttribute(attribute);
    if (key !== null && !found.has(key)) found.set(key, node);
  }
  return found;
}

/** The Connect panel opens when a link (or the address) points at it: it is one click away, closed. */
function wireConnectPanel(): void {
  const panel = document.getElementById('connect');
  if (!(panel instanceof HTMLDetailsElement)) return;
  const open = (): void => {
    if (location.hash === '#connect') panel.open = true;
  };
  addEventListener('hashchange', open);
  open();
}

async function start(): Promise<void> {
  wireCopyButtons();
  wireConnectPanel();
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
  const extensions = new Map<string, TreeToolExtension>();
  if (manifest) {
    for (const tool of manifest.tools) {
      toolDefinitions.set(tool.definition.name, tool.definition);
      if (tool.extension) extensions.set(tool.definition.name, tool.extension);
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
      remoteNote.textContent = `This server answers MCP at ${mcpUrl.href}. Add that address to your assistant as below. This page's Run buttons send their calls there too.`;
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
  const toolValues = await files?.readToolValues();
  for (const [name, article] of byData('article.tool', 'data-tool')) {
    const tool = toolDefinitions.get(name);
    if (!tool) continue;
    // Shown only when the tree holds the app's page (a resource of the extension's type).
    const appUri = appUriOf(tool);
    const app = appUri ? manifest?.resourcesByUri.get(appUri)?.definition : undefined;
    const extension = extensions.get(name);
    const facts: ToolFacts = {
      enumerated: extension?.enumerated ?? [],
      recordsEnumerated: extension?.recordsEnumerated === true,
      values: toolValues?.[name] ?? {},
      hasCompletions: toolValues !== undefined,
      live: extension?.live ?? true,
      precomputed: extension?.precomputed ?? 0,
    };
    enhanceTool(article, tool, facts, backend, app?.mimeType === APP_MIME_TYPE ? appUri : undefined);
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
  const resourceSection = document.getElementById('resources');
  let refreshFilter = (): void => {};
  const resources = resourceSection ? startResourceList(resourceSection, backend, () => refreshFilter()) : undefined;
  // The whole list when mcp.json keeps only its first part inline (resource-list-parts.ts).
  refreshFilter = addFilter(resources, manifest?.resourceList?.total ?? manifest?.resources.length ?? 0);
  const searchSection = document.getElementById('search');
  if (searchSection) addSearch(searchSection, backend);
  const documentId = new URLSearchParams(location.search).get(DOCUMENT_PARAMETER);
  const documentSection = document.getElementById('document');
  if (documentId !== null && documentSection) await showDocument(documentSection, backend, documentId);
}

void start().catch((error: Error) => say(`The playground failed: ${error.message}`));
