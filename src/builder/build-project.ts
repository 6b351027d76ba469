// `staticmcp build`: project → tree, as a pipeline of named stages, each one call from
// buildProject, each handing on a type (none calls back up):
//   openProject → OpenedProject (open-project.ts: folders, config, cache, the discovered scripts)
//   → planTools → ToolPlan per tool (plan-tools.ts: its --help, definition and argument sets)
//   → attachApps → the tools' MCP Apps and their UI resources (project/discover-apps.ts)
//   → runCalls → CallOutcome per call (run-calls.ts, run-one-call.ts; call-stream.ts gives the
//     argument sets lazily), each written by CallFileSink as it arrives (call-file-sink.ts)
//   → discoverContent → resources, prompts, resource templates and their instances
//   → runCompletionProviders → provider value lists; collectCompletions → the completion table
//   → sink.writeCopies → the left-out-default copies of call files
//   → planPacking → PackingPlan (pack-call-files.ts: which tools' calls go into packs)
//   → assembleTree → AssembledTree (assemble-tree.ts: resource, prompt, deploy and discovery files)
//   → hashContentAndDocuments → the content hash over the logical files, from one walk that also
//     takes the packed tools' records digests (content-hash-step.ts, records-from-hash-walk.ts)
//   → writeSearchIndexStep → the search index, written or reused (search-index-step.ts)
//   → writePacks → PackingOutcome, the manifest's pack table (pack-call-files.ts)
//   → writeManifest → WrittenManifest (write-manifest.ts: mcp.json, the edge runtime)
//   → discoverPublicFiles → public/ copied as it is (project/discover-public.ts)
//   → BuildReport; the TreeWriter's new tree is swapped in atomically (or found unchanged), then
//     recordPacks, recordSearchIndex and recordUpToDate keep what the next build reuses.
// Returns a report (a failing script is a value in it, never an exception). Memory stays flat in
// the number of calls: argument sets are generated as runners free up, each result is written as
// it arrives, and the report keeps counters plus bounded lists.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, findUnknownToolKeys } from '../project/config.js';
import type { DiscoveredScript } from '../project/discover-scripts.js';
import { deriveToolName } from '../project/tool-names.js';
import { discoverPublicFiles, PUBLIC_FOLDER } from '../project/discover-public.js';
import { applySiteOverrides, writeSiteFiles } from './site-step.js';
import { discoverContent } from './discover-content.js';
import { StaticMcpError } from '../core/staticmcp-error.js';
import { MANIFEST_FILE } from '../core/tree/manifest.js';
import { FLAT_RESOURCE_URI_KEY } from '../core/tree/mcp-apps.js';
import {
  BUILD_OWNED_NESTED_PATHS,
  isKeptOnRebuild,
  isLocalSecretsFile,
  LOCAL_SECRETS_ADVICE,
} from '../tree-writer/tree-ownership.js';
import { TreeWriter } from '../tree-writer/tree-writer.js';
import { generatorName } from '../shared/version.js';
import { assembleTree } from './assemble-tree.js';
import type { BuildOptions } from './build-options.js';
import type { BuildProblem, BuildReport } from './build-report.js';
import type { CallFilter } from './call-stream.js';
import { collectCompletions } from './collect-completions.js';
import { callFileBudget, checkCallFileBudget, checkHostLimits, type PackingOutcome } from './host-limits.js';
import { hasTextResources, searchToIndex, writeSearchIndexStep } from './search-index-step.js';
import { hashContentAndDocuments } from './content-hash-step.js';
import { type OpenedProject, openProject } from './open-project.js';
import { planTools, type ToolPlan } from './plan-tools.js';
import { isProviderEntry, runCompletionProviders } from './run-completion-providers.js';
import { runCalls } from './run-calls.js';
import { shardCallFilter } from './shard-of-call.js';
import { ShardOutput } from './shard-part.js';
import { CallFileSink } from './call-file-sink.js';
import { resourcePackingWarning, withResourcePacking } from './pack-resource-files.js';
import { planPacking, writePacks } from './pack-call-files.js';
import { writeManifest } from './write-manifest.js';
import { noteStageMemory } from './stage-memory.js';
import { readPreviousPacks, recordPacks } from './pack-reuse.js';
import { keptSearchDocumentsFile, readReusableSearchIndex, recordSearchIndex } from './search-index-reuse.js';
import { TreeOutput } from './tree-output.js';
import { KeptResourceFiles } from './kept-resource-files.js';
import { TreeState } from './tree-state.js';
import { forgetUpToDate, recordUpToDate } from './up-to-date.js';
import type { VolatileInput } from './value-list-command.js';

