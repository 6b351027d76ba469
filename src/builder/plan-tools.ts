// Scripts → tool plans: reads each script's `--help` (or its cached copy) and sidecar, names the
// tool, builds its MCP definition, and decides which argument sets to precompute and why not.
import path from 'node:path';
import type { DiscoveredScript } from '../project/discover-scripts.js';
import type { ProjectConfig, ValueListSpec } from '../project/config.js';
import { deriveToolName } from '../project/tool-names.js';
import type { Icon } from '../project/resolve-icons.js';
import { mergeToolMeta, readToolSidecar, type ToolMeta } from '../project/tool-meta.js';
import { parseHelpOutput, readHelp, type HelpInfo } from '../script/read-help.js';
import { optionsToInputSchema } from '../script/options-to-schema.js';
import { createBaseEnvironment } from '../script/script-environment.js';
import { digestStdout, runValueListCommand, type VolatileInput } from './value-list-command.js';
import { expandArgumentSets, type Enumeration } from '../enumerate/expand-argument-sets.js';
import type { ParameterSchema } from '../enumerate/parameter-domains.js';
import { compileValidator } from '../shared/ajv-validator.js';
import { compileSimpleLeafValidator } from '../validators/simple-schema-validator.js';
import type { OutputFormat } from '../core/results/mcp-output.js';
import type { ToolDefinition } from '../core/tree/manifest.js';
import { type BuildCache, hashParts } from './build-cache.js';
import { mapConcurrent } from './map-concurrent.js';
import { generatorName } from '../shared/version.js';
import { readFailureReason, readProjectFile, readRegularFile } from '../shared/read-regular-file.js';
import type { BuildProblem } from './build-report.js';

export interface ToolPlan {
  name: string;
  script: DiscoveredScript;
  definition: ToolDefinition;
  /** Option names the script declared: the only ones exported as environment variables. */
  declaredOptions: string[];
  timeoutMs: number;
  /** How stdout becomes a result: text, or a CallToolResult the script prints (`mcp`). */
  outputFormat: OutputFormat;
  /** Client capabilities a call needs, from the metadata (recorded in the manifest extension). */
  requiredClientCapabilities?: Record<string, Record<string, unknown>>;
  state: boolean;
  live: boolean;
  /** `precompute: true` in the metadata or staticmcp.json: precomputed without the determinism probe. */
  forcePrecompute: boolean;
  enumeration: Enumeration;
  /** `_meta.ui` from the metadata (MCP Apps), checked and completed by discover-apps.ts. */
  uiMeta?: unknown;
  /** Hash of everything besides the arguments that reaches a run. */
  runSeed: string;
  warnings: string[];
}

export interface PlanContext {
  projectRoot: string;
  toolsRoot: string;
  config: ProjectConfig;
  cache: BuildCache;
  concurrency: number;
  /** How a script path (relative to the tools folder) is shown in failures: relative to the project. */
  displayPath: (relativePath: string) => string;
  /** Aborted when the build is interrupted: running scripts are ended. */
  signal?: AbortSignal;
  /**
   * Collects inputs no file fingerprint can see (value-list commands): the no-op fast path repeats
   * their checks, and is ruled out by one without a check.
   */
  volatileInputs?: VolatileInput[];
}

interface LoadedScript {
  script: DiscoveredScript;
  contentHash: string;
  help: HelpInfo;
  meta: ToolMeta;
}

async function loadScript(script: DiscoveredScript, context: PlanContext): Promise<LoadedScript | BuildProblem> {
  let content: Buffer;
  try {
    content = await readRegularFile(script.file);
  } catch (error) {
    return {
      path: context.displayPath(script.relativePath),
      message: `cannot be read (${readFailureReason(error)}); make it a readable file`,
    };
  }
  const sidecar = await readToolSidecar(script.file, script.relativePath, context.projectRoot);
  if (sidecar.problem)
    return {
      path: context.displayPath(script.relativePath),
      message: `${sidecar.problem}; fix the sidecar, the tool was skipped`,
    };
  const contentHash = hashParts(content);
  const cached = context.cache.getHelp(contentHash);
  const result = cached
    ? parseHelpOutput(cached.stdout, cached.stderr, true)
    : await readHelp({
        file: script.file,
        displayName: script.relativePath,
        cwd: context.projectRoot,
        env: createBaseEnvironment({ projectRoot: context.projectRoot, toolsRoot: context.toolsRoot, phase: 'help' }),
        timeoutMs: context.config.limits.helpTimeoutMs,
        signal: context.signal,
      });
  if (!result.ok) {
    return {
      path: context.displayPath(script.relativePath),
      message: `${result.reason}; the script was skipped (see the --help convention in docs/scripts.md)`,
    };
  }
  if (!cached) context.cache.setHelp(contentHash, { stdout: result.help.stdout, stderr: result.help.stderr });
  const meta = mergeToolMeta(result.help.metadata, {
    ...sidecar.meta,
    ...(script.registeredMeta as ToolMeta | undefined),
  });
  if (meta.icons) {
    const { resolveIcons } = await import('../project/resolve-icons.js');
    const icons = await resolveIcons(meta.icons as Icon[], path.dirname(script.file), context.projectRoot);
    if ('problem' in icons)
      return { path: context.displayPath(script.relativePath), message: `${icons.problem}; the tool was skipped` };
    meta.icons = icons.icons;
  }
  return { script, contentHash, help: result.help, meta };
}

