// What the origin may run: only what its own built tree of the project declares (the mcp.json the
// worker was built from, in the project's output folder), in the phase it declares: a tool's live
// run by its name, `--state` only for a state resource's script, a template's or a completion's
// provider only as such. A run request is checked against it, and its timeout clamped to what is
// configured for that script, before anything runs. The tree is read again when it changes (a
// rebuild while the origin runs).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { OriginRunRequest } from '../../../core/origin/origin-wire.js';
import { readTreeExtension, type TreeExtension } from '../../../core/tree-reading/tree-extension.js';
import { isObject } from '../../../core/tree/json-object.js';
import { DEFAULT_TOOLS_FOLDER, EXTENSION_KEY, MANIFEST_FILE } from '../../../core/tree/manifest.js';

/** Node's timers hold at most this many milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Declared {
  extension: TreeExtension;
  /** Each tool's inputSchema property names. */
  parametersOf: Map<string, string[]>;
  stateScripts: Set<string>;
  templateProviders: Set<string>;
  /** Completion provider script → its timeout (undefined: the project's timeout). */
  completionProviders: Map<string, number | undefined>;
}

/**
 * The project-relative script of a state resource, as every host resolves it (resource-reads.ts):
 * the tree records it relative to the tools folder.
 */
function stateScriptOf(extension: TreeExtension, scriptInToolsFolder: string): string {
  for (const tool of Object.values(extension.tools))
    if (tool.script === scriptInToolsFolder || tool.script.endsWith(`/${scriptInToolsFolder}`)) return tool.script;
  const toolsFolder = extension.toolsFolder ?? DEFAULT_TOOLS_FOLDER;
  return toolsFolder ? `${toolsFolder}/${scriptInToolsFolder}` : scriptInToolsFolder;
}

function declaredOf(manifest: unknown): Declared | undefined {
  if (!isObject(manifest) || !isObject(manifest[EXTENSION_KEY])) return undefined;
  const capabilities = isObject(manifest.capabilities) ? manifest.capabilities : {};
  const list = Array.isArray(capabilities.tools) ? capabilities.tools : manifest.tools;
  const parametersOf = new Map<string, string[]>();
  for (const raw of Array.isArray(list) ? list : []) {
    if (!isObject(raw) || typeof raw.name !== 'string') continue;
    const schema = isObject(raw.inputSchema) ? raw.inputSchema : {};
    parametersOf.set(raw.name, Object.keys(isObject(schema.properties) ? schema.properties : {}));
  }
  const extension = readTreeExtension(manifest[EXTENSION_KEY], (name) => parametersOf.get(name) ?? []);
  if (!extension) return undefined;
  const completionProviders = new Map<string, number | undefined>();
  for (const byName of Object.values(extension.completionProviders ?? {}))
    for (const provider of Object.values(byName ?? {})) {
      const known = completionProviders.get(provider.script);
      completionProviders.set(
        provider.script,
        known === undefined || provider.timeoutMs === undefined
          ? provider.timeoutMs
          : Math.max(known, provider.timeoutMs),
      );
    }
  return {
    extension,
    parametersOf,
    stateScripts: new Set(
      Object.values(extension.stateResources ?? {}).map((script) => stateScriptOf(extension, script)),
    ),
    templateProviders: new Set(Object.values(extension.templateProviders ?? {})),
    completionProviders,
  };
}

export type DeclaredVerdict = { run: OriginRunRequest } | { problem: string };

export class DeclaredRuns {
  private loaded: { stamp: string; declared: Declared | undefined; problem?: string } | undefined;

  constructor(readonly treeRoot: string) {}

  private get manifestPath(): string {
    return path.join(this.treeRoot, MANIFEST_FILE);
  }

  /** The declared set, read again only when mcp.json changed. */
  private async load(): Promise<{ declared: Declared | undefined; problem?: string }> {
    let stamp: string;
    try {
      const stats = await fs.stat(this.manifestPath);
      stamp = `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
    } catch {
      this.loaded = undefined;
      return {
        declared: undefined,
        problem: `the origin has no built tree of its project (${this.manifestPath} is missing), so it runs nothing; run staticmcp build in the project (the Dockerfile init writes does)`,
      };
    }
    if (this.loaded?.stamp === stamp) return this.loaded;
    let declared: Declared | undefined;
    try {
      declared = declaredOf(JSON.parse(await fs.readFile(this.manifestPath, 'utf8')));
    } catch {
      declared = undefined;
    }
    this.loaded = {
      stamp,
      declared,
      ...(declared
        ? {}
        : {
            problem: `${this.manifestPath} is not a staticmcp tree's manifest, so the origin runs nothing; build the project again`,
          }),
    };
    return this.loaded;
  }

  /** A startup note when there is no usable tree yet (undefined when there is one). */
  async describeProblem(): Promise<string | undefined> {
    return (await this.load()).problem;
  }

  /**
   * The request as it will run (its tools folder the tree's own, its timeout clamped to the one
   * configured for the script, `defaultTimeoutMs` when none is), or what of it the tree does not declare.
   */
  async check(request: OriginRunRequest, defaultTimeoutMs: number): Promise<DeclaredVerdict> {
    const { declared, problem } = await this.load();
    if (!declared) return { problem: problem ?? 'the origin has no usable tree' };
    const what = `${request.phase} run of ${request.scriptPath}${request.toolName !== undefined ? ` as tool ${request.toolName}` : ''}`;
    const refuse = (why: string): DeclaredVerdict => ({
      problem: `refused a ${what}: ${why}; the origin runs only what its built tree declares (rebuild and redeploy both if the project changed)`,
    });
    let limitMs: number | undefined;
    let declaredOptions = request.declaredOptions;
    if (request.phase === 'state') {
      if (request.toolName !== undefined || request.environment !== undefined)
        return refuse('a state read names no tool and sets no variables');
      if (!declared.stateScripts.has(request.scriptPath))
        return refuse('the tree declares no state resource read by it');
    } else if (request.toolName !== undefined) {
      const tool = declared.extension.tools[request.toolName];
      if (!tool) return refuse('the tree declares no such tool');
      if (tool.script !== request.scriptPath) return refuse(`the tree runs that tool with ${tool.script}`);
      if (!tool.live) return refuse('the tree does not let that tool run live');
      if (request.environment !== undefined) return refuse('a tool call sets no variables');
      if (tool.timeoutMs > 0) limitMs = tool.timeoutMs;
      // Only the tool's own parameters become environment variables.
      const parameters = declared.parametersOf.get(request.toolName) ?? [];
      declaredOptions = (request.declaredOptions ?? []).filter((name) => parameters.includes(name));
    } else if (declared.completionProviders.has(request.scriptPath) && request.environment !== undefined) {
      limitMs = declared.completionProviders.get(request.scriptPath);
    } else if (declared.templateProviders.has(request.scriptPath) && request.environment === undefined) {
      // A template's variables are its own: nothing more is declared to check them against here.
    } else {
      return refuse('the tree declares it as no tool, template provider or completion provider');
    }
    const maxMs = Math.min(limitMs ?? defaultTimeoutMs, MAX_TIMER_MS);
    const timeoutMs = Math.min(request.timeoutMs ?? maxMs, maxMs);
    const { toolsFolder: _edgeToolsFolder, ...rest } = request;
    return {
      run: {
        ...rest,
        ...(declared.extension.toolsFolder !== undefined ? { toolsFolder: declared.extension.toolsFolder } : {}),
        ...(declaredOptions !== undefined ? { declaredOptions } : {}),
        timeoutMs,
      },
    };
  }
}
