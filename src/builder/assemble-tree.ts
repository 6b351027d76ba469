// The rest of the tree once the call files are in (tree-output.ts streams those): resources,
// template instances, prompts, completions and deploy files, then the content hash over everything
// written (read back in path order), the manifest with the tools' counters, and the edge runtime.
import { treeJsonFile } from '../core/tree/canonical-json.js';
import type { JsonObject } from '../core/tree/json-object.js';
import { rawResourceFilePath, resourceFilePath } from '../core/tree/resource-key.js';
import { ExtraCopies } from './extra-copies.js';
import { deployFiles, runtimeFiles } from '../tree-writer/deploy-files.js';
import { discoveryFiles } from '../tree-writer/discovery-files.js';
import {
  DEFAULT_TOOLS_FOLDER,
  EXTENSION_KEY,
  LATEST_PROTOCOL_VERSION,
  MANIFEST_FILE,
  PROFILE_VERSION,
  WORKER_FILE,
  type CompletionTable,
  type Manifest,
  type ResourceDefinition,
  type ToolExtension,
} from '../core/tree/manifest.js';
import type { ProjectConfig } from '../project/config.js';
import { packageInfo } from '../shared/version.js';
import type { ProjectResource } from '../project/discover-resources.js';
import { appPagesOf } from '../tree-writer/app-pages.js';
import type { ProjectPrompt } from '../project/discover-prompts.js';
import type { ProjectResourceTemplate } from '../project/discover-resource-templates.js';
import { COMPLETIONS_FILE } from './collect-completions.js';
import type { ReusableSearchIndex, SearchIndexOutcome } from './search-index-reuse.js';
import {
  hasTextResources as someTextResource,
  type SearchSettings,
  searchToIndex,
  writeSearchIndexStep,
} from './search-index-step.js';
import type { CompletionProviders } from '../core/tree/completion-provider.js';
import type { TemplateInstance } from './expand-resource-templates.js';
import type { BuildProblem, ToolReport } from './build-report.js';
import type { ToolPlan } from './plan-tools.js';
import type { TreeOutput } from './tree-output.js';
import { SKILLS_LIST_FILE, type SkillEntry } from '../core/tree/skills.js';

export interface AssembleInput {
  serverName: string;
  generator: string;
  config: ProjectConfig;
  /** The tools folder relative to the project root, `/`-separated, for live runs. */
  toolsFolder: string;
  plans: ToolPlan[];
  /** Where the call files already are; the rest goes there too. */
  output: TreeOutput;
  /** Per tool, in plan order (CallFileSink.toolReports). */
  toolReports: ToolReport[];
  resources: ProjectResource[];
  /** The skills' entries (discover-skills.ts); their files are among `resources`. */
  skills?: SkillEntry[];
  prompts: ProjectPrompt[];
  templates: ProjectResourceTemplate[];
  templateInstances: TemplateInstance[];
  completions: CompletionTable;
  /** Script-backed completion providers, recorded for bridges to run live. */
  completionProviders?: CompletionProviders;
  /**
   * Run once the content hash is taken (over the logical files) and before the manifest is
   * written: the pack step (pack-call-files.ts writePacks), returning the manifest's pack table.
   * Given only when the tree is packed (its `_headers` then has the packs/ rule).
   */
  packCalls?: () => Promise<Record<string, { first: string; index: string }[]>>;
  /** A `build --shard` part: no search index (the merge indexes the merged tree). */
  shardPart?: boolean;
  /** The previous build's search index, reused when made from the same documents (search-index-reuse.ts). */
  previousSearchIndex?: ReusableSearchIndex;
}

/** Above this many items of one kind, clients page slowly and people lose track (000_* guardrail). */
export const MANY_ITEMS_WARNING = 500;

