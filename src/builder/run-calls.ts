// ToolPlans → a CallOutcome per call (its argument set from call-stream.ts): counts what must run,
// probes each tool for nondeterminism, then streams every call of every precomputable tool through
// one bounded pool, answering from the cache where nothing that reaches the run has changed. Calls
// are generated as runners free up and each outcome goes to `sink` as soon as it exists: nothing
// grows with the number of calls.
import type { BatchRunner } from '../script/batch-runner.js';
import type { BuildCache, CachedRun } from './build-cache.js';
import type { BuildEvent } from './build-report.js';
import { type CallFilter, streamToolCalls } from './call-stream.js';
import { forEachConcurrent, mapConcurrent } from './map-concurrent.js';
import type { ToolPlan } from './plan-tools.js';
import { probeDeterminism, serveLiveInstead } from './probe-determinism.js';
import { RunBucket } from './run-bucket.js';
import { readTestHook } from '../shared/test-hook.js';
import {
  type CallOutcome,
  type CallRunContext,
  invalidSchemaOutcome,
  outputValidatorFor,
  runOneCall,
} from './run-one-call.js';

export type { CallOutcome };

/** Where outcomes go as they exist; it may make the stream wait (back-pressure from the tree's writes). */
export type CallSink = (outcome: CallOutcome) => Promise<void>;

export interface RunContext extends CallRunContext {
  maxOutputBytes: number;
  concurrency: number;
  cache: BuildCache;
  onEvent?: (event: BuildEvent) => void;
  /** Aborted when the build is interrupted: running scripts are ended, the rest never start. */
  signal?: AbortSignal;
  /** Which calls this build makes (all when absent); applied in streamToolCalls. */
  callFilter?: CallFilter;
}

/** What the count stage learns of one tool. */
interface ToolTally {
  toRun: number;
  cached: number;
  /** The first call that has to run: the one the determinism probe runs twice. */
  sample?: Record<string, unknown>;
  /** Set once the sample ran: the stream skips it. */
  sampleKey?: string;
}

/**
 * Calls counted or answered from the cache between two turns of the event loop. Both loops are
 * otherwise synchronous (a cache answer is one read, and past the call-file budget its file is
 * appended to the spool): a rebuild of 650,000 cached calls never let a Ctrl-C through. A turn
 * per 256 costs ~2,500 turns there, nothing measurable.
 */
const CALLS_PER_TURN = 256;
/** Sets CALLS_PER_TURN for a test, which then shows the turn with a few cached calls. */
export const CALLS_PER_TURN_VARIABLE = 'STATICMCP_TEST_CALLS_PER_TURN';

/**
 * Calls kept going per launcher (the batch runner runs `concurrency` scripts at once): the extra
 * one has its job file written and waits for a launcher, so a finished script's launcher starts
 * the next one at once rather than after its result is read, checked, cached and written.
 */
const CALLS_PER_LAUNCHER = 2;

/** Lets timers, I/O and signal handlers run (a resolved promise would not: microtasks only). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Stage 1: how many calls of each tool run and how many come from the cache, holding nothing per call. */
async function countCalls(
  plans: readonly ToolPlan[],
  context: RunContext,
  callsPerTurn: number,
): Promise<Map<ToolPlan, ToolTally>> {
  const tallies = new Map<ToolPlan, ToolTally>();
  for (const plan of plans) {
    if (!plan.enumeration.precomputable) continue;
    const bucket = context.cache.bucket(plan.runSeed);
    const tally: ToolTally = { toRun: 0, cached: 0 };
    // With no earlier result every call runs: its key is not worth hashing twice (~40 ms of a
    // cold 2,000-call build before its first run).
    const empty = bucket.isEmpty();
    let counted = 0;
    for (const args of streamToolCalls(plan, context.callFilter)) {
      if (!empty && ++counted % callsPerTurn === 0) {
        await nextTurn();
        if (context.signal?.aborted) break;
      }
      if (!empty && bucket.has(RunBucket.keyOf(args))) tally.cached += 1;
      else {
        tally.toRun += 1;
        tally.sample ??= args;
      }
    }
    bucket.release();
    tallies.set(plan, tally);
  }
  return tallies;
}

function cachedOutcome(plan: ToolPlan, args: Record<string, unknown>, cached: CachedRun): CallOutcome {
  const { result, logLines, warnings } = cached;
  return { plan, arguments: args, result, fromCache: true, logLines, warnings };
}

function remember(outcome: CallOutcome, key: string, context: RunContext): void {
  if (!outcome.result) return;
  const { result, logLines, warnings } = outcome;
  context.cache.bucket(outcome.plan.runSeed).set(key, { result, logLines, warnings });
}

interface Job {
  plan: ToolPlan;
  args: Record<string, unknown>;
  key: string;
  stream: { inFlight: number; exhausted: boolean };
}

