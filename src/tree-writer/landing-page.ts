// The tree's landing page (index.html): what this server offers and how to connect, with the
// client snippets, and the playground script (src/page) and its styles inlined under a
// Content-Security-Policy that names their hashes; the MCP Apps host script beside it when the
// tree has apps. deploy-files.ts writes it with the other files for static hosts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { INSTALL_HINT, STATICMCP_COMMAND } from '../shared/staticmcp-command.js';
import { EXTENSION_KEY, type Manifest, type ToolExtension } from '../core/tree/manifest.js';
import type { SkillEntry } from '../core/tree/skills.js';
import { renderSkillsSection } from './landing-skills.js';
import { clipText, escapeHtml } from './page-text.js';

export { escapeHtml } from './page-text.js';

/** Where `npm run build` puts the page script (scripts/bundle-page.mjs): dist/page/playground.js. */
const PAGE_BUNDLE_URL = new URL('../page/playground.js', import.meta.url);

/**
 * The playground's MCP Apps host (ext-apps' AppBridge, src/page/app-host.ts), bundled beside the
 * page script: about 0.5 MB (the SDK and zod), so it is its own file, written only into trees that
 * have apps, and loaded by the page only when a tool's app is shown (its hash is in the page's CSP).
 */
const APP_HOST_BUNDLE_URL = new URL('../page/app-host.js', import.meta.url);
let appHostScript: string | null | undefined;

/** The bundled app host, or null when this staticmcp was compiled without it (tsc alone). */
export function readAppHostScript(): string | null {
  if (appHostScript === undefined) {
    try {
      appHostScript = readFileSync(APP_HOST_BUNDLE_URL, 'utf8');
    } catch {
      appHostScript = null;
    }
  }
  return appHostScript;
}

let template: string | undefined;
let style: string | undefined;
let pageScript: string | undefined;

/** Element content only (quotes stay readable in a snippet's page source). */
function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** One entry of a list on the page: the playground script (src/page) finds it by its data attribute. */
function entries(
  kind: 'tool' | 'template' | 'prompt',
  items: { key: string; heading: string; marks?: string[]; title?: string; text?: string }[],
): string {
  const attribute = { tool: 'data-tool', template: 'data-template', prompt: 'data-prompt' }[kind];
  return items
    .map(
      (item) =>
        `<article class="${kind}" ${attribute}="${escapeHtml(item.key)}"><h3><code>${escapeHtml(item.heading)}</code>${(item.marks ?? []).map((mark) => ` <span class="mark">${escapeHtml(mark)}</span>`).join('')}</h3>` +
        `${item.title ? `<p><strong>${escapeHtml(clipText(item.title))}</strong></p>` : ''}${item.text ? `<p>${escapeHtml(clipText(item.text))}</p>` : ''}` +
        `${kind === 'tool' ? '<div class="tool-run"></div>' : ''}</article>`,
    )
    .join('\n');
}

/**
 * One collapsible section of the page, left out when it lists nothing (a tree without prompts
 * shows no "Prompts (0)"). `id` is what the playground script and the skip link find it by.
 */
function section(id: string, heading: string, count: number, body: string): string {
  if (count === 0) return '';
  return (
    `<details open class="section" id="${id}"><summary><h2 id="${id}-title">${heading} (${count})</h2></summary>\n` +
    `<div class="list">${body}</div>\n</details>`
  );
}

/**
 * One word of a shell command a person pastes: as it is when it holds nothing a shell reads,
 * else single-quoted (a tree someone else built may name its server `x; rm -rf ~`).
 */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:/@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A snippet with its copy button (shown by the page script, which does the copying). */
function snippet(title: string, text: string, note?: string): string {
  return (
    `<div class="snippet-box"><div class="snippet-head"><h4>${title}</h4><button type="button" class="copy" aria-label="Copy: ${title.replace(/<[^>]*>/g, '')}" hidden>Copy</button></div>` +
    `${note ? `<p class="muted">${note}</p>` : ''}<pre class="snippet">${escapeText(text)}</pre></div>`
  );
}

