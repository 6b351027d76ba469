// A vitest reporter that prints, at the end of a run, when the test files held the workers
// (test/helpers/test-timeline.ts): each tier's span, how many files ran at once, the worker-seconds
// no file held, the files left running at the end, and the slowest files of each tier, which
// LONGEST_FILES (test/helpers/test-tiers.ts) lists for test/longest-first-sequencer.ts. Use it beside
// vitest's own: `npm test -- --reporter=default --reporter=./test/timeline-reporter.ts`. With
// STATICMCP_TEST_TIMELINE=<file> it also writes each file's span there as a JSON line.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { describeTimeline, type FileSpan, summarizeTimeline } from './helpers/test-timeline.js';

export default class TimelineReporter implements Reporter {
  private root = '';
  private workers = 1;
  private readonly startsMs = new Map<string, number>();
  private readonly spans: FileSpan[] = [];

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    // The pool runs each tier's files on that project's maxWorkers, which `--maxWorkers` on the
    // command line does not change (VITEST_MAX_WORKERS does): the root config's can differ from it.
    const perTier = vitest.projects.map((project) => project.config.maxWorkers);
    this.workers = perTier.length > 0 ? Math.max(...perTier) : vitest.config.maxWorkers;
  }

  /** Called as a worker takes the file, before its setup files and imports. */
  onTestModuleQueued(testModule: TestModule): void {
    this.startsMs.set(testModule.id, Date.now());
  }

  onTestModuleEnd(testModule: TestModule): void {
    const endMs = Date.now();
    const span: FileSpan = {
      file: path.relative(this.root, testModule.moduleId).split(path.sep).join('/'),
      tier: testModule.project.name,
      startMs: this.startsMs.get(testModule.id) ?? endMs,
      endMs,
    };
    this.spans.push(span);
    const log = process.env.STATICMCP_TEST_TIMELINE;
    if (log) appendFileSync(log, `${JSON.stringify(span)}\n`);
  }

  onTestRunEnd(): void {
    const lines = describeTimeline(summarizeTimeline(this.spans, this.workers), this.workers);
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
