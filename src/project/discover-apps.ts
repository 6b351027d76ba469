// MCP Apps in a project: a tool's UI (`tools/<tool>/ui/index.html`, mcp-bash's layout, or
// `<script>.ui.html` beside a single-file script) and standalone UIs (`ui/<name>/index.html`),
// each with an optional `ui.meta.json` (`<script>.ui.meta.json` for the single file), become
// `ui://<name>/index.html` resources of the extension's MIME type with `_meta.ui` (CSP domains,
// permissions, domain, prefersBorder). A tool gets `_meta.ui.resourceUri` (its own UI, or the one
// its metadata names) and `visibility` from its metadata. A bad UI is a problem for its own tool
// or UI only: the tool is skipped (as a bad sidecar skips it), the rest of the project builds.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sidecarValidator } from './sidecar-validators.js';
import { readJsonSidecar } from './read-json-sidecar.js';
import { CSP_KEYS } from './sidecar-schemas.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import { APP_MIME_TYPE, APP_URI_SCHEME } from '../core/tree/mcp-apps.js';
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { provideAppClass } from './app-class.js';
import type { ProjectResource } from './project-resource.js';

/** The standalone UIs' folder in a project, and the UI folder beside a tool's script. */
export const UI_FOLDER = 'ui';
export const UI_META_FILE = 'ui.meta.json';
/** The single-file script's UI: `<script>.ui.html` (and `<script>.ui.meta.json`) beside it. */
export const SCRIPT_UI_SUFFIX = '.ui.html';
/**
 * An app is one HTML document with everything inlined (a host renders it from the resource's text,
 * with no server behind it), sent whole on every resources/read and held in every host's memory:
 * 4 MiB leaves room for a bundled framework and the ext-apps SDK (~300 KB) many times over.
 */
export const MAX_APP_HTML_BYTES = 4 * 1024 * 1024;
/** A UI name is one URI segment a client and a file system take as is. */
const UI_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** An origin an app may reach: https (wss for connections), an optional `*.` subdomain wildcard, a port. */
const HOST =
  '(?:\\*\\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*';
const HTTPS_ORIGIN = new RegExp(`^https://${HOST}(?::[0-9]{1,5})?$`);
const CONNECT_ORIGIN = new RegExp(`^(?:https|wss)://${HOST}(?::[0-9]{1,5})?$`);
const DOMAIN = new RegExp(`^(?:https://)?${HOST}(?::[0-9]{1,5})?$`);
const VISIBILITIES = ['model', 'app'];

/** A tool as the app discovery sees it. */
export interface AppTool {
  name: string;
  /** The script's absolute path, and its path inside the tools folder (`/`-separated). */
  file: string;
  relativePath: string;
  /** `_meta.ui` from the tool's metadata (sidecar, --help or register.json), unchecked. */
  uiMeta?: unknown;
}

export interface AppProblem {
  /** Relative to the project root. */
  path: string;
  message: string;
}

export interface AppDiscovery {
  /** The UIs as resources, sorted by URI. */
  resources: ProjectResource[];
  /** Per tool with a UI: its `_meta.ui`. */
  toolUi: Map<string, JsonObject>;
  /** Tools whose UI or `_meta.ui` is wrong: reported in `problems`, not built. */
  refusedTools: Set<string>;
  problems: AppProblem[];
}

export interface AppContext {
  projectRoot: string;
  toolsRoot: string;
  /** A script path inside the tools folder as shown in problems (relative to the project). */
  displayPath: (relativePath: string) => string;
  /** Where a page that builds but will not work as an app is reported (the App class missing). */
  warnings?: AppProblem[];
}

/** What is wrong with ui.meta.json's `meta` beyond its shape: each domain must be an origin a CSP can name. */
function domainProblems(meta: JsonObject): string[] {
  const problems: string[] = [];
  const csp = isObject(meta.csp) ? meta.csp : {};
  for (const key of CSP_KEYS) {
    const list = csp[key];
    if (!Array.isArray(list)) continue;
    const pattern = key === 'connectDomains' ? CONNECT_ORIGIN : HTTPS_ORIGIN;
    for (const entry of list as string[]) {
      if (!pattern.test(entry))
        problems.push(
          `meta.csp.${key} holds ${JSON.stringify(entry.slice(0, 80))}, which is not an ${key === 'connectDomains' ? 'https:// or wss://' : 'https://'} origin (scheme and host only, e.g. "https://api.example.com" or "https://*.example.com"; no path, no javascript:, data: or http:)`,
        );
    }
  }
  for (const key of ['domain', 'sandboxDomain']) {
    const value = meta[key];
    if (typeof value === 'string' && !DOMAIN.test(value))
      problems.push(
        `meta.${key} ${JSON.stringify(value.slice(0, 80))} is not a host name (e.g. "a904794854a047f6.claudemcpcontent.com"; the format is the host's, see its documentation)`,
      );
  }
  return problems;
}

