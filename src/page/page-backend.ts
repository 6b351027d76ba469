// Where the playground's answers come from (the site's /mcp, else the tree's own files) and the
// views every form shares: an answer, an error, and a miss with the command that answers it.
import type { JsonObject } from '../core/tree/json-object.js';
import { element } from './dom.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { TreeAnswer, TreeFiles } from './tree-answers.js';

export interface Backend {
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

/** A miss, with the command that answers it. */
export function missView(backend: Backend, why: string, then: string): HTMLElement {
  return element(
    'div',
    { class: 'result error' },
    element('p', {}, `Not answered here: ${why}.`),
    element('p', {}, "Run the project's scripts to answer it:"),
    element('div', { class: 'snippet-box' }, element('pre', { class: 'command' }, backend.liveCommand)),
    element('p', {}, then),
  );
}

export function showAnswer(output: HTMLElement, view: HTMLElement): void {
  output.replaceChildren(view);
  output.setAttribute('aria-busy', 'false');
}

export async function answerOf(
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

export function errorView(text: string): HTMLElement {
  return element('div', { class: 'result error', role: 'alert' }, element('p', {}, text));
}
