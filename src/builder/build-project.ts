// `staticmcp build`: project → tree. Orchestrates discovery, planning, runs, assembly and the
// atomic write; returns a report (a failing script is a value in it, never an exception).
import { accessSync, constants as fsConstants, promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_FILE, findUnknownToolKeys, readConfig, resolveOutputFolder } from '../project/config.js';
import { deriveToolName } from '../project/tool-names.js';
import { discoverScripts, type DiscoveredScript, type Discovery } from '../project/discover-scripts.js';
import { readRegistration, REGISTER_FILE, type RegisterEntry } from '../project/register-json.js';
import { discoverPrompts } from '../project/discover-prompts.js';
import { discoverResourceTemplates } from '../project/discover-resource-templates.js';
import { collectCompletions } from './collect-completions.js';
import { isProviderEntry, runCompletionProviders } from './run-completion-providers.js';
import { discoverResources } from '../project/discover-resources.js';
import { checkOutputFolder } from '../tree/check-output-folder.js';
import { recoverInterruptedWrite, writeTreeAtomically } from '../tree/write-tree.js';
import { MANIFEST_FILE } from '../tree/manifest.js';
import { StaticMcpError } from '../staticmcp-error.js';
import { generatorName } from '../version.js';
import { readRegularFile } from '../read-regular-file.js';
import { BuildCache, CACHE_FOLDER } from './build-cache.js';
import { planTools, type ToolPlan } from './plan-tools.js';
import { runCalls } from './run-calls.js';
import { assembleTree } from './assemble-tree.js';
import { fingerprintInputs, forgetUpToDate, recordUpToDate } from './up-to-date.js';
import type { BuildEvent, BuildReport } from './build-report.js';
import { discoverPublicFiles, PUBLIC_FOLDER } from '../project/discover-public.js';
import { BUILD_OWNED_TOP_LEVEL } from '../tree/tree-ownership.js';

export interface BuildOptions {
  projectRoot: string;
  /** A tools folder other than `<project>/tools` (a bare folder of scripts). */
  toolsDir?: string;
  outDir?: string;
  concurrency?: number;
  /** Ignore the cache: run every script again. */
  force?: boolean;
  onEvent?: (event: BuildEvent) => void;
  /** Aborting ends the running scripts and stops the build before it writes anything. */
  signal?: AbortSignal;
}

function stopIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new StaticMcpError(
      'INTERRUPTED',
      'the build was interrupted; its running scripts were ended and the previous tree was left as it was',
      'Run the build again when you are ready.',
    );
  }
}

async function isFolder(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(folder)).isDirectory();
  } catch {
    return false;
  }
}

