// The build's assembly stage, once the call files are in (tree-output.ts streams those):
// resources, template instances, prompts, completions, the deploy and discovery files, and the
// manifest as far as it is known before the content hash, the search index and the packs
// (write-manifest.ts writes it whole once build-project.ts has run those stages).
import { DOCUMENT_URL_META_KEY } from '../core/search/document-url.js';
import { treeJsonFile } from '../core/tree/canonical-json.js';
import type { JsonObject } from '../core/tree/json-object.js';
import { resourceFilePath } from '../core/tree/resource-key.js';
import { RawResourceCopies } from './raw-resource-copies.js';
import { SlotOwners } from './slot-owners.js';
import { deployFiles } from '../tree-writer/deploy-files.js';
import { discoveryFiles } from '../tree-writer/discovery-files.js';
import {
  EXTENSION_KEY,
  LATEST_PROTOCOL_VERSION,
  PROFILE_VERSION,
  type CompletionTable,
  type Manifest,
  type ResourceDefinition,
  type ToolExtension,
} from '../core/tree/manifest.js';
import type { ProjectConfig } from '../project/config.js';
import { packageInfo } from '../shared/version.js';
import type { ProjectResource } from '../project/project-resource.js';
import { type ResourceContent, readResourceContent } from '../project/resource-file-content.js';
import type { KeptResourceFiles } from './kept-resource-files.js';
import { appPagesOf } from '../tree-writer/app-pages.js';
import type { ProjectPrompt } from '../project/discover-prompts.js';
import type { ProjectResourceTemplate } from '../project/discover-resource-templates.js';
import { COMPLETIONS_FILE } from './collect-completions.js';
import { hasTextResources as someTextResource, searchToIndex } from './search-index-step.js';
import type { TemplateInstance } from './expand-resource-templates.js';
import type { BuildProblem, ToolReport } from './build-report.js';
import type { ToolPlan } from './plan-tools.js';
import type { TreeOutput } from './tree-output.js';
import { SKILLS_LIST_FILE, type SkillEntry } from '../core/tree/skills.js';
import { isAppResource, namesAppResource } from '../core/tree/mcp-apps.js';
import { declaredExtensions } from '../core/mcp/server-capabilities.js';
import { ResourceListWriter } from './resource-list-parts.js';
import { inlineResourceFiles, planResourcePacking, type ResourcePackingPlan } from './pack-resource-files.js';
import { FileResource, releaseAssembled } from '../project/file-resource-store.js';
import type { TreeState } from './tree-state.js';
import { deferredSourceOf, keptKeyOf, resourceFileContent, shownOf } from './resource-file-sources.js';

export interface AssembleInput {
  serverName: string;
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
  /** The pack stage will pack calls (pack-call-files.ts planPacking): `_headers` then has the packs/ rule. */
  packsCalls: boolean;
  /** A `build --shard` part: no search index (the merge indexes the merged tree). */
  shardPart?: boolean;
  /**
   * The file budget (`limits.maxCallFiles`) and the call files left plain after call packing, for
   * the resource packing decision (pack-resource-files.ts); absent: resources are not packed (a shard part).
   */
  resourceBudget?: { maxCallFiles: number; callFilesAfter: number } | undefined;
  /** The resource files of the previous builds (kept-resource-files.ts); absent: each is read and written. */
  keptFiles?: KeptResourceFiles | undefined;
  /** What the previous build made of each document (tree-state.ts); used only with `keptFiles`. */
  treeState?: TreeState | undefined;
}