/** The build's calls: the shard's, or all of them. */
function selectCalls(options: BuildOptions, plans: readonly ToolPlan[]): CallFilter | undefined {
  return options.shard ? shardCallFilter(plans, options.shard) : undefined;
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

/**
 * The project's MCP Apps (discover-apps.ts): each tool with a UI gets `_meta.ui` in its definition,
 * a tool whose UI is wrong leaves `planned.plans`, and the UIs are returned as resources.
 */
async function attachApps(planned: { plans: ToolPlan[] }, project: OpenedProject) {
  const { discoverApps } = await import('../project/discover-apps.js');
  const warnings: BuildProblem[] = [];
  const apps = await discoverApps(
    planned.plans.map((plan) => ({
      name: plan.name,
      file: plan.script.file,
      relativePath: plan.script.relativePath,
      ...(plan.uiMeta !== undefined ? { uiMeta: plan.uiMeta } : {}),
    })),
    { projectRoot: project.projectRoot, toolsRoot: project.toolsRoot, displayPath: project.displayPath, warnings },
  );
  planned.plans = planned.plans.filter((plan) => !apps.refusedTools.has(plan.name));
  for (const plan of planned.plans) {
    const ui = apps.toolUi.get(plan.name);
    if (!ui) continue;
    plan.definition._meta = {
      ...plan.definition._meta,
      ui,
      ...(typeof ui.resourceUri === 'string' ? { [FLAT_RESOURCE_URI_KEY]: ui.resourceUri } : {}),
    };
  }
  return { ...apps, warnings };
}

/**
 * Builds the project. A kept record found damaged only when its bytes were made (KEPT_STATE_DAMAGED)
 * has been removed by then and nothing was swapped in, so the build runs once more reading every
 * input, and says so among its warnings.
 */
export async function buildProject(options: BuildOptions): Promise<BuildReport> {
  try {
    return await buildProjectOnce(options);
  } catch (error) {
    if (!(error instanceof StaticMcpError) || error.code !== 'KEPT_STATE_DAMAGED') throw error;
    const report = await buildProjectOnce(options);
    report.warnings.push({ path: '.staticmcp', message: `${error.message}; this build read every document again` });
    return report;
  }
}

async function buildProjectOnce(options: BuildOptions): Promise<BuildReport> {
  const startedAt = performance.now();
  const { signal } = options;
  const project = await openProject(options);
  const { projectRoot, toolsRoot, outDir, config, cache, concurrency, displayPath, toolsFolder } = project;
  const volatileInputs: VolatileInput[] = [];
  const planned = await planTools(project.discovery.scripts, {
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
  // MCP Apps before any call runs: a tool whose UI is wrong is skipped, so none of its calls run.
  const apps = await attachApps(planned, project);
  const writer = await TreeWriter.open(outDir, { reuse: options.fileReuse, hashState: project.hashState });
  let unchanged = false;
  let swapped = false;
  try {
    const { shard } = options;
    const output = shard ? new ShardOutput(writer, shard) : new TreeOutput(writer);
    const maxCallFiles = options.maxCallFiles ?? config.limits.maxCallFiles;
    // Call files past the budget are held in a spool, not created: the pack step takes them from
    // there (a shard part is never packed, so its files are written as they come).
    if (!shard) output.spoolCallFilesPast(maxCallFiles, planned.plans);
    const sink = new CallFileSink(output, planned.plans);
    await runCalls(
      planned.plans,
      {
        projectRoot,
        toolsRoot,
        maxOutputBytes: config.limits.maxOutputBytes,
        concurrency,
        cache,
        onEvent: options.onEvent,
        signal,
        callFilter: selectCalls(options, planned.plans),
      },
      sink.add,
    );
    cache.releaseIndexes();
    noteStageMemory('calls');
    if (output instanceof ShardOutput) output.endCalls();
    // Nothing is swapped in after an interruption (the cache keeps the results that did arrive).
    stopIfInterrupted(signal);
    const content = await discoverContent(project, signal, volatileInputs, options.force === true);
    noteStageMemory('discovery');
    stopIfInterrupted(signal);
    const { resources, prompts, templates, expansion, skills, site } = content;
    if (resources.documents?.reused || resources.documents?.parsed)
      options.onEvent?.({ type: 'documents', ...resources.documents });
    const { completions: registeredCompletions } = project.registration;
    const providers = registeredCompletions?.some(isProviderEntry)
      ? await runCompletionProviders(
          registeredCompletions,
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
      registeredCompletions && [...registeredCompletions, ...providers.lists],
    );
    const copies = shard ? [] : await sink.writeCopies();
    const callFilesBeforePacking = output.tally.callFiles;
    // Decided now, from the files written, so the deploy files know the tree has packs. A shard
    // part is never packed: the merge packs the whole tree the same way (merge/merge-parts.ts).
    // A tree that gets a search index leaves it room (host-limits.ts callFileBudget).
    const toolNames = planned.plans.map((plan) => plan.name);
    const textResources = hasTextResources([...resources.resources, ...apps.resources]);
    const indexedSearch = searchToIndex(config, toolNames, textResources);
    const budget = callFileBudget(maxCallFiles, indexedSearch);
    const packingPlan = shard ? undefined : await planPacking(output, toolNames, copies, budget);
    noteStageMemory('plan packing');
    const callsLeft = packingPlan?.callFilesAfter ?? callFilesBeforePacking;
    const toolReports = sink.toolReports();
    const assembled = await assembleTree({
      serverName: path.basename(projectRoot),
      config,
      toolsFolder,
      plans: planned.plans,
      output,
      toolReports,
      resources: [...resources.resources, ...apps.resources, ...skills.resources],
      skills: skills.skills,
      prompts: prompts.prompts,
      templates: templates.templates,
      templateInstances: expansion.instances,
      completions,
      packsCalls: packingPlan !== undefined,
      shardPart: shard !== undefined,
      resourceBudget: shard ? undefined : { maxCallFiles: budget, callFilesAfter: callsLeft },
      // An unchanged document's tree file by its kept digest (--force reads none; a part keeps none).
      keptFiles: shard ? undefined : await KeptResourceFiles.open(projectRoot, generatorName(), options.force !== true),
      treeState: shard ? undefined : await TreeState.open(projectRoot, generatorName(), config, !options.force),
    });
    // Their files and list entries are written: discovery's resources (one object and path each)
    // are not held through the index stage, which keeps its own per-document state.
    resources.resources = [];
    // Resources past what the budget leaves them are packed with the calls (pack-resource-files.ts).
    const toPack = withResourcePacking(packingPlan, assembled.resourcePacking, callFilesBeforePacking);
    if (site) await applySiteOverrides(output, site);
    noteStageMemory('assembly');
    const { contentHash, documentFilesHash } = await hashContentAndDocuments(
      output,
      config,
      assembled,
      !!shard,
      toPack,
    );
    noteStageMemory('hash');
    // Before the pack stage, which takes the call files out of the tree. A part is not indexed:
    // it holds a share of the documents (the merge indexes the merged tree).
    const search = await writeSearchIndexStep(
      {
        config,
        manifest: assembled.documentsManifest,
        toolNames: assembled.toolNames,
        publicUrl: assembled.publicUrl,
        output,
        shardPart: shard !== undefined,
        generator: generatorName(),
        // --force writes the index again (as it packs every tool again).
        ...(shard || options.force
          ? {}
          : { previous: await readReusableSearchIndex(projectRoot, outDir, generatorName()) }),
        // Each document's share of the index, kept for the next build (--force reads none).
        ...(shard ? {} : { kept: { file: keptSearchDocumentsFile(projectRoot), readPrevious: !options.force } }),
        ...(documentFilesHash !== undefined ? { documentFilesHash } : {}),
      },
      assembled.hasTextResources,
    );
    noteStageMemory('search');
    const packing: PackingOutcome | undefined = toPack
      ? await writePacks(output, toPack, {
          // --force packs every tool again (a pack written by an older pack writer is never kept).
          previous: options.force ? undefined : await readPreviousPacks(projectRoot, outDir, generatorName()),
          generator: generatorName(),
        })
      : undefined;
    noteStageMemory('packs');
    const tree = await writeManifest(
      assembled,
      {
        config,
        generator: generatorName(),
        toolsFolder,
        templates: templates.templates,
        completionProviders: providers.providers,
        contentHash,
        search,
        ...(packing ? { packs: packing.table } : {}),
      },
      output,
    );
    const manifestBytes = Buffer.byteLength(tree.manifestText);
    if (manifestBytes > config.limits.maxManifestBytes) {
      throw new StaticMcpError(
        'MANIFEST_TOO_LARGE',
        `${MANIFEST_FILE} would be ${manifestBytes} bytes, over limits.maxManifestBytes (${config.limits.maxManifestBytes}); clients load it whole at start`,
        'Register fewer tools, resources or prompts (server.d/register.json), shorten descriptions and icons, or raise limits.maxManifestBytes in staticmcp.json.',
      );
    }
    stopIfInterrupted(signal);
    const files = writer.fileCount();
    // public/ is copied as it is, beside the tree's content (and outside its content hash).
    // A site folder named public is published once, by the site's rules.
    const publicFiles =
      site?.folder === PUBLIC_FOLDER ? { files: new Map(), problems: [] } : await discoverPublicFiles(projectRoot);
    for (const [filePath, fileContent] of publicFiles.files) await output.write(filePath, fileContent);
    if (site) await writeSiteFiles(output, site);
    const failures: BuildProblem[] = [
      ...planned.failures,
      ...apps.problems,
      ...resources.problems.map((problem) => ({ path: `resources/${problem.relativePath}`, message: problem.message })),
      ...prompts.problems.map((problem) => ({ path: `prompts/${problem.relativePath}`, message: problem.message })),
      ...templates.problems.map((problem) => ({ path: problem.relativePath, message: problem.message })),
      ...skills.problems,
      ...publicFiles.problems.map((problem) => ({
        path: `${PUBLIC_FOLDER}/${problem.relativePath}`,
        message: problem.message,
      })),
      ...(site?.problems ?? []),
      ...expansion.failures,
      ...providers.failures,
      ...tree.failures,
      // A rebuild keeps the user's files in the output folder: a secrets file there would be
      // published with the next deploy (Pages and Netlify upload every file).
      ...(shard ? [] : await findLocalSecretsFiles(outDir)).map((name) => ({
        path: path.relative(projectRoot, path.join(outDir, name)),
        message: `is in the folder that is deployed, and would be published with the site; ${LOCAL_SECRETS_ADVICE}`,
      })),
    ];
    const warnings: BuildProblem[] = [
      ...(toolsFolder.startsWith('..')
        ? [
            {
              path: toolsFolder,
              message:
                'the tools folder is outside the project, so live calls cannot find its scripts; move it into the project, or build from its parent folder',
            },
          ]
        : []),
      ...project.discovery.skipped.map((notice) => ({
        path: displayPath(notice.relativePath),
        message: notice.message,
      })),
      ...resources.warnings.map((warning) => ({ path: `resources/${warning.relativePath}`, message: warning.message })),
      ...prompts.warnings.map((warning) => ({ path: `prompts/${warning.relativePath}`, message: warning.message })),
      ...skills.warnings,
      ...apps.warnings,
      ...findUnknownToolKeys(config, toolNamesOf(planned.plans, project.discovery.scripts)).map((unknown) => ({
        path: CONFIG_FILE,
        message: unknown.message,
      })),
      ...(site?.warnings ?? []),
      ...expansion.warnings,
      ...providers.warnings,
      ...tree.warnings,
    ];
    const ok = failures.length === 0 && toolReports.every((toolReport) => toolReport.failedRuns === 0);
    if (output instanceof ShardOutput) {
      await output.writeRecord({
        generator: generatorName(),
        plans: planned.plans,
        manifest: tree.manifest,
        publicUrl: config.publicUrl?.replace(/\/+$/, ''),
        copies: sink.claimedCopies(),
        maxCallFiles,
        search: tree.search ?? null,
        maxLlmsFullBytes: config.limits.maxLlmsFullBytes,
        report: { ok, tools: toolReports, failures, warnings },
      });
    } else {
      // Host limits are about the whole tree: a part's are checked by the merge.
      warnings.push(
        ...checkCallFileBudget(callFilesBeforePacking, maxCallFiles, packing, indexedSearch),
        ...resourcePackingWarning(assembled.resourcePacking, packing, tree.manifest.capabilities.resources.length),
        ...checkHostLimits(output.tally),
      );
    }
    // A part's record holds its run's report (cache counts too), so a part is always written again.
    noteStageMemory('manifest');
    unchanged = !shard && (await writer.matchesPrevious(MANIFEST_FILE));
    // What the user added to the output folder (.git, CNAME …) is carried into the new tree (a
    // shard part is the build's alone).
    swapped = true;
    if (unchanged) await writer.discard();
    else await writer.commit(shard ? {} : { keep: isKeptOnRebuild, dropInsideKept: BUILD_OWNED_NESTED_PATHS });
    // The packs now in the output folder, for the next build to reuse (a part is never packed).
    if (!shard) await recordPacks(projectRoot, outDir, generatorName(), packing?.packedTools ?? {});
    // And its search index. A tree found unchanged kept the previous files, which only a reused
    // index is known to be: an index written anew is compared with them before it is recorded.
    if (!shard)
      await recordSearchIndex(
        projectRoot,
        outDir,
        generatorName(),
        tree.searchIndex,
        unchanged && tree.searchIndex?.reused !== true,
      );
    const report: BuildReport = {
      ok,
      outDir,
      unchanged,
      tools: toolReports,
      failures,
      warnings,
      resources: tree.resourceCount,
      files,
      contentHash: tree.contentHash,
      ...(tree.searchIndex ? { searchIndex: tree.searchIndex.reused ? 'reused' : 'written' } : {}),
      documents: resources.documents,
      durationMs: performance.now() - startedAt,
      ...(shard ? { shard } : {}),
    };
    // Only a clean build whose every input is a file may be replayed by the next identical run (a
    // shard part is never replayed: the record describes the project's one whole tree).
    if (shard) return report;
    // A value-list command is repeated by the replay (value-list-command.ts): recorded with its output.
    const checks = volatileInputs.map((input) => input.check);
    if (report.ok && checks.every((check) => check !== undefined))
      await recordUpToDate(project.fingerprintScope, project.inputsFingerprint, options, report, checks);
    else await forgetUpToDate(projectRoot);
    return report;
  } catch (error) {
    if (!swapped) await writer.discard();
    throw error;
  } finally {
    noteStageMemory('commit');
    await cache.save(config.limits.maxCacheBytes);
  }
}

/** The local secrets files (`.dev.vars`, `.env` …) at the top of the output folder, if it exists. */
async function findLocalSecretsFiles(outDir: string): Promise<string[]> {
  try {
    return (await fs.readdir(outDir)).filter(isLocalSecretsFile).sort();
  } catch {
    return [];
  }
}
