// What `completion/complete` can offer, from what the build knows: enum values and value lists of
// tool parameters, enum values and string `examples` of prompt arguments, precomputed template variables, and register.json
// completions (static lists, and the precomputed answers of script providers). Written to the tree as
// `completions.json`; values are strings, as MCP sends them. register.json `"completions": []`
// disables completions (000_*: an empty kind is switched off), derived ones included.
import type { ProjectPrompt } from '../project/discover-prompts.js';
import type { ProjectResourceTemplate } from '../project/discover-resource-templates.js';
import type { RegisterEntry } from '../project/register-json.js';
import { renderArgumentValue } from '../core/tree/call-key.js';
import type { CompletionTable as TreeCompletionTable } from '../core/tree/manifest.js';
import type { ToolPlan } from './plan-tools.js';

export const COMPLETIONS_FILE = 'completions.json';

/** The tree's completion table (see manifest.ts), with every kind present while it is built. */
type CompletionTable = Required<TreeCompletionTable>;

function addValues(
  table: CompletionTable,
  kind: keyof CompletionTable,
  reference: string,
  argument: string,
  values: readonly unknown[],
): void {
  if (values.length === 0) return;
  table[kind][reference] ??= {};
  const byArgument = table[kind][reference];
  const merged = new Set(byArgument[argument] ?? []);
  for (const value of values) merged.add(typeof value === 'string' ? value : renderArgumentValue(value));
  byArgument[argument] = [...merged];
}

export function collectCompletions(
  plans: readonly ToolPlan[],
  prompts: readonly ProjectPrompt[],
  templates: readonly ProjectResourceTemplate[],
  templateValues: Record<string, Record<string, string[]>>,
  registered: readonly RegisterEntry[] | undefined,
): CompletionTable {
  const table: CompletionTable = { 'ref/prompt': {}, 'ref/resource': {}, 'ref/tool': {} };
  if (registered?.length === 0) return table;
  for (const plan of plans) {
    for (const [parameter, schema] of Object.entries(plan.definition.inputSchema.properties ?? {})) {
      if (Array.isArray(schema.enum)) addValues(table, 'ref/tool', plan.name, parameter, schema.enum);
      if (plan.enumeration.precomputable && plan.enumeration.enumerated.includes(parameter)) {
        addValues(table, 'ref/tool', plan.name, parameter, plan.enumeration.values[parameter] ?? []);
      }
    }
  }
  for (const prompt of prompts) {
    const properties = (prompt.file.arguments.properties ?? {}) as Record<
      string,
      { enum?: unknown[]; examples?: unknown[] }
    >;
    for (const [argument, schema] of Object.entries(properties)) {
      if (Array.isArray(schema?.enum)) addValues(table, 'ref/prompt', prompt.definition.name, argument, schema.enum);
      // JSON Schema `examples`: suggestions for a free argument, without restricting what it accepts.
      if (Array.isArray(schema?.examples))
        addValues(
          table,
          'ref/prompt',
          prompt.definition.name,
          argument,
          schema.examples.filter((value) => typeof value === 'string'),
        );
    }
  }
  for (const template of templates) {
    for (const [variable, values] of Object.entries(templateValues[template.definition.name] ?? {})) {
      addValues(table, 'ref/resource', template.definition.uriTemplate, variable, values);
    }
  }
  for (const entry of registered ?? []) {
    // Script providers are run by run-completion-providers.ts, which adds their answers as lists.
    if (entry.ref === undefined) continue;
    const ref = entry.ref as { type: keyof CompletionTable; name?: string; uri?: string };
    addValues(table, ref.type, (ref.name ?? ref.uri)!, entry.argument as string, entry.values as string[]);
  }
  return table;
}