export interface AssembledTree {
  /** The manifest without our extension, which write-manifest.ts adds once the later stages ran. */
  manifestWithoutHash: Manifest;
  /** Our extension's `resourceList`, when the list has more entries than mcp.json keeps inline. */
  resourceList?: { total: number; parts: { path: string; count: number }[] };
  /** Every resource entry, inline and in parts (the build's report counts them). */
  resourceCount: number;
  /** The resource files to pack (pack-resource-files.ts), when they pass what the budget leaves them. */
  resourcePacking?: ResourcePackingPlan;
  /** Our extension's tools: counters, parameter order, scripts. */
  tools: Record<string, ToolExtension>;
  /** A state resource's URI → its script. */
  stateResources: Record<string, string>;
  hasCompletions: boolean;
  /** How many skills the tree serves (skills/list.json written when any). */
  skillCount: number;
  /**
   * The manifest as the search stage makes documents from it (its lists, our extension's tools and
   * state resources), as merge and index read it from mcp.json.
   */
  documentsManifest: JsonObject;
  toolNames: string[];
  /** Whether the resources the tree holds include text (the search index's default documents). */
  hasTextResources: boolean;
  /** publicUrl without its trailing slashes. */
  publicUrl: string | undefined;
  failures: BuildProblem[];
  warnings: BuildProblem[];
}

export function stateResourceUri(scriptPath: string): string {
  return `mcpd://${scriptPath}/state`;
}

function hasInlineContent(resource: ProjectResource): resource is ProjectResource & { content: ResourceContent } {
  // `content` is made on each read for a file resource: each of thousands of documents would make one here.
  return resource.hasSourceFile !== true && !('source' in resource.content);
}

/**
 * A resource's page, unless another resource claimed it first (then the second one's search url
 * is the landing page's view of it, with a warning naming both).
 */
function claimPage(
  pageUrl: string,
  shown: string,
  owners: Map<string, string>,
  warnings: BuildProblem[],
): string | undefined {
  const owner = owners.get(pageUrl);
  if (owner === undefined) {
    owners.set(pageUrl, shown);
    return pageUrl;
  }
  warnings.push({
    path: shown,
    message: `claims the page ${pageUrl}, which ${owner} claimed first; its url is the landing page's view of it instead`,
  });
  return undefined;
}

