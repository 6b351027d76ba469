// Precomputed instances of resource templates: when a template names a provider script and gives
// value lists for its variables, every combination is expanded to a concrete URI and the
// provider's stdout for it becomes that resource's file.
import path from 'node:path';
import type { ProjectResourceTemplate } from '../project/discover-resource-templates.js';
import { runScript } from '../script/run-script.js';
import { addOptionVariables, createBaseEnvironment } from '../script/script-environment.js';
import { decodeOutput } from '../core/results/tool-result.js';
import { resourceContentOf } from '../core/tree/resource-content.js';
import { expandArgumentSets } from '../enumerate/expand-argument-sets.js';
import { expandUriTemplate, templateVariables } from '../core/tree/uri-template.js';
import { readFailureReason, readProjectFile } from '../shared/read-regular-file.js';
import { generatorName } from '../shared/version.js';
import { type BuildCache, hashParts } from './build-cache.js';
import { RunBucket } from './run-bucket.js';
import { mapConcurrent } from './map-concurrent.js';
import { resolveValueList, type PlanContext } from './plan-tools.js';
import type { BuildProblem } from './build-report.js';

/** A precomputed instance's file: text, or base64 `blob` when the provider printed bytes that are not text. */
export type TemplateInstance = ReturnType<typeof resourceContentOf>;

export interface TemplateExpansion {
  instances: TemplateInstance[];
  /** Variable values per template name, for completions. */
  valuesByTemplate: Record<string, Record<string, string[]>>;
  failures: BuildProblem[];
  warnings: BuildProblem[];
}

export async function expandResourceTemplates(
  templates: readonly ProjectResourceTemplate[],
  context: PlanContext & { cache: BuildCache; maxOutputBytes: number },
): Promise<TemplateExpansion> {
  const expansion: TemplateExpansion = { instances: [], valuesByTemplate: {}, failures: [], warnings: [] };
  for (const template of templates) {
    const { name, uriTemplate } = template.definition;
    const variables = templateVariables(uriTemplate);
    const lists: Record<string, unknown[]> = {};
    const warnings: string[] = [];
    for (const variable of variables) {
      const spec = template.values?.[variable];
      if (spec) lists[variable] = (await resolveValueList(variable, spec, { type: 'string' }, context, warnings)) ?? [];
    }
    expansion.valuesByTemplate[name] = Object.fromEntries(
      Object.entries(lists).map(([variable, values]) => [variable, values.map(String)]),
    );
    for (const warning of warnings) expansion.warnings.push({ path: `resource template ${name}`, message: warning });
    if (!template.provider || variables.some((variable) => !lists[variable])) continue;
    const properties = Object.fromEntries(variables.map((variable) => [variable, { type: 'string' }]));
    const enumeration = expandArgumentSets(
      { properties, required: variables, valueLists: lists, maxIntegerRange: 0 },
      context.config.limits.maxCallsPerTool,
    );
    if (!enumeration.precomputable) {
      expansion.warnings.push({ path: `resource template ${name}`, message: `not precomputed: ${enumeration.reason}` });
      continue;
    }
    const providerFile = path.resolve(context.projectRoot, template.provider);
    let providerHash: string;
    try {
      providerHash = hashParts(await readProjectFile(providerFile, context.projectRoot));
    } catch (error) {
      expansion.failures.push({
        path: template.provider,
        message: `the provider of resource template ${name} cannot be read (${readFailureReason(error)})`,
      });
      continue;
    }
    const bucket = context.cache.bucket(
      // 'bytes': entries hold the provider's stdout as base64 (they held decoded text before).
      hashParts('template', 'bytes', generatorName(), providerHash, context.config.limits.timeoutMs),
    );
    const results = await mapConcurrent(
      enumeration.argumentSets(),
      async (args) => {
        const values = args as Record<string, string>;
        const uri = expandUriTemplate(uriTemplate, values);
        const cacheKey = RunBucket.keyOf(uri);
        const cached = bucket.get(cacheKey);
        if (cached) {
          const first = cached.result.content[0];
          return { uri, bytes: Buffer.from(typeof first?.text === 'string' ? first.text : '', 'base64') };
        }
        const env = createBaseEnvironment({
          projectRoot: context.projectRoot,
          toolsRoot: context.toolsRoot,
          phase: 'build',
        });
        addOptionVariables(env, variables, values);
        const run = await runScript({
          file: providerFile,
          cwd: context.projectRoot,
          env,
          stdin: JSON.stringify(values),
          timeoutMs: context.config.limits.timeoutMs,
          maxOutputBytes: context.maxOutputBytes,
          displayName: template.provider!,
        });
        if (run.failed || run.exitCode !== 0) {
          return {
            uri,
            failure: `${run.message} for ${uri}: ${decodeOutput(run.stderr).text.trim().split('\n').slice(0, 3).join(' | ')}`,
          };
        }
        // The bytes as printed: whether they are text is decided with the template's mimeType,
        // by the rule live reads use too (resource-content.ts).
        const bytes = run.stdout;
        const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
        bucket.set(cacheKey, { result: { content: [{ type: 'text', text: base64 }] }, logLines: [], warnings: [] });
        return { uri, bytes };
      },
      context.concurrency,
    );
    for (const result of results) {
      if ('failure' in result) expansion.failures.push({ path: template.provider, message: result.failure! });
      else
        expansion.instances.push(
          resourceContentOf(result.uri, template.definition.mimeType ?? 'text/plain', result.bytes!),
        );
    }
  }
  return expansion;
}