/** True when `outDir` already holds exactly these files (so nothing needs writing). */
async function treeIsCurrent(outDir: string, files: ReadonlyMap<string, string | Buffer>): Promise<boolean> {
  try {
    if ((await readRegularFile(path.join(outDir, MANIFEST_FILE), 'utf8')) !== files.get(MANIFEST_FILE)) return false;
    // Synchronous on purpose: thousands of stats of cached metadata take microseconds each, while
    // their promises and thread-pool round trips made up a sixth of a no-op rebuild.
    for (const [filePath, content] of files) {
      if (statSync(path.join(outDir, filePath)).size !== Buffer.byteLength(content)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** register.json's tool entries as scripts; an entry whose file is not an executable is reported. */
function registeredScripts(entries: RegisterEntry[], toolsRoot: string): Discovery {
  const scripts: DiscoveredScript[] = [];
  const skipped: Discovery['skipped'] = [];
  for (const entry of entries) {
    const file = path.join(toolsRoot, entry.path!);
    try {
      accessSync(file, fsConstants.X_OK);
      scripts.push({ file, relativePath: entry.path!.split(path.sep).join('/'), registeredMeta: entry });
    } catch {
      skipped.push({
        relativePath: entry.path!,
        message: `is registered in ${REGISTER_FILE} as tool "${entry.name}" but is not an executable file`,
      });
    }
  }
  return { scripts, skipped };
}

/** Every tool name a staticmcp.json key may mean: the planned tools, and the path names of scripts that failed before a plan. */
function toolNamesOf(plans: readonly ToolPlan[], scripts: readonly DiscoveredScript[]): string[] {
  const planned = new Set(plans.map((plan) => plan.script.relativePath));
  return [
    ...plans.map((plan) => plan.name),
    ...scripts
      .filter((script) => !planned.has(script.relativePath))
      .map((script) => deriveToolName(script.relativePath)),
  ];
}

export async function buildProject(options: BuildOptions): Promise<BuildReport> {
  const startedAt = performance.now();
  const projectRoot = path.resolve(options.projectRoot);
  if (!(await isFolder(projectRoot))) {
    throw new StaticMcpError(
      'PROJECT_NOT_FOUND',
      `project folder ${options.projectRoot} does not exist`,
      'Pass the folder that holds tools/ (or use --tools DIR for a bare folder of scripts).',
    );
  }
  const cache = await BuildCache.open(projectRoot, options.force === true);
  const config = await readConfig(projectRoot, cache);
  const toolsRoot = path.resolve(options.toolsDir ?? path.join(projectRoot, 'tools'));
  if (options.toolsDir !== undefined && !(await isFolder(toolsRoot))) {
    throw new StaticMcpError(
      'TOOLS_NOT_FOUND',
      `--tools ${options.toolsDir} is not a folder`,
      'Pass the folder that holds your scripts.',
    );
  }
  const outDir = options.outDir !== undefined ? path.resolve(options.outDir) : resolveOutputFolder(projectRoot, config);
  const resourcesRoot = path.join(projectRoot, 'resources');
  await recoverInterruptedWrite(outDir);
  await checkOutputFolder(outDir, [
    { folder: projectRoot, what: 'project folder' },
    { folder: toolsRoot, what: 'tools folder', input: true },
    { folder: resourcesRoot, what: 'resources folder', input: true },
    { folder: path.join(projectRoot, 'prompts'), what: 'prompts folder', input: true },
    {
      folder: path.join(projectRoot, CACHE_FOLDER),
      what: `build cache (${CACHE_FOLDER})`,
      privateReason: 'a deployed tree would publish the cached results and fingerprints of the project',
    },
  ]);

  const fingerprintScope = { projectRoot, toolsRoot, outDir, generator: generatorName() };
  const inputsFingerprint = await fingerprintInputs(fingerprintScope);

  const concurrency = options.concurrency ?? os.availableParallelism();
  const registration = (await readRegistration(projectRoot)) ?? {};
  const discovery = registration.tools
    ? registeredScripts(registration.tools, toolsRoot)
    : (await isFolder(toolsRoot))
      ? await discoverScripts(toolsRoot)
      : { scripts: [], skipped: [] };
  const scripts = discovery.scripts.filter((script) => !path.resolve(script.file).startsWith(`${outDir}${path.sep}`));
  const toolsFolder = path.relative(projectRoot, toolsRoot).split(path.sep).join('/');
  const displayPath = (relativePath: string): string => `${toolsFolder ? `${toolsFolder}/` : ''}${relativePath}`;
  const { signal } = options;
  const volatileInputs: string[] = [];
  const planned = await planTools(scripts, {
    projectRoot,
    toolsRoot,
    config,
    cache,
    concurrency,
    displayPath,
    signal,
    volatileInputs,
  });
  stopIfInterrupted(signal);
  const outcomes = await runCalls(planned.plans, {
    projectRoot,
    toolsRoot,
    maxOutputBytes: config.limits.maxOutputBytes,
    concurrency,
    cache,
    onEvent: options.onEvent,
    signal,
  });
  // Nothing is written after an interruption: not the tree, not the cache (it would forget every
  // result this build did not reach).
  stopIfInterrupted(signal);
  const resources = await discoverResources(resourcesRoot, registration.resources);
  const prompts = await discoverPrompts(path.join(projectRoot, 'prompts'), registration.prompts, projectRoot);
  const templates =
    registration.resourceTemplates?.length === 0
      ? { templates: [], problems: [] }
      : await discoverResourceTemplates(
          resourcesRoot,
          new Set(resources.resources.map((resource) => resource.name)),
          registration.resourceTemplates,
        );
  const expansion =
    templates.templates.length === 0
      ? { instances: [], valuesByTemplate: {}, failures: [], warnings: [] }
      : await (await import('./expand-resource-templates.js')).expandResourceTemplates(templates.templates, {
          projectRoot,
          toolsRoot,
          config,
          cache,
          concurrency,
          displayPath,
          signal,
          volatileInputs,
          maxOutputBytes: config.limits.maxOutputBytes,
        });
  const providers = registration.completions?.some(isProviderEntry)
    ? await runCompletionProviders(
        registration.completions,
        { plans: planned.plans, prompts: prompts.prompts, templates: templates.templates },
        { projectRoot, toolsRoot, maxOutputBytes: config.limits.maxOutputBytes, concurrency, signal },
      )
    : { providers: {}, lists: [], failures: [], warnings: [] };
  stopIfInterrupted(signal);
  const completions = collectCompletions(
    planned.plans,
    prompts.prompts,
    templates.templates,
    expansion.valuesByTemplate,
    registration.completions && [...registration.completions, ...providers.lists],
  );
  const tree = assembleTree({
    serverName: path.basename(projectRoot),
    generator: generatorName(),
    config,
    toolsFolder,
    plans: planned.plans,
    outcomes,
    resources: resources.resources,
    prompts: prompts.prompts,
    templates: templates.templates,
    templateInstances: expansion.instances,
    completions,
    completionProviders: providers.providers,
  });

  const manifestBytes = Buffer.byteLength(tree.files.get(MANIFEST_FILE)!);
  if (manifestBytes > config.limits.maxManifestBytes) {
    await cache.save();
    throw new StaticMcpError(
      'MANIFEST_TOO_LARGE',
      `${MANIFEST_FILE} would be ${manifestBytes} bytes, over limits.maxManifestBytes (${config.limits.maxManifestBytes}); clients load it whole at start`,
      'Register fewer tools, resources or prompts (server.d/register.json), shorten descriptions and icons, or raise limits.maxManifestBytes in staticmcp.json.',
    );
  }
  stopIfInterrupted(signal);
  // public/ is copied as it is, beside the tree's content (and outside its content hash).
  const publicFiles = await discoverPublicFiles(projectRoot);
  const treeFiles = new Map<string, string | Buffer>([...tree.files, ...publicFiles.files]);
  const unchanged = await treeIsCurrent(outDir, treeFiles);
  // What the user added to the output folder (.git, CNAME …) is carried into the new tree.
  if (!unchanged) await writeTreeAtomically(outDir, treeFiles, { keep: (name) => !BUILD_OWNED_TOP_LEVEL.has(name) });
  await cache.save();

  const failures = [
    ...planned.failures,
    ...resources.problems.map((problem) => ({ path: `resources/${problem.relativePath}`, message: problem.message })),
    ...prompts.problems.map((problem) => ({ path: `prompts/${problem.relativePath}`, message: problem.message })),
    ...templates.problems.map((problem) => ({ path: problem.relativePath, message: problem.message })),
    ...publicFiles.problems.map((problem) => ({
      path: `${PUBLIC_FOLDER}/${problem.relativePath}`,
      message: problem.message,
    })),
    ...expansion.failures,
    ...providers.failures,
    ...tree.failures,
  ];
  const warnings = [
    ...(toolsFolder.startsWith('..')
      ? [
          {
            path: toolsFolder,
            message:
              'the tools folder is outside the project, so live calls cannot find its scripts; move it into the project, or build from its parent folder',
          },
        ]
      : []),
    ...discovery.skipped.map((notice) => ({ path: displayPath(notice.relativePath), message: notice.message })),
    ...resources.warnings.map((warning) => ({ path: `resources/${warning.relativePath}`, message: warning.message })),
    ...prompts.warnings.map((warning) => ({ path: `prompts/${warning.relativePath}`, message: warning.message })),
    ...findUnknownToolKeys(config, toolNamesOf(planned.plans, scripts)).map((unknown) => ({
      path: CONFIG_FILE,
      message: unknown.message,
    })),
    ...expansion.warnings,
    ...providers.warnings,
    ...tree.warnings,
  ];
  const report: BuildReport = {
    ok: failures.length === 0 && tree.toolReports.every((report) => report.failures.length === 0),
    outDir,
    unchanged,
    tools: tree.toolReports,
    failures,
    warnings,
    resources: tree.manifest.capabilities.resources.length,
    files: tree.files.size,
    contentHash: tree.contentHash,
    durationMs: performance.now() - startedAt,
  };
  // Only a clean build whose every input is a file may be replayed by the next identical run.
  if (report.ok && volatileInputs.length === 0) await recordUpToDate(fingerprintScope, inputsFingerprint, report);
  else await forgetUpToDate(projectRoot);
  return report;
}