function coerceListedValue(text: string, schema: ParameterSchema): unknown {
  if (schema.type === 'integer' || schema.type === 'number') return text.trim() === '' ? text : Number(text);
  if (schema.type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

export async function resolveValueList(
  parameter: string,
  spec: ValueListSpec,
  schema: ParameterSchema,
  context: PlanContext,
  warnings: string[],
): Promise<unknown[] | undefined> {
  let values: unknown[];
  if (Array.isArray(spec)) {
    values = spec;
  } else {
    const what = `the value list command for "${parameter}"`;
    const timeoutMs = context.config.limits.helpTimeoutMs;
    const { maxOutputBytes } = context.config.limits;
    const run = await runValueListCommand(spec.command, {
      projectRoot: context.projectRoot,
      toolsRoot: context.toolsRoot,
      timeoutMs,
      maxOutputBytes,
      displayName: `${what} (${spec.command})`,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (run.failed || run.exitCode !== 0) {
      context.volatileInputs?.push({ what });
      warnings.push(`${run.message}; "${parameter}" takes its default only`);
      return undefined;
    }
    const check = { command: spec.command, timeoutMs, maxOutputBytes, stdoutSha256: digestStdout(run.stdout) };
    context.volatileInputs?.push({ what, check });
    values = run.stdout
      .toString('utf8')
      .split('\n')
      .map((line) => line.replace(/\r$/, ''))
      .filter((line) => line !== '')
      .map((line) => coerceListedValue(line, schema));
  }
  // A plain leaf is checked without ajv (loading it and its meta-schema cost an edit build ~0.1 s).
  const validate =
    compileSimpleLeafValidator(schema as object, parameter) ?? compileValidator(schema as object, parameter);
  const kept: unknown[] = [];
  const seen = new Set<string>();
  for (const value of values) {
    const problems = validate(value);
    if (problems.length > 0) {
      warnings.push(`value ${JSON.stringify(value)} listed for "${parameter}" was dropped: ${problems.join('; ')}`);
      continue;
    }
    const key = JSON.stringify(value);
    if (!seen.has(key)) {
      seen.add(key);
      kept.push(value);
    }
  }
  return kept;
}

function impurityReason(meta: ToolMeta, configPrecompute: boolean | undefined): string | undefined {
  if (meta.state === true) return 'it is stateful (state: true), so it is never run at build time';
  if (configPrecompute === false) return 'staticmcp.json sets precompute: false for it';
  if (meta.precompute === false) return 'its metadata says "precompute": false';
  if (meta.annotations && meta.annotations.readOnlyHint !== true)
    return 'its annotations do not say readOnlyHint: true';
  return undefined;
}

async function hashInputs(inputs: readonly string[], projectRoot: string, warnings: string[]): Promise<string[]> {
  const hashes: string[] = [];
  for (const input of inputs) {
    const file = path.resolve(projectRoot, input);
    if (path.relative(projectRoot, file).startsWith('..')) {
      warnings.push(`input "${input}" is outside the project and was ignored`);
      continue;
    }
    try {
      hashes.push(hashParts(input, await readProjectFile(file, projectRoot)));
    } catch (error) {
      warnings.push(`input "${input}" cannot be read (${readFailureReason(error)})`);
      hashes.push(hashParts(input, 'missing'));
    }
  }
  return hashes;
}

async function planTool(loaded: LoadedScript, name: string, context: PlanContext): Promise<ToolPlan> {
  const { meta, help, script } = loaded;
  const warnings = [...help.warnings];
  const toolConfig = context.config.tools[name] ?? {};
  const inputSchema =
    (meta.inputSchema as ToolDefinition['inputSchema'] | undefined) ?? optionsToInputSchema(help.options);
  const definition: ToolDefinition = {
    name,
    ...(meta.title !== undefined ? { title: meta.title } : {}),
    description: meta.description ?? '',
    inputSchema,
    ...(meta.outputSchema ? { outputSchema: meta.outputSchema } : {}),
    ...(meta.annotations ? { annotations: meta.annotations } : {}),
    ...(meta.icons ? { icons: meta.icons } : {}),
  };
  if (meta.description === undefined)
    warnings.push('no description in --help or sidecar; clients show the tool without one');
  const timeoutMs = Math.round(
    (toolConfig.timeoutSecs ?? meta.timeoutSecs ?? context.config.limits.timeoutMs / 1000) * 1000,
  );
  const properties = (inputSchema.properties ?? {}) as Record<string, ParameterSchema>;
  const valueSpecs = { ...(meta.values ?? {}), ...(toolConfig.values ?? {}) };
  const valueLists: Record<string, unknown[]> = {};
  for (const [parameter, spec] of Object.entries(valueSpecs)) {
    const schema = Object.hasOwn(properties, parameter) ? properties[parameter] : undefined;
    if (schema === undefined) {
      warnings.push(`a value list is given for "${parameter}", which is not a parameter of this tool; ignored`);
      continue;
    }
    const values = await resolveValueList(parameter, spec as ValueListSpec, schema, context, warnings);
    if (values) valueLists[parameter] = values;
  }
  const impure = impurityReason(meta, toolConfig.precompute);
  const domainInput = {
    properties,
    required: inputSchema.required ?? [],
    valueLists,
    maxIntegerRange: context.config.limits.maxIntegerRange,
  };
  const expanded = expandArgumentSets(domainInput, context.config.limits.maxCallsPerTool);
  const enumeration: Enumeration = impure ? { precomputable: false, reason: impure, enumerated: [] } : expanded;
  const inputHashes = await hashInputs(meta.inputs ?? [], context.projectRoot, warnings);
  return {
    name,
    script,
    definition,
    declaredOptions: help.options.map((option) => option.name),
    timeoutMs,
    outputFormat: meta.outputFormat ?? 'text',
    ...(meta.requiredClientCapabilities && Object.keys(meta.requiredClientCapabilities).length > 0
      ? { requiredClientCapabilities: meta.requiredClientCapabilities }
      : {}),
    state: meta.state === true,
    live: toolConfig.live !== false,
    forcePrecompute: (toolConfig.precompute ?? meta.precompute) === true,
    enumeration,
    ...(meta._meta !== null && typeof meta._meta === 'object' && 'ui' in meta._meta ? { uiMeta: meta._meta.ui } : {}),
    // Only what can change the answer to one argument set: a new title, description or icon
    // in a sidecar must not rerun thousands of calls (value lists change which sets exist, not
    // what one set answers, so they are left out too).
    runSeed: hashParts(
      generatorName(),
      // The name reaches the run (STATICMCP_TOOL): two tools of one script must not share results.
      name,
      loaded.contentHash,
      help.stdout,
      help.stderr,
      definition.outputSchema ?? null,
      inputHashes,
      timeoutMs,
      context.config.limits.maxOutputBytes,
      ...(meta.outputFormat === 'mcp' ? ['outputFormat:mcp'] : []),
    ),
    warnings,
  };
}

/** Loads every script and plans its tool; scripts that cannot become tools are returned as problems. */
export async function planTools(
  scripts: readonly DiscoveredScript[],
  context: PlanContext,
): Promise<{ plans: ToolPlan[]; failures: BuildProblem[] }> {
  const failures: BuildProblem[] = [];
  const loaded = (await mapConcurrent(scripts, (script) => loadScript(script, context), context.concurrency)).filter(
    (entry): entry is LoadedScript => {
      if ('message' in entry) failures.push(entry);
      return !('message' in entry);
    },
  );
  const byName = new Map<string, LoadedScript[]>();
  for (const entry of loaded) {
    const name = entry.meta.name ?? deriveToolName(entry.script.relativePath);
    byName.set(name, [...(byName.get(name) ?? []), entry]);
  }
  const plans: ToolPlan[] = [];
  for (const [name, entries] of [...byName.entries()].sort(([left], [right]) =>
    left < right ? -1 : left > right ? 1 : 0,
  )) {
    const [only, ...others] = entries;
    if (others.length > 0) {
      const paths = entries.map((entry) => context.displayPath(entry.script.relativePath));
      failures.push({
        path: paths.join(', '),
        message: `these scripts all map to the tool name "${name}"; rename one of them (or set "name" in its .meta.json). None of them was built`,
      });
      continue;
    }
    if (only) plans.push(await planTool(only, name, context));
  }
  return { plans, failures };
}