/** The client snippets for the remote MCP URL and for the local bridge, named `name`, at `site` (ends in `/`). */
function connectSnippets(name: string, site: string): { remote: string; bridge: string } {
  const url = `${site}mcp`;
  const run = STATICMCP_COMMAND.join(' ');
  const json = (value: unknown): string => JSON.stringify(value, null, 2);
  const stdio = { command: STATICMCP_COMMAND[0], args: [...STATICMCP_COMMAND.slice(1), 'serve', site] };
  const remote = [
    snippet('Claude (claude.ai, Desktop)', url, 'Settings → Connectors → Add custom connector, with this URL.'),
    snippet(
      'ChatGPT',
      url,
      'Settings → Apps &amp; Connectors → Advanced settings → Developer mode, then Create a connector with this URL.',
    ),
    snippet('Claude Code', `claude mcp add --transport http ${shellWord(name)} ${url}`),
    snippet('VS Code (<code>.vscode/mcp.json</code>)', json({ servers: { [name]: { type: 'http', url } } })),
    snippet('Cursor (<code>.cursor/mcp.json</code>)', json({ mcpServers: { [name]: { url } } })),
    snippet('MCP Inspector', `npx @modelcontextprotocol/inspector --transport http --server-url ${url}`),
  ];
  const bridge = [
    snippet('Command', `${run} serve ${site}`),
    snippet('Claude Desktop (<code>claude_desktop_config.json</code>)', json({ mcpServers: { [name]: stdio } })),
    snippet('Claude Code', `claude mcp add ${shellWord(name)} -- ${run} serve ${site}`),
    snippet('VS Code (<code>.vscode/mcp.json</code>)', json({ servers: { [name]: { type: 'stdio', ...stdio } } })),
    snippet('Cursor (<code>.cursor/mcp.json</code>)', json({ mcpServers: { [name]: stdio } })),
    snippet('MCP Inspector', `npx @modelcontextprotocol/inspector ${run} serve ${site}`),
  ];
  return {
    remote: remote.join('\n'),
    bridge: `${bridge.join('\n')}\n<p class="muted">ChatGPT and Claude's connectors take a remote URL only: use the section above.</p>`,
  };
}

/** The bundled page script (dist/page/playground.js), or '' when this staticmcp was compiled without it (tsc alone). */
function readPageScript(): string {
  if (pageScript === undefined) {
    try {
      pageScript = readFileSync(PAGE_BUNDLE_URL, 'utf8').trimEnd();
    } catch {
      pageScript = '';
    }
    // Inline in a <script> element: these would end or confuse it (esbuild escapes them; checked anyway).
    if (/<\/script|<!--/i.test(pageScript))
      throw new Error(`${PAGE_BUNDLE_URL.pathname} cannot be inlined: it holds </script or <!--`);
  }
  return pageScript;
}

