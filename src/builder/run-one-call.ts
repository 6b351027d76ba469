// One argument set → its CallOutcome: one call of a tool through the batch runner (a result, or a
// failure with the head of stderr). The result is what the tree and the cache store.
import type { BatchRunner } from '../script/batch-runner.js';
import type { ScriptRun } from '../script/run/script-run.js';
import { addOptionVariables, createBaseEnvironment } from '../script/script-environment.js';
import { decodeOutput, toToolResult, type ToolResult } from '../core/results/tool-result.js';
import { parseLogLines } from '../core/results/log-lines.js';
import { compileValidator, type Validator } from '../shared/ajv-validator.js';
import type { CachedRun } from './build-cache.js';
import type { RunFailure } from './build-report.js';
import type { ToolPlan } from './plan-tools.js';

export interface CallOutcome {
  plan: ToolPlan;
  arguments: Record<string, unknown>;
  result?: ToolResult;
  failure?: RunFailure;
  fromCache: boolean;
  logLines: CachedRun['logLines'];
  warnings: string[];
  /** How long the script ran for this call; absent when nothing ran (the cache, an invalid schema). */
  durationMs?: number;
}

export interface CallRunContext {
  projectRoot: string;
  toolsRoot: string;
}

function headOf(text: string, lines = 5): string {
  return text.trim().split('\n').slice(0, lines).join('\n').slice(0, 1000);
}

/**
 * Each tool's base environment, made once per build: it reads process.env, a call into C++ per
 * variable, which every one of 2,000 calls paid before.
 */
const baseEnvironments = new WeakMap<ToolPlan, Readonly<Record<string, string>>>();

/** Runs the script for one argument set; the raw run comes back too, for the determinism probe. */
export async function runOneCall(
  runner: BatchRunner,
  plan: ToolPlan,
  args: Record<string, unknown>,
  validateOutput: Validator | undefined,
  context: CallRunContext,
): Promise<{ outcome: CallOutcome; run: ScriptRun }> {
  let base = baseEnvironments.get(plan);
  if (!base) {
    base = createBaseEnvironment({
      projectRoot: context.projectRoot,
      toolsRoot: context.toolsRoot,
      phase: 'build',
      toolName: plan.name,
    });
    baseEnvironments.set(plan, base);
  }
  const env = { ...base };
  addOptionVariables(env, plan.declaredOptions, args);
  const run = await runner.run({
    file: plan.script.file,
    env,
    stdin: JSON.stringify(args),
    timeoutMs: plan.timeoutMs,
    displayName: plan.script.relativePath,
  });
  const stderrText = decodeOutput(run.stderr).text;
  const logLines = parseLogLines(stderrText);
  if (run.failed) {
    const failure = { arguments: args, message: run.message, stderrHead: headOf(stderrText) };
    return {
      run,
      outcome: { plan, arguments: args, failure, fromCache: false, logLines, warnings: [], durationMs: run.durationMs },
    };
  }
  const warnings: string[] = [];
  if (decodeOutput(run.stdout).replaced) {
    warnings.push(`output for ${JSON.stringify(args)} is not valid UTF-8; invalid bytes were replaced with U+FFFD`);
  }
  const result = toToolResult(run, { toolName: plan.name, validateOutput, outputFormat: plan.outputFormat });
  return {
    run,
    outcome: { plan, arguments: args, result, fromCache: false, logLines, warnings, durationMs: run.durationMs },
  };
}

/** Compiles a tool's outputSchema once; an invalid schema fails every run of that tool, not the build. */
export function outputValidatorFor(plan: ToolPlan): { validate?: Validator; problem?: string } {
  if (!plan.definition.outputSchema) return {};
  try {
    return { validate: compileValidator(plan.definition.outputSchema, 'output') };
  } catch (error) {
    return {
      problem: `the outputSchema of ${plan.name} is ${(error as Error).message}; fix it in the tool's metadata`,
    };
  }
}

/** The outcome of every call of a tool whose outputSchema does not compile. */
export function invalidSchemaOutcome(plan: ToolPlan, args: Record<string, unknown>, problem: string): CallOutcome {
  return {
    plan,
    arguments: args,
    failure: { arguments: args, message: problem, stderrHead: '' },
    fromCache: false,
    logLines: [],
    warnings: [],
  };
}