/** The resource's `_meta.ui` from ui.meta.json's `meta`, in the spec's names. */
function resourceUiMeta(meta: JsonObject | undefined): JsonObject {
  if (!meta) return {};
  const ui: JsonObject = {};
  if (isObject(meta.csp)) {
    const csp: JsonObject = {};
    for (const key of CSP_KEYS) if (Array.isArray(meta.csp[key])) csp[key] = meta.csp[key];
    ui.csp = csp;
  }
  if (isObject(meta.permissions)) ui.permissions = meta.permissions;
  const domain = typeof meta.domain === 'string' ? meta.domain : meta.sandboxDomain;
  if (typeof domain === 'string') ui.domain = domain;
  if (typeof meta.prefersBorder === 'boolean') ui.prefersBorder = meta.prefersBorder;
  return ui;
}

async function isFolder(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** Shows a path relative to the project, `/`-separated, in problems. */
function shownIn(context: AppContext, file: string): string {
  return path.relative(context.projectRoot, file).split(path.sep).join('/');
}

/**
 * One UI as a resource: its page (`entrypoint` of its ui.meta.json, else `htmlFile`) and the
 * metadata in `metaFile`, or what is wrong with them (the place to fix, relative to the project).
 */
async function loadUi(
  uri: string,
  name: string,
  htmlFile: string,
  metaFile: string,
  fallbackDescription: string,
  context: AppContext,
): Promise<ProjectResource | { path: string; problem: string }> {
  const show = (file: string) => shownIn(context, file);
  const sidecar = await readJsonSidecar(
    metaFile,
    show(metaFile),
    () => sidecarValidator('uiMeta', UI_META_FILE),
    context.projectRoot,
  );
  let uiMeta: JsonObject | undefined;
  if (sidecar.found) {
    if ('problem' in sidecar) return { path: show(metaFile), problem: sidecar.problem };
    uiMeta = sidecar.meta;
    if (uiMeta.template !== undefined)
      return {
        path: show(metaFile),
        problem: `"template" (mcp-bash's generated UIs) is not supported: write the page as ${show(htmlFile)} and remove "template" and "config"`,
      };
    const problems = isObject(uiMeta.meta) ? domainProblems(uiMeta.meta) : [];
    if (problems.length > 0) return { path: show(metaFile), problem: problems.join('; ') };
  }
  const entry =
    typeof uiMeta?.entrypoint === 'string' ? path.join(path.dirname(htmlFile), uiMeta.entrypoint) : htmlFile;
  let size: number;
  try {
    size = (await fs.stat(entry)).size;
  } catch (error) {
    return {
      path: show(entry),
      problem:
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `is missing: a UI is one HTML page (index.html, or the "entrypoint" its ${UI_META_FILE} names)`
          : `cannot be read (${readFailureReason(error)})`,
    };
  }
  if (size > MAX_APP_HTML_BYTES)
    return {
      path: show(entry),
      problem: `is ${size} bytes, over the ${MAX_APP_HTML_BYTES}-byte limit of an app's page (a host loads it whole with every view); move big data out of the page (the tool's result carries data) or minify it`,
    };
  let bytes: Buffer;
  try {
    bytes = await readProjectFile(entry, context.projectRoot);
  } catch (error) {
    return { path: show(entry), problem: `cannot be read (${readFailureReason(error)})` };
  }
  // Checked again on what was read: the file may have grown since its stat.
  if (bytes.length > MAX_APP_HTML_BYTES)
    return { path: show(entry), problem: `is over the ${MAX_APP_HTML_BYTES}-byte limit of an app's page` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { path: show(entry), problem: 'is not UTF-8 text; save the page as UTF-8' };
  }
  const provided = provideAppClass(text);
  if (provided.warning !== null) context.warnings?.push({ path: show(entry), message: provided.warning });
  text = provided.text;
  if (Buffer.byteLength(text) > MAX_APP_HTML_BYTES)
    return {
      path: show(entry),
      problem: `is over the ${MAX_APP_HTML_BYTES}-byte limit of an app's page with the App class inlined; move big data out of the page`,
    };
  const ui = resourceUiMeta(isObject(uiMeta?.meta) ? uiMeta.meta : undefined);
  return {
    uri,
    name: typeof uiMeta?.name === 'string' ? uiMeta.name : name,
    ...(typeof uiMeta?.title === 'string' ? { title: uiMeta.title } : {}),
    description: typeof uiMeta?.description === 'string' ? uiMeta.description : fallbackDescription,
    mimeType: APP_MIME_TYPE,
    relativePath: show(entry),
    shownPath: show(entry),
    content: { text },
    size,
    ...(Object.keys(ui).length > 0 ? { meta: { ui } } : {}),
  };
}

/** The UI a tool's own files give it: `<script>.ui.html`, else `ui/` in its folder when it is that folder's one script. */
async function ownUiOf(tool: AppTool, scriptsPerFolder: Map<string, AppTool[]>, context: AppContext) {
  const single = `${tool.file}${SCRIPT_UI_SUFFIX}`;
  if (await exists(single)) return { html: single, meta: `${tool.file}.ui.meta.json` };
  const folder = path.dirname(tool.file);
  if (path.resolve(folder) === path.resolve(context.toolsRoot)) return undefined;
  const uiFolder = path.join(folder, UI_FOLDER);
  const html = path.join(uiFolder, 'index.html');
  const meta = path.join(uiFolder, UI_META_FILE);
  if (!(await exists(html)) && !(await exists(meta))) return undefined;
  const sharing = scriptsPerFolder.get(folder) ?? [];
  if (sharing.length > 1)
    return {
      problem: `${shownIn(context, uiFolder)}/ is the UI of the one tool in its folder, but ${sharing.map((other) => context.displayPath(other.relativePath)).join(' and ')} are all there; put each script in its own folder, or name a script's UI ${path.basename(tool.file)}${SCRIPT_UI_SUFFIX}`,
    };
  return { html, meta };
}

/** What is wrong with a tool's `_meta.ui` (from its metadata), or its checked fields. */
function checkToolUiMeta(value: unknown): { problem: string } | { resourceUri?: string; visibility?: string[] } {
  if (!isObject(value)) return { problem: '_meta.ui must be an object ({"resourceUri": "ui://…", "visibility": […]})' };
  const { resourceUri, visibility, ...others } = value;
  const unknown = Object.keys(others);
  if (unknown.length > 0)
    return {
      problem: `_meta.ui has ${unknown.map((key) => `"${key}"`).join(', ')}, which a tool cannot have (csp, permissions, domain and prefersBorder belong in the UI's ${UI_META_FILE})`,
    };
  if (resourceUri !== undefined && (typeof resourceUri !== 'string' || !resourceUri.startsWith(APP_URI_SCHEME)))
    return { problem: `_meta.ui.resourceUri must be a ${APP_URI_SCHEME} URI of a UI in this project` };
  if (
    visibility !== undefined &&
    (!Array.isArray(visibility) ||
      visibility.length === 0 ||
      !visibility.every((entry) => VISIBILITIES.includes(entry as string)) ||
      new Set(visibility).size !== visibility.length)
  )
    return { problem: '_meta.ui.visibility must be a non-empty list of "model" and/or "app"' };
  return {
    ...(resourceUri !== undefined ? { resourceUri: resourceUri as string } : {}),
    ...(visibility !== undefined ? { visibility: visibility as string[] } : {}),
  };
}

/** Every UI of the project, and each tool's `_meta.ui`. */
export async function discoverApps(tools: readonly AppTool[], context: AppContext): Promise<AppDiscovery> {
  const problems: AppProblem[] = [];
  const refusedTools = new Set<string>();
  const byUri = new Map<string, { resource: ProjectResource; owner: string }>();
  const add = (resource: ProjectResource, owner: string): boolean => {
    const other = byUri.get(resource.uri);
    if (other) {
      problems.push({
        path: owner,
        message: `its UI would be ${resource.uri}, which ${other.owner} already is; rename one of them`,
      });
      return false;
    }
    byUri.set(resource.uri, { resource, owner });
    return true;
  };

  // Standalone UIs first: ui/<name>/index.html.
  const standaloneRoot = path.join(context.projectRoot, UI_FOLDER);
  const names: string[] = [];
  try {
    for (const entry of (await fs.readdir(standaloneRoot, { withFileTypes: true })).sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    )) {
      if (entry.name.startsWith('.')) continue;
      // A symlinked folder counts too; its files are still read only when they are inside the project.
      const folder =
        entry.isDirectory() || (entry.isSymbolicLink() && (await isFolder(path.join(standaloneRoot, entry.name))));
      if (folder) names.push(entry.name);
    }
  } catch {
    // No ui/ folder: no standalone UIs.
  }
  for (const name of names) {
    const shown = `${UI_FOLDER}/${name}`;
    if (!UI_NAME.test(name)) {
      problems.push({
        path: shown,
        message: 'a UI folder name is its URI (ui://<name>/index.html): use letters, digits, _ and - only (at most 64)',
      });
      continue;
    }
    const folder = path.join(standaloneRoot, name);
    const loaded = await loadUi(
      `${APP_URI_SCHEME}${name}/index.html`,
      name,
      path.join(folder, 'index.html'),
      path.join(folder, UI_META_FILE),
      `UI ${name}`,
      context,
    );
    if ('problem' in loaded) problems.push({ path: loaded.path, message: `${loaded.problem}; the UI was skipped` });
    else add(loaded, shown);
  }

  const scriptsPerFolder = new Map<string, AppTool[]>();
  for (const tool of tools) {
    const folder = path.dirname(tool.file);
    scriptsPerFolder.set(folder, [...(scriptsPerFolder.get(folder) ?? []), tool]);
  }
  const ownUri = new Map<string, string>();
  for (const tool of tools) {
    const own = await ownUiOf(tool, scriptsPerFolder, context);
    if (!own) continue;
    if ('problem' in own) {
      problems.push({ path: context.displayPath(tool.relativePath), message: `${own.problem}; the tool was skipped` });
      refusedTools.add(tool.name);
      continue;
    }
    const loaded = await loadUi(
      `${APP_URI_SCHEME}${tool.name}/index.html`,
      tool.name,
      own.html,
      own.meta,
      `The UI of tool ${tool.name}`,
      context,
    );
    if ('problem' in loaded) {
      problems.push({ path: loaded.path, message: `${loaded.problem}; tool ${tool.name} was skipped` });
      refusedTools.add(tool.name);
    } else if (add(loaded, context.displayPath(tool.relativePath))) ownUri.set(tool.name, loaded.uri);
    else refusedTools.add(tool.name);
  }

  const toolUi = new Map<string, JsonObject>();
  for (const tool of tools) {
    if (refusedTools.has(tool.name)) continue;
    const declared = tool.uiMeta === undefined ? {} : checkToolUiMeta(tool.uiMeta);
    if ('problem' in declared) {
      problems.push({
        path: context.displayPath(tool.relativePath),
        message: `${declared.problem}; the tool was skipped`,
      });
      refusedTools.add(tool.name);
      continue;
    }
    const resourceUri = declared.resourceUri ?? ownUri.get(tool.name);
    if (resourceUri !== undefined && !byUri.has(resourceUri)) {
      const known = [...byUri.keys()].sort();
      problems.push({
        path: context.displayPath(tool.relativePath),
        message: `_meta.ui.resourceUri ${JSON.stringify(resourceUri.slice(0, 200))} is not a UI of this project (${known.length > 0 ? `its UIs: ${known.join(', ')}` : `it has none; add ${UI_FOLDER}/<name>/index.html`}); the tool was skipped`,
      });
      refusedTools.add(tool.name);
      continue;
    }
    if (resourceUri === undefined && declared.visibility === undefined) continue;
    toolUi.set(tool.name, {
      ...(resourceUri !== undefined ? { resourceUri } : {}),
      ...(declared.visibility !== undefined ? { visibility: declared.visibility } : {}),
    });
  }
  const resources = [...byUri.values()]
    .map((entry) => entry.resource)
    .sort((left, right) => (left.uri < right.uri ? -1 : left.uri > right.uri ? 1 : 0));
  return { resources, toolUi, refusedTools, problems };
}
