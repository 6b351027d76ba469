// The core's ports as Node fills them: the tree from a folder or URL source, schemas checked
// without ajv where they are flat and with ajv (loaded on the first such check) otherwise, and the
// project's scripts for live runs (the spawning module and node:child_process load on the first
// live run, not at start-up). Shared by stdio and HTTP.
import { CachedTreeReader } from '../../core/tree-reading/cached-tree-reader.js';
import type { LiveRunner } from '../../core/mcp/live-port.js';
import { loadTree } from '../../core/tree-reading/loaded-tree.js';
import { DEFAULT_LIVE_HINT, type ServerContext } from '../../core/mcp/server-context.js';
import type { TreeSource } from '../../core/tree/tree-source.js';
import type { PackFileSource } from '../../core/packs/pack-reader.js';
import type { CompileValidator } from '../../validators/validator.js';
import { START_TICK_MS, START_TICK_VARIABLE } from '../../core/mcp/progress-reporter.js';
import { readTestHook } from '../../shared/test-hook.js';

export interface NodeServerOptions {
  source: TreeSource;
  /** Binary reads of the same tree (packs, the search index); without them no search tools. */
  packFiles?: PackFileSource;
  /** Absolute path of the project whose scripts answer misses; none = precomputed answers only. */
  projectRoot?: string;
  /** Live runs at once (--live-concurrency); undefined = the project's limits.liveConcurrency or the default. */
  liveConcurrency?: number;
  /** `staticmcp dev`: the tree is reloaded on change (list changes and subscriptions are offered). */
  dev?: boolean;
  logProblem(text: string): void;
}

function lazyLiveProject(
  root: string,
  concurrency: number | undefined,
  logProblem: (text: string) => void,
): LiveRunner {
  let loaded: Promise<LiveRunner> | undefined;
  return {
    run: async (request) => {
      loaded ??= import('./live/live-project.js').then(
        (module) => new module.LiveProject(root, concurrency, logProblem),
      );
      return (await loaded).run(request);
    },
  };
}

/**
 * The flat input schemas most tools declare are checked without ajv (simple-schema-validator.ts),
 * so a new server's first call does not wait for ajv to load and compile; ajv, required on its
 * first compile, takes every other schema.
 */
async function loadNodeCompiler(): Promise<CompileValidator> {
  const [{ compileValidator }, { compileSimpleValidator }] = await Promise.all([
    import('../../shared/ajv-validator.js'),
    import('../../validators/simple-schema-validator.js'),
  ]);
  return (schema, rootName) => compileSimpleValidator(schema, rootName) ?? compileValidator(schema, rootName);
}

/**
 * Without a project, the lists leave out what only a live run answers
 * (core/mcp/answerable-lists.ts): one stderr line says what, and how to get it back, so a missing
 * tool is never a mystery.
 */
async function reportLiveOnly(server: ServerContext): Promise<void> {
  const { answerableLists } = await import('../../core/mcp/answerable-lists.js');
  const { hiddenTools, resources } = await answerableLists(server);
  const hiddenResources = server.tree.resources.length - resources.length;
  if (hiddenTools.length === 0 && hiddenResources === 0) return;
  const what = [
    ...(hiddenTools.length > 0
      ? [
          `${hiddenTools.length} tool${hiddenTools.length === 1 ? '' : 's'} with no precomputed call (${hiddenTools.join(', ')})`,
        ]
      : []),
    ...(hiddenResources > 0 ? [`${hiddenResources} state resource${hiddenResources === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  server.logProblem(
    `not listing ${what}: they are answered only by running the project's scripts; add --live <project folder> to list and run them`,
  );
}

export async function createNodeServerContext(options: NodeServerOptions): Promise<ServerContext> {
  const tree = await loadTree(options.source, { packFiles: options.packFiles, onProblem: options.logProblem });
  const server: ServerContext = {
    tree,
    reader: new CachedTreeReader(options.source),
    live: options.projectRoot
      ? lazyLiveProject(options.projectRoot, options.liveConcurrency, options.logProblem)
      : undefined,
    liveHint: DEFAULT_LIVE_HINT,
    dev: options.dev === true,
    loadValidatorCompiler: loadNodeCompiler,
    logProblem: options.logProblem,
    startTickMs: readTestHook(START_TICK_VARIABLE, START_TICK_MS),
  };
  // Worked out just after start-up, not before it: the client's first answer never waits for the
  // narrowing (nor for loading its modules), and tools/list finds it done. Two turns of the event
  // loop's check phase, not a timer: the host starts reading (stdin) after this returns, and the
  // poll between the two turns delivers a request already waiting (a client writes initialize as
  // soon as it has spawned us), which is answered first; a timer would run before that poll.
  if (!server.live)
    setImmediate(() =>
      setImmediate(() => {
        reportLiveOnly(server).catch((error: Error) =>
          server.logProblem(`could not work out the lists: ${error.message}`),
        );
      }),
    );
  return server;
}
