// The build's last stage: `mcp.json`, once the content hash, the search index and the packs are
// known (assemble-tree.ts made the rest of it), then the edge runtime, which is added after hashing
// because the worker is the generator's code, not the tree's content.
import { treeJsonFile } from '../core/tree/canonical-json.js';
import type { CompletionProviders } from '../core/tree/completion-provider.js';
import {
  DEFAULT_TOOLS_FOLDER,
  EXTENSION_KEY,
  MANIFEST_FILE,
  PROFILE_VERSION,
  WORKER_FILE,
  type Manifest,
} from '../core/tree/manifest.js';
import type { PackTableRow } from '../core/packs/pack-table.js';
import type { ProjectConfig } from '../project/config.js';
import type { ProjectResourceTemplate } from '../project/discover-resource-templates.js';
import { runtimeFiles } from '../tree-writer/deploy-files.js';
import type { AssembledTree } from './assemble-tree.js';
import type { BuildProblem } from './build-report.js';
import { COMPLETIONS_FILE } from './collect-completions.js';
import { SKILLS_LIST_FILE } from '../core/tree/skills.js';
import type { SearchIndexOutcome } from './search-index-reuse.js';
import { type SearchSettings, searchToIndex, type writeSearchIndexStep } from './search-index-step.js';
import type { TreeOutput } from './tree-output.js';

/** Above this many items of one kind, clients page slowly and people lose track (000_* guardrail). */
export const MANY_ITEMS_WARNING = 500;

export interface ManifestInput {
  config: ProjectConfig;
  generator: string;
  /** The tools folder relative to the project root, `/`-separated, for live runs. */
  toolsFolder: string;
  templates: ProjectResourceTemplate[];
  /** Script-backed completion providers, recorded for bridges to run live. */
  completionProviders?: CompletionProviders;
  /** The hash over the tree's logical files (TreeWriter.hashWritten), taken before search and packs. */
  contentHash: string;
  /** What the search stage wrote (search-index-step.ts writeSearchIndexStep). */
  search: Awaited<ReturnType<typeof writeSearchIndexStep>>;
  /** The pack stage's table (pack-call-files.ts writePacks); undefined when nothing was packed. */
  packs?: Record<string, PackTableRow[]>;
}

export interface WrittenManifest {
  manifest: Manifest;
  /** The manifest as written. */
  manifestText: string;
  contentHash: string;
  /** Every resource entry, inline and in list parts. */
  resourceCount: number;
  failures: BuildProblem[];
  warnings: BuildProblem[];
  /**
   * What the search index holds (search-index-step.ts searchToIndex), undefined when the tree has
   * none; a shard part records it, and the merge indexes the merged tree with it.
   */
  search?: SearchSettings;
  /** The index the search stage wrote or reused, for the build's record (search-index-reuse.ts). */
  searchIndex?: SearchIndexOutcome;
}

export async function writeManifest(
  assembled: AssembledTree,
  input: ManifestInput,
  output: TreeOutput,
): Promise<WrittenManifest> {
  const { config, contentHash, packs, search } = input;
  const { manifestWithoutHash, tools, stateResources } = assembled;
  const cacheTtl = config.cache?.ttlSeconds;
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
      ...(assembled.hasCompletions ? { completions: COMPLETIONS_FILE } : {}),
      ...(assembled.skillCount > 0 ? { skills: { count: assembled.skillCount, list: SKILLS_LIST_FILE } } : {}),
      ...(Object.keys(input.completionProviders ?? {}).length > 0
        ? { completionProviders: input.completionProviders }
        : {}),
      ...(input.toolsFolder !== DEFAULT_TOOLS_FOLDER ? { toolsFolder: input.toolsFolder } : {}),
      ...(generatedAt ? { generatedAt } : {}),
      ...(assembled.publicUrl !== undefined ? { publicUrl: assembled.publicUrl } : {}),
      ...(allowedOrigins !== undefined ? { http: { allowedOrigins } } : {}),
      // The address only: the secret that signs forwarded requests is the host's (a Workers secret).
      ...(liveOrigin !== undefined
        ? { liveOrigin: { url: liveOrigin, timeoutMs: config.limits.originTimeoutMs } }
        : {}),
      // Only when set, so trees of projects that do not set it stay byte-identical to before.
      ...(cacheTtl !== undefined ? { cache: { ttlSeconds: cacheTtl } } : {}),
      // Only past the inline entries: a smaller list's manifest stays byte-identical to before.
      ...(assembled.resourceList !== undefined ? { resourceList: assembled.resourceList } : {}),
      // Only in packed trees: an unpacked tree's manifest stays byte-identical to before.
      ...(packs !== undefined ? { packs } : {}),
      // Only when the tree has an index (search-index-step.ts: text resources by default, "search": false none).
      ...(search.extension !== undefined ? { search: search.extension } : {}),
    },
  };
  const manifestText = treeJsonFile(manifest);
  await output.write(MANIFEST_FILE, manifestText);
  const warnings: BuildProblem[] = [...assembled.warnings, ...search.warnings];
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
    resources: manifest.capabilities.resources,
    'resource templates': input.templates,
    prompts: manifest.capabilities.prompts ?? [],
  };
  for (const [kind, items] of Object.entries(kinds)) {
    if (items.length > MANY_ITEMS_WARNING) {
      warnings.push({
        path: MANIFEST_FILE,
        message: `${items.length} ${kind} (over ${MANY_ITEMS_WARNING}): clients page through them slowly; consider registering fewer in server.d/register.json`,
      });
    }
  }
  const searchSettings = searchToIndex(config, assembled.toolNames, assembled.hasTextResources);
  return {
    manifest,
    manifestText,
    contentHash,
    resourceCount: assembled.resourceCount,
    failures: assembled.failures,
    warnings,
    ...(searchSettings ? { search: searchSettings } : {}),
    ...(search.outcome ? { searchIndex: search.outcome } : {}),
  };
}