export async function assembleTree(input: AssembleInput): Promise<AssembledTree> {
  const { output } = input;
  const failures: BuildProblem[] = [];
  const reports = new Map(input.toolReports.map((report) => [report.name, report]));

  const { config } = input;
  // mcp.json keeps the first entries; the rest go to part files our extension names, written as
  // they fill (resource-list-parts.ts): no list of every definition is held.
  const listParts = new ResourceListWriter<ResourceDefinition>(output, config.limits);
  let listsAppResource = false;
  const instanceOf = (owner: number) => input.templateInstances[owner - input.resources.length]!;
  const uriOf = (owner: number) =>
    owner < input.resources.length ? input.resources[owner]!.uri : instanceOf(owner).uri;
  // Which resource (or template instance, numbered after the resources) owns each tree path, by
  // the tree writer's slot of its file: the path is looked up once, by the writer, which the
  // write then finds again at no cost (file-digests.ts keeps the last path it missed or found).
  const resourceOwners = new SlotOwners(output.writer.written);
  // Also at the standard's raw name (`resources/changelog.md.json`), where other bridges look.
  const rawResourceCopies = new RawResourceCopies(uriOf);
  const writtenResources = new Uint8Array(input.resources.length);
  const pageOwners = new Map<string, string>();
  const pageWarnings: BuildProblem[] = [];
  const { keptFiles } = input;
  const treeState = keptFiles && input.treeState;
  // An unchanged document's tree file is recorded by its kept digest and size, and read from its
  // source only if something asks for its bytes (a pack re-encoded, a plain file at the swap). The
  // source is set at the first such file: it holds every resource for the rest of the build, which
  // a build that kept none (a first build, --force) need not.
  let deferring = false;
  // Each resource's file and its raw-name copy: the writer's table grows once, not at each doubling.
  output.writer.written.reserve(2 * (input.resources.length + input.templateInstances.length));
  for (let owner = 0; owner < input.resources.length; owner += 1) {
    const resource = input.resources[owner]!;
    // Each read once: a file resource makes them from its store on every read.
    const { uri, mimeType } = resource;
    const filePath = resourceFilePath(uri);
    const held = resourceOwners.get(filePath);
    if (held !== undefined) {
      failures.push({
        path: resource.shownPath ?? `resources/${resource.relativePath}`,
        message: `its URI ${uri} and ${uriOf(held)} both map to ${filePath}; give one of them another "uri" in its .meta.json`,
      });
      continue;
    }
    // A document file with no sidecar and no page claim: its key and listing entry from the
    // previous build's, when its inputs are the same (tree-state.ts).
    const source =
      treeState && resource instanceof FileResource && !resource.overridden ? resource.keyedSource : undefined;
    const found = source?.sha256 ? treeState!.find(filePath, mimeType, source.text, source.sha256) : -1;
    const keptKey =
      found >= 0 ? treeState!.keyAt(found) : keptFiles && keptKeyOf(keptFiles, resource, uri, mimeType, filePath);
    const kept = keptKey && keptFiles?.lookup(keptKey);
    // A file's text is read here, written, and let go (discovery holds none of it); a kept one's is not read.
    const read = kept ? undefined : await readResourceContent(resource);
    if (read && 'problem' in read) {
      failures.push({ path: shownOf(resource), message: read.problem });
      continue;
    }
    if (read?.warning !== undefined) pageWarnings.push({ path: shownOf(resource), message: read.warning });
    writtenResources[owner] = 1;
    listsAppResource ||= isAppResource({ uri, mimeType });
    // Recorded for the next build unless the file changed since discovery (its key is the old bytes').
    const recorded = keptKey !== undefined && read?.warning === undefined;
    if (found >= 0 && !listParts.nextIsInline) {
      await listParts.addEncoded(treeState!.entryAt(found));
      if (recorded) treeState!.keep(found);
    } else {
      const record =
        recorded && source?.sha256 ? { key: keptKey, text: source.text, sha256: source.sha256 } : undefined;
      await listDocument(resource, uri, mimeType, filePath, record);
    }
    let sizeBytes: number;
    if (kept) {
      if (!deferring) output.writer.setDeferredSource(deferredSourceOf(input.resources, keptFiles!, treeState, output));
      deferring = true;
      output.writeDeferred(filePath, kept.digest, kept.sizeBytes, owner);
      sizeBytes = kept.sizeBytes;
    } else {
      const fileText = treeJsonFile(resourceFileContent(resource, read!.content));
      await output.write(filePath, fileText);
      sizeBytes = Buffer.byteLength(fileText);
    }
    // A kept file's entry is the previous record's as it is (no copy of it made).
    if (recorded && kept) keptFiles!.keep(kept.position);
    else if (recorded) keptFiles!.add(keptKey, output.writer.digestOf(filePath)!, sizeBytes);
    const slot = output.writer.written.slotOf(filePath);
    resourceOwners.set(slot, owner);
    rawResourceCopies.claim(owner, slot);
  }
  /**
   * A document's listing entry made from its fields (a page claimed here); `record`: what the tree
   * state records it under (only a document file with no sidecar and no page claim, with its
   * source's sha256 known).
   */
  async function listDocument(
    resource: ProjectResource,
    uri: string,
    mimeType: string,
    filePath: string,
    record: { key: Buffer; text: boolean; sha256: Uint8Array } | undefined,
  ): Promise<void> {
    // The shown path is made only for a page claimed or a problem: most documents have neither.
    const { pageUrl } = resource;
    const page = pageUrl === undefined ? undefined : claimPage(pageUrl, shownOf(resource), pageOwners, pageWarnings);
    const meta = page !== undefined ? { ...resource.meta, [DOCUMENT_URL_META_KEY]: page } : resource.meta;
    const { title } = resource;
    const definition: ResourceDefinition = {
      uri,
      name: resource.name,
      ...(title !== undefined ? { title } : {}),
      description: resource.description ?? '',
      mimeType,
      size: resource.size,
      ...(meta ? { _meta: meta } : {}),
    };
    if (record === undefined || listParts.nextIsInline) return listParts.add(definition);
    const { key, text, sha256 } = record;
    await listParts.addEncoded(
      treeState!.record(filePath, mimeType, text, sha256, key, listParts.entryText(definition)),
    );
  }

  for (let index = 0; index < input.templateInstances.length; index += 1) {
    const instance = input.templateInstances[index]!;
    const owner = input.resources.length + index;
    const filePath = resourceFilePath(instance.uri);
    const held = resourceOwners.get(filePath);
    if (held !== undefined) {
      failures.push({
        path: instance.uri,
        message: `this template instance and ${uriOf(held)} both map to ${filePath}; change the template or the value list`,
      });
      continue;
    }
    // A blob instance also under `contents`, as resource files have it (resourceFileContent).
    await output.write(filePath, treeJsonFile('blob' in instance ? { ...instance, contents: [instance] } : instance));
    resourceOwners.set(output.writer.written.slotOf(filePath), owner);
    rawResourceCopies.claim(owner);
  }
  await rawResourceCopies.writeInto(output);
  keptFiles?.save();
  treeState?.save();
  releaseAssembled(input.resources);
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
    await listParts.add({
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

  const listed = await listParts.finish();
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
      resources: listed.inline,
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
    extensions: declaredExtensions({
      // As server-capabilities.ts tells them from the loaded tree.
      apps: listsAppResource || input.plans.some((plan) => namesAppResource({ _meta: plan.definition._meta })),
      skills: skillCount > 0,
    }),
  });
  const toolNames = input.plans.map((plan) => plan.name);
  const indexedResources = input.resources.filter((_, owner) => writtenResources[owner] === 1);
  const hasTextResources = someTextResource(indexedResources);
  const searchIndexed =
    input.shardPart !== true && searchToIndex(input.config, toolNames, hasTextResources) !== undefined;
  const resourcePacking =
    input.resourceBudget === undefined
      ? undefined
      : await planResourcePacking(
          output,
          inlineResourceFiles(listed.inline.map((definition) => definition.uri)),
          input.resourceBudget.maxCallFiles,
          input.resourceBudget.callFilesAfter,
        );
  const deployOptions = {
    publicUrl,
    discovery: { card: discovery.card, registryAuth: config.registryAuth !== undefined },
    ...(cacheTtl !== undefined ? { cacheTtlSeconds: cacheTtl } : {}),
    liveOnlyTools: Object.keys(tools).filter((name) => tools[name]?.precomputed === 0),
    // The packs/ rule (immutable caching) for call packs and the search index alike: both are
    // named by their content.
    packs: input.packsCalls || resourcePacking !== undefined || searchIndexed,
    // An MCP App's page is inline content (discover-apps.ts), never a file read at write time.
    appPages: appPagesOf(input.resources.filter(hasInlineContent)),
    skills: input.skills ?? [],
    page: { tools, hasSearch: searchIndexed, resourceCount: listed.resourceList?.total },
  };
  for (const [filePath, content] of deployFiles(manifestWithoutHash, deployOptions))
    await output.write(filePath, content);
  for (const [filePath, content] of discovery.files) await output.write(filePath, content);
  return {
    manifestWithoutHash,
    ...(listed.resourceList ? { resourceList: listed.resourceList } : {}),
    resourceCount: listParts.count,
    ...(resourcePacking ? { resourcePacking } : {}),
    tools,
    stateResources,
    hasCompletions,
    skillCount,
    // The search stage lists documents from the inline list and the parts, as merge and index read it.
    documentsManifest: {
      ...manifestWithoutHash,
      [EXTENSION_KEY]: {
        profileVersion: PROFILE_VERSION,
        tools,
        stateResources,
        ...(listed.resourceList ? { resourceList: listed.resourceList } : {}),
      },
    } as unknown as JsonObject,
    toolNames,
    hasTextResources,
    publicUrl,
    failures: [...failures, ...discovery.failures],
    warnings: [...pageWarnings, ...discovery.warnings],
  };
}
