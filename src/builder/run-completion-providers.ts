// Script-backed completion providers from register.json (`{name, path, timeoutSecs}`): each is
// matched to the prompt, resource template or tool of its name (a name that matches none answers
// `ref/prompt` references of that name, as mcp-bash routes them), recorded for bridges to run live,
// and run once per argument with an empty value: a complete answer (no `hasMore`) is precomputed
// into completions.json, where bridges without the project prefix-match it like a static list.
import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { ProjectPrompt } from '../project/discover-prompts.js';
import type { ProjectResourceTemplate } from '../project/discover-resource-templates.js';
import type { RegisterEntry } from '../project/register-json.js';
import { runScript } from '../script/run-script.js';
import { createBaseEnvironment } from '../script/script-environment.js';
import { decodeOutput } from '../core/results/tool-result.js';
import {
  type CompletionKind,
  type CompletionProviders,
  completionRunInput,
  DEFAULT_COMPLETION_TIMEOUT_MS,
  parseCompletionOutput,
} from '../core/tree/completion-provider.js';
import { templateVariables } from '../core/tree/uri-template.js';
import type { BuildProblem } from './build-report.js';
import { mapConcurrent } from './map-concurrent.js';
import type { ToolPlan } from './plan-tools.js';

export interface ProviderContext {
  projectRoot: string;
  toolsRoot: string;
  maxOutputBytes: number;
  concurrency: number;
  signal?: AbortSignal;
}

export interface ProviderResults {
  providers: CompletionProviders;
  /** Precomputed answers, as static register.json completion entries. */
  lists: RegisterEntry[];
  failures: BuildProblem[];
  warnings: BuildProblem[];
}

/** Whether a register.json completion entry is a script-backed provider (else a static list). */
export function isProviderEntry(entry: RegisterEntry): boolean {
  return entry.ref === undefined && typeof entry.path === 'string';
}

interface Target {
  kind: CompletionKind;
  key: string;
  ref: Record<string, unknown>;
  argumentNames: string[];
}

function targetsNamed(
  name: string,
  plans: readonly ToolPlan[],
  prompts: readonly ProjectPrompt[],
  templates: readonly ProjectResourceTemplate[],
): Target[] {
  const targets: Target[] = [];
  const prompt = prompts.find((candidate) => candidate.definition.name === name);
  if (prompt)
    targets.push({
      kind: 'ref/prompt',
      key: name,
      ref: { type: 'ref/prompt', name },
      argumentNames: (prompt.definition.arguments ?? []).map((argument) => argument.name),
    });
  const template = templates.find((candidate) => candidate.definition.name === name);
  if (template) {
    const { uriTemplate } = template.definition;
    targets.push({
      kind: 'ref/resource',
      key: uriTemplate,
      ref: { type: 'ref/resource', uri: uriTemplate },
      argumentNames: templateVariables(uriTemplate),
    });
  }
  const plan = plans.find((candidate) => candidate.name === name);
  if (plan)
    targets.push({
      kind: 'ref/tool',
      key: name,
      ref: { type: 'ref/tool', name },
      argumentNames: Object.keys(plan.definition.inputSchema.properties ?? {}),
    });
  return targets;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

export async function runCompletionProviders(
  entries: readonly RegisterEntry[],
  known: {
    plans: readonly ToolPlan[];
    prompts: readonly ProjectPrompt[];
    templates: readonly ProjectResourceTemplate[];
  },
  context: ProviderContext,
): Promise<ProviderResults> {
  const results: ProviderResults = { providers: {}, lists: [], failures: [], warnings: [] };
  const runs: {
    entry: RegisterEntry;
    script: string;
    file: string;
    target: Target;
    argument: string;
    timeoutMs: number;
  }[] = [];
  for (const [index, entry] of entries.entries()) {
    if (!isProviderEntry(entry)) continue;
    const where = `server.d/register.json completions[${index}]`;
    const name = entry.name!;
    const script = path.posix.normalize(entry.path!.split(path.sep).join('/'));
    const file = path.join(context.projectRoot, ...script.split('/'));
    if (!(await isExecutable(file))) {
      results.failures.push({
        path: where,
        message: `the completion provider ${script} is not an executable file in the project; create it and run chmod +x on it`,
      });
      continue;
    }
    const timeoutMs =
      typeof entry.timeoutSecs === 'number' ? Math.round(entry.timeoutSecs * 1000) : DEFAULT_COMPLETION_TIMEOUT_MS;
    let targets = targetsNamed(name, known.plans, known.prompts, known.templates);
    if (targets.length === 0) {
      results.warnings.push({
        path: where,
        message: `"${name}" names no prompt, resource template or tool; it answers completion/complete for ref/prompt "${name}", as mcp-bash routes it`,
      });
      targets = [{ kind: 'ref/prompt', key: name, ref: { type: 'ref/prompt', name }, argumentNames: [] }];
    }
    for (const target of targets) {
      const byKey = results.providers[target.kind] ?? {};
      results.providers[target.kind] = byKey;
      byKey[target.key] = { name, script, timeoutMs };
      for (const argument of target.argumentNames) runs.push({ entry, script, file, target, argument, timeoutMs });
    }
  }
  const answers = await mapConcurrent(
    runs,
    async ({ entry, script, file, target, argument, timeoutMs }) => {
      const input = completionRunInput({ name: entry.name!, ref: target.ref, argument, value: '' });
      const env = {
        ...createBaseEnvironment({ projectRoot: context.projectRoot, toolsRoot: context.toolsRoot, phase: 'build' }),
        ...input.environment,
      };
      const run = await runScript({
        file,
        cwd: context.projectRoot,
        env,
        stdin: JSON.stringify(input.args),
        timeoutMs,
        maxOutputBytes: context.maxOutputBytes,
        signal: context.signal,
        displayName: script,
      });
      const what = `completion provider ${script} for ${target.kind} ${target.key}, argument "${argument}"`;
      if (run.failed || run.exitCode !== 0) {
        const said = decodeOutput(run.stderr).text.trim().split('\n').slice(-3).join(' | ');
        return { failure: `${what}: ${run.message}${said ? `: ${said}` : ''}` };
      }
      const parsed = parseCompletionOutput(decodeOutput(run.stdout).text);
      if ('problem' in parsed) return { failure: `${what} ${parsed.problem}` };
      // A partial answer would pass for all there is: bridges without the project offer nothing instead.
      if (parsed.hasMore) return {};
      return { list: { ref: target.ref, argument, values: parsed.values } as RegisterEntry };
    },
    context.concurrency,
  );
  for (const answer of answers) {
    if (answer.failure) results.failures.push({ path: 'server.d/register.json', message: answer.failure });
    if (answer.list) results.lists.push(answer.list);
  }
  return results;
}