function sha256Of(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

function sha256Source(text: string): string {
  return `'${sha256Of(text)}'`;
}

/** The app host's hash (its `integrity` and its entry in the page's script-src), when the tree has apps and the bundle exists. */
function appHostHash(hasApps: boolean): string | undefined {
  const script = hasApps ? readAppHostScript() : null;
  return script === null ? undefined : sha256Of(script);
}

/**
 * The page's Content-Security-Policy: its own inline script and style by hash, requests to this
 * origin only (the tree's files and /mcp), images and audio from answers as inline data, nothing
 * else. The same text goes in a <meta> and, for hosts that read it, in `_headers`.
 */
function pagePolicy(script: string, style: string, appHost: string | undefined): string {
  return [
    "default-src 'none'",
    `script-src ${sha256Source(script)}${appHost ? ` '${appHost}'` : ''}`,
    `style-src ${sha256Source(style)}`,
    "img-src 'self' data:",
    "media-src 'self' data:",
    "connect-src 'self'",
    // The tree's app pages (apps/<key>/), framed sandboxed; nothing is framed in a tree without apps.
    ...(appHost ? ["frame-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The page's CSP as `_headers` serves it (frame-ancestors works only as a header). */
export function renderPageHeaders(hasApps = false): string {
  const policy = `${pagePolicy(readPageScript(), readPageStyle(), appHostHash(hasApps))}; frame-ancestors 'self'`;
  return ['/', '/index.html'].map((path) => `${path}\n  Content-Security-Policy: ${policy}\n`).join('\n');
}

function readPageStyle(): string {
  style ??= readFileSync(new URL('../../templates/index.css', import.meta.url), 'utf8').trimEnd();
  return style;
}

/** What the page shows beyond the manifest's MCP lists, when the manifest given lacks our extension (a build in progress). */
export interface PageFacts {
  tools: Record<string, ToolExtension>;
  hasSearch: boolean;
  /** The tree's skills (discover-skills.ts), listed after the tools. */
  skills?: readonly SkillEntry[];
  /** Resources in the whole list, when mcp.json lists only its first part (resource-list-parts.ts). */
  resourceCount?: number;
}

/** The page's facts as a finished manifest states them. */
export function pageFactsOf(manifest: Manifest): PageFacts {
  const extension = manifest[EXTENSION_KEY];
  return {
    tools: extension?.tools ?? {},
    hasSearch: extension?.search !== undefined,
    resourceCount: extension?.resourceList?.total,
  };
}

/** `liveOnlyTools`: tools with no precomputed call (only `serve --live` answers them, never this site's /mcp). */
export function renderIndexHtml(
  manifest: Manifest,
  publicUrl?: string,
  liveOnlyTools: readonly string[] = [],
  hasApps = false,
  facts: PageFacts = pageFactsOf(manifest),
): string {
  template ??= readFileSync(new URL('../../templates/index.html', import.meta.url), 'utf8');
  const { serverInfo, capabilities } = manifest;
  // Without a known address the page fills in the one it is served from (src/page/playground.ts).
  const site = `${publicUrl ?? 'https://<where-you-deployed-this-folder>'}/`;
  const liveOnly = new Set(liveOnlyTools);
  const script = readPageScript();
  const css = readPageStyle();
  const snippets = connectSnippets(serverInfo.name, site);
  const appHost = appHostHash(hasApps);
  const toolFacts = facts.tools;
  const tools = entries(
    'tool',
    capabilities.tools.map((tool) => {
      const precomputed = toolFacts[tool.name]?.precomputed;
      return {
        key: tool.name,
        heading: tool.name,
        title: tool.title,
        text: tool.description,
        marks: [
          ...(liveOnly.has(tool.name) ? ['live only'] : []),
          ...(precomputed ? [`${precomputed} precomputed`] : []),
        ],
      };
    }),
  );
  const liveOnlyNote =
    liveOnly.size === 0
      ? ''
      : "<p>Tools marked <em>live only</em> have no precomputed answer: only the project's scripts answer them, with <code>" +
        `${escapeHtml(STATICMCP_COMMAND.join(' '))} serve ${escapeHtml(site)} --live &lt;project folder&gt;</code>.</p>`;
  const templates = capabilities.resourceTemplates ?? [];
  const prompts = capabilities.prompts ?? [];
  const resourceCount = facts.resourceCount ?? capabilities.resources.length;
  // The resources are listed by the page at run time (resources/list, page by page): a content
  // tree's list would make this page as large as mcp.json.
  const resources = `<p class="muted resource-note">${resourceCount === 1 ? 'One resource' : `${resourceCount} resources`}: this page lists them when it is served; <a href="mcp.json"><code>mcp.json</code></a> names them.</p>`;
  const sections = [
    facts.hasSearch
      ? '<section id="search" aria-labelledby="search-title"><h2 id="search-title">Search</h2><p class="muted">Searching needs this page served.</p></section>'
      : '',
    section('tools', 'Tools', capabilities.tools.length, liveOnlyNote + tools),
    renderSkillsSection(facts.skills ?? []),
    section('resources', 'Resources', resourceCount, resources),
    section(
      'templates',
      'Resource templates',
      templates.length,
      entries(
        'template',
        templates.map((template) => ({
          key: template.uriTemplate,
          heading: template.uriTemplate,
          title: template.title ?? template.name,
          text: template.description,
        })),
      ),
    ),
    section(
      'prompts',
      'Prompts',
      prompts.length,
      entries(
        'prompt',
        prompts.map((prompt) => ({
          key: prompt.name,
          heading: prompt.name,
          title: prompt.title,
          text: `${prompt.description ?? ''}${prompt.arguments?.length ? ` (arguments: ${prompt.arguments.map((argument) => `${argument.name}${argument.required ? '' : '?'}`).join(', ')})` : ''}`,
        })),
      ),
    ),
  ].filter(Boolean);
  const values: Record<string, string> = {
    csp: escapeHtml(pagePolicy(script, css, appHost)),
    appHost: appHost ?? '',
    style: css,
    script,
    title: escapeHtml(clipText(serverInfo.title ?? serverInfo.name)),
    description: escapeHtml(clipText(serverInfo.description ?? manifest.instructions ?? '')),
    treeUrl: escapeHtml(site),
    runCommand: escapeHtml(STATICMCP_COMMAND.join(' ')),
    installHint: escapeHtml(INSTALL_HINT),
    remoteSnippets: snippets.remote,
    bridgeSnippets: snippets.bridge,
    sections: sections.join('\n'),
  };
  // One pass: a value's own text (a tool description with `{{tools}}` in it) is never expanded again.
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}