/** Stage 3's source: cache hits go straight to the sink; calls to run are yielded as runners free up. */
async function* generateJobs(
  plans: readonly ToolPlan[],
  tallies: ReadonlyMap<ToolPlan, ToolTally>,
  context: RunContext,
  sink: CallSink,
  callsPerTurn: number,
  onRerun: (plan: ToolPlan) => void,
): AsyncGenerator<Job> {
  for (const plan of plans) {
    const tally = tallies.get(plan);
    if (!plan.enumeration.precomputable || !tally) continue;
    const bucket = context.cache.bucket(plan.runSeed);
    const stream = { inFlight: 0, exhausted: false };
    let answered = 0;
    for (const args of streamToolCalls(plan, context.callFilter)) {
      if (context.signal?.aborted) return;
      const key = RunBucket.keyOf(args);
      if (key === tally.sampleKey) continue;
      const cached = bucket.get(key);
      if (cached) {
        await sink(cachedOutcome(plan, args, cached));
        if (++answered % callsPerTurn === 0) await nextTurn();
      } else {
        // Indexed but unreadable: the plan counted it as cached, so its totals grow by one.
        if (bucket.has(key)) onRerun(plan);
        stream.inFlight += 1;
        yield { plan, args, key, stream };
      }
    }
    stream.exhausted = true;
    // The bucket's index is dropped once the tool is done: only tools in flight hold one.
    if (stream.inFlight === 0) bucket.release();
  }
}

export async function runCalls(plans: readonly ToolPlan[], context: RunContext, sink: CallSink): Promise<void> {
  const callsPerTurn = readTestHook(CALLS_PER_TURN_VARIABLE, CALLS_PER_TURN);
  const tallies = await countCalls(plans, context, callsPerTurn);
  if (context.signal?.aborted) return;
  // Opened at the first call to run, not from the tally: a line the tally counted as cached can
  // still fail to read back (a damaged or truncated cache log), and that call then runs.
  let runnerOpening: Promise<BatchRunner> | undefined;
  const openRunner = (): Promise<BatchRunner> => {
    // Loaded only when something runs: a rebuild from the cache never needs the launchers.
    runnerOpening ??= import('../script/batch-runner.js').then(({ BatchRunner }) =>
      BatchRunner.open({
        cwd: context.projectRoot,
        concurrency: context.concurrency,
        maxOutputBytes: context.maxOutputBytes,
        signal: context.signal,
      }),
    );
    return runnerOpening;
  };
  const validators = new Map<ToolPlan, ReturnType<typeof outputValidatorFor>>();
  // Compiled only for tools with something to run, so a rebuild from the cache never loads ajv for them.
  const validatorOf = (plan: ToolPlan): ReturnType<typeof outputValidatorFor> => {
    const known = validators.get(plan);
    if (known) return known;
    const validator = outputValidatorFor(plan);
    validators.set(plan, validator);
    return validator;
  };
  try {
    if ([...tallies.values()].some((tally) => tally.toRun > 0)) {
      await probeTools(await openRunner(), tallies, validatorOf, context, sink);
    }
    // The sample calls the probe already ran count as run and done, so the plan line names every
    // call the build runs (it said 4,999 for a build that ran 5,000).
    let totalRuns = 0;
    let cachedRuns = 0;
    let done = 0;
    for (const [plan, tally] of tallies) {
      if (!plan.enumeration.precomputable) continue;
      totalRuns += tally.toRun;
      cachedRuns += tally.cached;
      if (tally.sampleKey) done += 1;
    }
    context.onEvent?.({ type: 'plan', totalRuns, cachedRuns });
    const onRerun = (plan: ToolPlan): void => {
      totalRuns += 1;
      context.onEvent?.({ type: 'rerun', totalRuns, tool: plan.name });
    };
    await forEachConcurrent(
      generateJobs(plans, tallies, context, sink, callsPerTurn, onRerun),
      async (job) => {
        try {
          const validator = validatorOf(job.plan);
          const outcome = validator.problem
            ? invalidSchemaOutcome(job.plan, job.args, validator.problem)
            : (await runOneCall(await openRunner(), job.plan, job.args, validator.validate, context)).outcome;
          remember(outcome, job.key, context);
          await sink(outcome);
          done += 1;
          context.onEvent?.({ type: 'run', done, totalRuns, tool: job.plan.name });
        } finally {
          job.stream.inFlight -= 1;
          if (job.stream.exhausted && job.stream.inFlight === 0) context.cache.bucket(job.plan.runSeed).release();
        }
      },
      context.concurrency * CALLS_PER_LAUNCHER,
    );
    // Every call has its outcome only when nothing cut the stream short: a --force build may then
    // drop the results its calls replaced (run-bucket.ts), and never after an interruption. A
    // shard's calls are only its share: the other shards' results in the same logs stay.
    if (!context.signal?.aborted && context.callFilter === undefined)
      for (const plan of tallies.keys()) context.cache.bucket(plan.runSeed).markAllRun();
  } finally {
    // A runner that failed to open has nothing to close; its error reached the call that asked.
    const runner = await runnerOpening?.catch(() => undefined);
    await runner?.close();
  }
}

/** Stage 2: one sample call of every tool with something to run, twice; tools whose output differs go live. */
async function probeTools(
  runner: BatchRunner,
  tallies: Map<ToolPlan, ToolTally>,
  validatorOf: (plan: ToolPlan) => ReturnType<typeof outputValidatorFor>,
  context: RunContext,
  sink: CallSink,
): Promise<void> {
  const probed = [...tallies].filter(([plan, tally]) => tally.sample && !plan.forcePrecompute);
  await mapConcurrent(
    probed,
    async ([plan, tally]) => {
      const validator = validatorOf(plan);
      if (validator.problem || context.signal?.aborted) return;
      const args = tally.sample!;
      const { outcome, differs } = await probeDeterminism(() =>
        runOneCall(runner, plan, args, validator.validate, context),
      );
      if (differs) {
        serveLiveInstead(plan, args);
        return;
      }
      tally.sampleKey = RunBucket.keyOf(args);
      remember(outcome, tally.sampleKey, context);
      await sink(outcome);
    },
    context.concurrency,
  );
}
