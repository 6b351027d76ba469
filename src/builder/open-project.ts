// The Project stage of the build: resolves the project's folders and configuration, refuses an
// output folder that would overwrite or publish the project, fingerprints the inputs, and lists
// the scripts (discovered, or registered in server.d/register.json).
import { accessSync, constants as fsConstants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ProjectConfig, readConfig, resolveOutputFolder } from '../project/config.js';
import { discoverScripts, type DiscoveredScript, type Discovery } from '../project/discover-scripts.js';
import { readRegistration, REGISTER_FILE, type RegisterEntry, type Registration } from '../project/register-json.js';
import { checkOutputFolder } from '../tree-writer/check-output-folder.js';
import { type ContentHashStateOptions, contentHashStateFile } from '../tree-writer/content-hash-state.js';
import { recoverInterruptedWrite } from '../tree-writer/interrupted-write.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { generatorName } from '../shared/version.js';
import { BuildCache, CACHE_FOLDER } from './build-cache.js';
import type { BuildOptions } from './build-options.js';
import { type FingerprintScope, fingerprintInputs } from './up-to-date.js';
import type { WalkedIdentities } from '../project/walked-identities.js';

export type OpenProjectOptions = Pick<
  BuildOptions,
  'projectRoot' | 'toolsDir' | 'outDir' | 'concurrency' | 'force' | 'shard' | 'siteDir' | 'onEvent'
>;

export interface OpenedProject {
  projectRoot: string;
  toolsRoot: string;
  resourcesRoot: string;
  outDir: string;
  config: ProjectConfig;
  cache: BuildCache;
  concurrency: number;
  registration: Registration;
  discovery: Discovery;
  /** The tools folder relative to the project root, `/`-separated. */
  toolsFolder: string;
  /** How a script path (relative to the tools folder) is shown in failures: relative to the project. */
  displayPath: (relativePath: string) => string;
  fingerprintScope: FingerprintScope;
  inputsFingerprint: string;
  /**
   * The fingerprint walk's identity of each project file, for discovery to take instead of a stat
   * of its own; discovery lets go of it (undefined after).
   */
  walkedIdentities?: WalkedIdentities;
  /** Where the tree writer keeps the content hash's input for the next build; none for a shard part. */
  hashState?: ContentHashStateOptions;
}

async function isFolder(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(folder)).isDirectory();
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

/**
 * The config with `--site`'s folder in place of staticmcp.json's (a selector it gives is kept). The
 * folder must lie inside the project: nothing outside it is read or published.
 */
function withSiteFolder(config: ProjectConfig, projectRoot: string, siteDir: string | undefined): ProjectConfig {
  if (siteDir === undefined) return config;
  const folder = path.relative(projectRoot, path.resolve(siteDir)).split(path.sep).join('/');
  if (folder === '' || folder.startsWith('..') || path.isAbsolute(folder))
    throw new StaticMcpError(
      'CONFIG_INVALID',
      `--site ${siteDir} is not a folder inside the project (${projectRoot})`,
      'Run the build from the folder that holds the site, naming it: cd my-site && staticmcp build --site public --out mcp-tree',
    );
  const { site } = config;
  return { ...config, site: typeof site === 'object' ? { ...site, folder } : folder };
}

export async function openProject(options: OpenProjectOptions): Promise<OpenedProject> {
  const projectRoot = path.resolve(options.projectRoot);
  if (!(await isFolder(projectRoot))) {
    throw new StaticMcpError(
      'PROJECT_NOT_FOUND',
      `project folder ${options.projectRoot} does not exist`,
      'Pass the folder that holds tools/ (or use --tools DIR for a bare folder of scripts).',
    );
  }
  const cache = await BuildCache.open(projectRoot, options.force === true);
  const config = withSiteFolder(await readConfig(projectRoot, cache), projectRoot, options.siteDir);
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
  for (const note of await recoverInterruptedWrite(outDir)) options.onEvent?.({ type: 'recovered', note });
  await checkOutputFolder(
    outDir,
    [
      { folder: projectRoot, what: 'project folder' },
      { folder: toolsRoot, what: 'tools folder', input: true },
      { folder: resourcesRoot, what: 'resources folder', input: true },
      { folder: path.join(projectRoot, 'prompts'), what: 'prompts folder', input: true },
      { folder: path.join(projectRoot, 'ui'), what: 'UI folder (MCP Apps pages)', input: true },
      ...(config.site !== undefined
        ? [
            {
              folder: path.resolve(projectRoot, typeof config.site === 'string' ? config.site : config.site.folder),
              what: 'site folder',
              input: true,
            },
          ]
        : []),
      {
        folder: path.join(projectRoot, CACHE_FOLDER),
        what: `build cache (${CACHE_FOLDER})`,
        privateReason: 'a deployed tree would publish the cached results and fingerprints of the project',
      },
    ],
    { shardPart: options.shard !== undefined },
  );

  const fingerprintScope = { projectRoot, toolsRoot, outDir, generator: generatorName() };
  const { digest: inputsFingerprint, identities: walkedIdentities } = await fingerprintInputs(fingerprintScope);
  const registration = (await readRegistration(projectRoot)) ?? {};
  const discovered = registration.tools
    ? registeredScripts(registration.tools, toolsRoot)
    : (await isFolder(toolsRoot))
      ? await discoverScripts(toolsRoot)
      : { scripts: [], skipped: [] };
  const discovery = {
    ...discovered,
    scripts: discovered.scripts.filter((script) => !path.resolve(script.file).startsWith(`${outDir}${path.sep}`)),
  };
  const toolsFolder = path.relative(projectRoot, toolsRoot).split(path.sep).join('/');
  return {
    projectRoot,
    toolsRoot,
    resourcesRoot,
    outDir,
    config,
    cache,
    concurrency: options.concurrency ?? os.availableParallelism(),
    registration,
    discovery,
    toolsFolder,
    displayPath: (relativePath) => `${toolsFolder ? `${toolsFolder}/` : ''}${relativePath}`,
    fingerprintScope,
    inputsFingerprint,
    walkedIdentities,
    // --force reads none (a content-keyed record, but --force trusts no saved state).
    ...(options.shard ? {} : { hashState: { file: contentHashStateFile(projectRoot), readPrevious: !options.force } }),
  };
}
