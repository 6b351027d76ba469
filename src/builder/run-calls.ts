// Runs every argument set of every precomputable tool through one bounded pool, answering from the
// cache where nothing that reaches the run has changed.
import type { BatchRunner } from '../script/batch-runner.js';
import { addOptionVariables, createBaseEnvironment } from '../script/script-environment.js';
import { decodeOutput, toToolResult, type ToolResult } from '../script/tool-result.js';
import { parseLogLines } from '../script/log-lines.js';
import { compileValidator, type Validator } from '../tree/json-validator.js';
import { type BuildCache, hashParts, type CachedRun } from './build-cache.js';
import { mapConcurrent } from './map-concurrent.js';
import type { BuildEvent, RunFailure } from './build-report.js';
import type { ToolPlan } from './plan-tools.js';

export interface CallOutcome {
  plan: ToolPlan;
  arguments: Record<string, unknown>;
  result?: ToolResult;
  failure?: RunFailure;
  fromCache: boolean;
  logLines: CachedRun['logLines'];
  warnings: string[];
}

export interface RunContext {
  projectRoot: string;
  toolsRoot: string;
  maxOutputBytes: number;
  concurrency: number;
  cache: BuildCache;
  onEvent?: (event: BuildEvent) => void;
  /** Aborted when the build is interrupted: running scripts are ended, the rest never start. */
  signal?: AbortSignal;
}

function headOf(text: string, lines = 5): string {
  return text.trim().split('\n').slice(0, lines).join('\n').slice(0, 1000);
}

async function runOne(
  runner: BatchRunner,
  plan: ToolPlan,
  args: Record<string, unknown>,
  cacheKey: string,
  validateOutput: Validator | undefined,
  context: RunContext,
): Promise<CallOutcome> {
  const env = createBaseEnvironment({
    projectRoot: context.projectRoot,
    toolsRoot: context.toolsRoot,
    phase: 'build',
    toolName: plan.name,
  });
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
    return {
      plan,
      arguments: args,
      failure: { arguments: args, message: run.message, stderrHead: headOf(stderrText) },
      fromCache: false,
      logLines,
      warnings: [],
    };
  }
  const warnings: string[] = [];
  if (decodeOutput(run.stdout).replaced) {
    warnings.push(`output for ${JSON.stringify(args)} is not valid UTF-8; invalid bytes were replaced with U+FFFD`);
  }
  const result = toToolResult(run, { toolName: plan.name, validateOutput, outputFormat: plan.outputFormat });
  context.cache.setRun(cacheKey, { result, logLines, warnings });
  return { plan, arguments: args, result, fromCache: false, logLines, warnings };
}

/** Compiles a tool's outputSchema once; an invalid schema fails every run of that tool, not the build. */
function outputValidatorFor(plan: ToolPlan): { validate?: Validator; problem?: string } {
  if (!plan.definition.outputSchema) return {};
  try {
    return { validate: compileValidator(plan.definition.outputSchema, 'output') };
  } catch (error) {
    return {
      problem: `the outputSchema of ${plan.name} is ${(error as Error).message}; fix it in the tool's metadata`,
    };
  }
}

export async function runCalls(plans: readonly ToolPlan[], context: RunContext): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  const jobs: { index: number; plan: ToolPlan; args: Record<string, unknown>; cacheKey: string }[] = [];
  for (const plan of plans) {
    if (!plan.enumeration.precomputable) continue;
    for (const args of plan.enumeration.argumentSets) {
      const cacheKey = hashParts(plan.runSeed, args);
      const cached = context.cache.getRun(cacheKey);
      if (cached)
        outcomes.push({
          plan,
          arguments: args,
          result: cached.result,
          fromCache: true,
          logLines: cached.logLines,
          warnings: cached.warnings,
        });
      else jobs.push({ index: outcomes.push(undefined as unknown as CallOutcome) - 1, plan, args, cacheKey });
    }
  }
  context.onEvent?.({ type: 'plan', totalRuns: jobs.length, cachedRuns: outcomes.length - jobs.length });
  // Compiled only for tools with something to run, so a no-op rebuild never loads ajv for them.
  if (jobs.length === 0) return outcomes;
  const validators = new Map<ToolPlan, ReturnType<typeof outputValidatorFor>>();
  // Loaded only when something runs: a no-op rebuild never needs the launchers.
  const { BatchRunner } = await import('../script/batch-runner.js');
  const runner = await BatchRunner.open({
    cwd: context.projectRoot,
    concurrency: context.concurrency,
    maxOutputBytes: context.maxOutputBytes,
    signal: context.signal,
  });
  let done = 0;
  try {
    await mapConcurrent(
      jobs,
      async (job) => {
        let validator = validators.get(job.plan);
        if (!validator) validators.set(job.plan, (validator = outputValidatorFor(job.plan)));
        outcomes[job.index] = validator.problem
          ? {
              plan: job.plan,
              arguments: job.args,
              failure: { arguments: job.args, message: validator.problem, stderrHead: '' },
              fromCache: false,
              logLines: [],
              warnings: [],
            }
          : await runOne(runner, job.plan, job.args, job.cacheKey, validator.validate, context);
        done += 1;
        context.onEvent?.({ type: 'run', done, totalRuns: jobs.length, tool: job.plan.name });
      },
      context.concurrency,
    );
  } finally {
    await runner.close();
  }
  return outcomes;
}