export interface AssembledTree {
  manifest: Manifest;
  /** The manifest as written. */
  manifestText: string;
  contentHash: string;
  failures: BuildProblem[];
  warnings: BuildProblem[];
  /**
   * What the search index holds (search-index-step.ts searchToIndex), undefined when the tree has
   * none; a shard part records it, and the merge indexes the merged tree with it.
   */
  search?: SearchSettings;
  /** The index the search step wrote or reused, for the build's record (search-index-reuse.ts). */
  searchIndex?: SearchIndexOutcome;
}

export function stateResourceUri(scriptPath: string): string {
  return `mcpd://${scriptPath}/state`;
}

/**
 * A resource's file: `{uri, mimeType, text}`, or for binary content `{uri, mimeType, blob}` plus
 * the same item under `contents`, the shape bridges that only know `text` pass on as it is (the
 * reference sse_bridge would otherwise wrap the whole file as text).
 */
function resourceFileContent(resource: ProjectResource): Record<string, unknown> {
  const item = {
    uri: resource.uri,
    mimeType: resource.mimeType,
    ...resource.content,
    ...(resource.meta ? { _meta: resource.meta } : {}),
  };
  return 'blob' in resource.content ? { ...item, contents: [item] } : item;
}

export async function assembleTree(input: AssembleInput): Promise<AssembledTree> {
  const { output } = input;
  const failures: BuildProblem[] = [];
  const reports = new Map(input.toolReports.map((report) => [report.name, report]));

  const resourceDefinitions: ResourceDefinition[] = [];
  const resourceOwners = new Map<string, string>();
  // Also at the standard's raw name (`resources/changelog.md.json`), where other bridges look.
  const rawResourceCopies = new ExtraCopies();
  for (const resource of input.resources) {
    const filePath = resourceFilePath(resource.uri);
    const owner = resourceOwners.get(filePath);
    if (owner !== undefined) {
      failures.push({
        path: resource.shownPath ?? `resources/${resource.relativePath}`,
        message: `its URI ${resource.uri} and ${owner} both map to ${filePath}; give one of them another "uri" in its .meta.json`,
      });
      continue;
    }
    resourceOwners.set(filePath, resource.uri);
    resourceDefinitions.push({
      uri: resource.uri,
      name: resource.name,
      ...(resource.title !== undefined ? { title: resource.title } : {}),
      description: resource.description ?? '',
      mimeType: resource.mimeType,
      size: resource.size,
      ...(resource.meta ? { _meta: resource.meta } : {}),
    });
    const content = treeJsonFile(resourceFileContent(resource));
    await output.write(filePath, content);
    const raw = rawResourceFilePath(resource.uri);
    if (raw) rawResourceCopies.claim(raw, filePath);
  }

  for (const instance of input.templateInstances) {
    const filePath = resourceFilePath(instance.uri);
    const owner = resourceOwners.get(filePath);
    if (owner !== undefined) {
      failures.push({
        path: instance.uri,
        message: `this template instance and ${owner} both map to ${filePath}; change the template or the value list`,
      });
      continue;
    }
    resourceOwners.set(filePath, instance.uri);
    // A blob instance also under `contents`, as resource files have it (resourceFileContent).
    await output.write(filePath, treeJsonFile('blob' in instance ? { ...instance, contents: [instance] } : instance));
    const raw = rawResourceFilePath(instance.uri);
    if (raw) rawResourceCopies.claim(raw, filePath);
  }
  await rawResourceCopies.writeInto(output);
  for (const prompt of input.prompts)
    await output.write(`prompts/${prompt.definition.name}.json`, treeJsonFile(prompt.file));
  const skillCount = input.skills?.length ?? 0;
  if (skillCount > 0) await output.write(SKILLS_LIST_FILE, treeJsonFile({ skills: input.skills }));
  const hasCompletions = Object.values(input.completions).some((references) => Object.keys(references).length > 0);
  if (hasCompletions) await output.write(COMPLETIONS_FILE, treeJsonFile(input.completions));

  const stateResources: Record<string, string> = {};
  for (const plan of input.plans.filter((candidate) => candidate.state)) {
    const uri = stateResourceUri(plan.script.relativePath);
    stateResources[uri] = plan.script.relativePath;
    resourceDefinitions.push({
      uri,
      name: `${plan.name}-state`,
      description: `Current state of the ${plan.name} tool (read live)`,
      mimeType: 'application/json',
    });
  }

  const tools: Record<string, ToolExtension> = {};
  for (const plan of input.plans) {
    const report = reports.get(plan.name)!;
    tools[plan.name] = {
      parameterOrder: Object.keys(plan.definition.inputSchema.properties ?? {}),
      enumerated: plan.enumeration.enumerated,
      live: plan.live,
      ...(report.liveReason ? { liveReason: report.liveReason } : {}),
      timeoutMs: plan.timeoutMs,
      script: `${input.toolsFolder ? `${input.toolsFolder}/` : ''}${plan.script.relativePath}`,
      precomputed: report.precomputed,
      ...(plan.outputFormat === 'mcp' ? { outputFormat: 'mcp' } : {}),
      ...(plan.requiredClientCapabilities ? { requiredClientCapabilities: plan.requiredClientCapabilities } : {}),
    };
  }

  const { config } = input;
  const manifestWithoutHash: Manifest = {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    serverInfo: {
      name: config.name ?? input.serverName,
      version: config.version ?? '0.0.0',
      ...(config.title !== undefined ? { title: config.title } : {}),
      ...(config.description !== undefined ? { description: config.description } : {}),
    },
    ...(config.instructions !== undefined ? { instructions: config.instructions } : {}),
    capabilities: {
      tools: input.plans.map((plan) => plan.definition),
      resources: resourceDefinitions,
      resourceTemplates: input.templates.map((template) => template.definition),
      prompts: input.prompts.map((prompt) => prompt.definition),
    },
  };
  const publicUrl = config.publicUrl?.replace(/\/+$/, '');
  const cacheTtl = config.cache?.ttlSeconds;
  const discovery = discoveryFiles(manifestWithoutHash, {
    publicUrl,
    registryName: config.registryName,
    githubOwner: config.githubOwner,
    registryAuth: config.registryAuth,
    packageName: packageInfo().name,
    packageVersion: packageInfo().version,
  });
  const toolNames = input.plans.map((plan) => plan.name);
  const indexedResources = input.resources.filter(
    (resource) => resourceOwners.get(resourceFilePath(resource.uri)) === resource.uri,
  );
  const hasTextResources = someTextResource(indexedResources);
  const deployOptions = {
    publicUrl,
    discovery: { card: discovery.card, registryAuth: config.registryAuth !== undefined },
    ...(cacheTtl !== undefined ? { cacheTtlSeconds: cacheTtl } : {}),
    liveOnlyTools: Object.keys(tools).filter((name) => tools[name]?.precomputed === 0),
    // The packs/ rule (immutable caching) for call packs and the search index alike: both are
    // named by their content.
    packs:
      input.packCalls !== undefined ||
      (input.shardPart !== true && searchToIndex(input.config, toolNames, hasTextResources) !== undefined),
    appPages: appPagesOf(input.resources),
  };
  for (const [filePath, content] of deployFiles(manifestWithoutHash, deployOptions))
    await output.write(filePath, content);
  for (const [filePath, content] of discovery.files) await output.write(filePath, content);
  const contentHash = await output.writer.hashWritten();
  // Before the pack step, which takes the call files out of the tree.
  const search = await writeSearchIndexStep(
    {
      config: input.config,
      // What the documents are made from, as merge and index read it from mcp.json.
      manifest: {
        ...manifestWithoutHash,
        [EXTENSION_KEY]: { profileVersion: PROFILE_VERSION, tools, stateResources },
      } as unknown as JsonObject,
      toolNames,
      publicUrl,
      output,
      shardPart: input.shardPart === true,
      generator: input.generator,
      ...(input.previousSearchIndex ? { previous: input.previousSearchIndex } : {}),
    },
    hasTextResources,
  );
  const packs = await input.packCalls?.();
  const allowedOrigins = config.http?.allowedOrigins;
  const liveOrigin = config.liveOrigin?.replace(/\/+$/, '');
  const sourceDateEpoch = process.env.SOURCE_DATE_EPOCH;
  const generatedAt =
    sourceDateEpoch && /^\d+$/.test(sourceDateEpoch)
      ? new Date(Number(sourceDateEpoch) * 1000).toISOString()
      : undefined;
  const manifest: Manifest = {
    ...manifestWithoutHash,
    [EXTENSION_KEY]: {
      profileVersion: PROFILE_VERSION,
      generator: input.generator,
      contentHash,
      tools,
      ...(Object.keys(stateResources).length > 0 ? { stateResources } : {}),
      ...(input.templates.some((template) => template.provider)
        ? {
            templateProviders: Object.fromEntries(
              input.templates
                .filter((template) => template.provider)
                .map((template) => [template.definition.uriTemplate, template.provider!]),
            ),
          }
        : {}),
      ...(hasCompletions ? { completions: COMPLETIONS_FILE } : {}),
      ...(skillCount > 0 ? { skills: { count: skillCount, list: SKILLS_LIST_FILE } } : {}),
      ...(Object.keys(input.completionProviders ?? {}).length > 0
        ? { completionProviders: input.completionProviders }
        : {}),
      ...(input.toolsFolder !== DEFAULT_TOOLS_FOLDER ? { toolsFolder: input.toolsFolder } : {}),
      ...(generatedAt ? { generatedAt } : {}),
      ...(allowedOrigins !== undefined ? { http: { allowedOrigins } } : {}),
      // The address only: the secret that signs forwarded requests is the host's (a Workers secret).
      ...(liveOrigin !== undefined
        ? { liveOrigin: { url: liveOrigin, timeoutMs: config.limits.originTimeoutMs } }
        : {}),
      // Only when set, so trees of projects that do not set it stay byte-identical to before.
      ...(cacheTtl !== undefined ? { cache: { ttlSeconds: cacheTtl } } : {}),
      // Only in packed trees: an unpacked tree's manifest stays byte-identical to before.
      ...(packs !== undefined ? { packs } : {}),
      // Only when the tree has an index (search-index-step.ts: text resources by default, "search": false none).
      ...(search.extension !== undefined ? { search: search.extension } : {}),
    },
  };
  const manifestText = treeJsonFile(manifest);
  await output.write(MANIFEST_FILE, manifestText);
  const warnings: BuildProblem[] = [...discovery.warnings, ...search.warnings];
  failures.push(...discovery.failures);
  // Added after hashing: the worker is the generator's code, not the tree's content.
  const runtime = runtimeFiles();
  if (runtime) {
    for (const [filePath, content] of runtime) await output.write(filePath, content);
  } else {
    warnings.push({
      path: WORKER_FILE,
      message:
        'not written: this staticmcp was compiled without its edge worker bundle, so the tree has no /mcp endpoint on edge hosts; run npm run build in the staticmcp package',
    });
  }
  const kinds = {
    tools: manifest.capabilities.tools,
    resources: resourceDefinitions,
    'resource templates': input.templates,
    prompts: input.prompts,
  };
  for (const [kind, items] of Object.entries(kinds)) {
    if (items.length > MANY_ITEMS_WARNING) {
      warnings.push({
        path: MANIFEST_FILE,
        message: `${items.length} ${kind} (over ${MANY_ITEMS_WARNING}): clients page through them slowly; consider registering fewer in server.d/register.json`,
      });
    }
  }
  const searchSettings = searchToIndex(input.config, toolNames, hasTextResources);
  return {
    manifest,
    manifestText,
    contentHash,
    failures,
    warnings,
    ...(searchSettings ? { search: searchSettings } : {}),
    ...(search.outcome ? { searchIndex: search.outcome } : {}),
  };
}
