// The run timeline test/timeline-reporter.ts prints (test/helpers/test-timeline.ts): from files'
// spans on the workers, each tier's span, the seconds at each number of files running, the
// worker-seconds no file held, the files left at the end, and each tier's slowest files.
import { describe, expect, it } from 'vitest';
import { describeTimeline, type FileSpan, summarizeTimeline } from '../helpers/test-timeline.js';

const span = (file: string, tier: string, startSeconds: number, endSeconds: number): FileSpan => ({
  file,
  tier,
  startMs: 1_000_000 + startSeconds * 1000,
  endMs: 1_000_000 + endSeconds * 1000,
});

// Two workers: core's two files side by side, then cli's long file alone at the end after a short one.
const SPANS = [
  span('test/unit/a.test.ts', 'core', 0, 4),
  span('test/unit/b.test.ts', 'core', 0, 2),
  span('test/build/long.test.ts', 'cli', 4, 20),
  span('test/build/short.test.ts', 'cli', 2, 6),
];

describe('the test run timeline', () => {
  it('says how long each tier ran, and for how long 0, 1 and 2 files held the two workers', () => {
    const timeline = summarizeTimeline(SPANS, 2);
    expect(timeline.wallSeconds).toBe(20);
    expect(timeline.tiers).toEqual([
      { tier: 'core', files: 2, firstStartSeconds: 0, lastEndSeconds: 4, fileSeconds: 6 },
      { tier: 'cli', files: 2, firstStartSeconds: 2, lastEndSeconds: 20, fileSeconds: 20 },
    ]);
    // Two files from 0 to 6 s, then the long file alone until 20 s.
    expect(timeline.secondsAtConcurrency).toEqual([0, 14, 6]);
    expect(timeline.emptySlotSeconds).toBe(14);
  });

  it('names the files running once fewer files than workers were left, to the end', () => {
    const { tail } = summarizeTimeline(SPANS, 2);
    expect(tail).toEqual({ startSeconds: 6, files: ['test/build/long.test.ts'] });
    // A run that filled its workers to the last second has no such stretch.
    const full = summarizeTimeline([span('one', 'core', 0, 5), span('two', 'core', 0, 5)], 2);
    expect(full.tail.files).toEqual([]);
    expect(full.emptySlotSeconds).toBe(0);
  });

  it('lists each tier slowest first, the order LONGEST_FILES keeps', () => {
    const { slowest } = summarizeTimeline(SPANS, 2);
    expect(slowest.cli).toEqual([
      { file: 'test/build/long.test.ts', seconds: 16 },
      { file: 'test/build/short.test.ts', seconds: 4 },
    ]);
    const lines = describeTimeline(summarizeTimeline(SPANS, 2), 2);
    expect(lines).toContain('  worker-seconds with no file: 14');
    expect(lines).toContain(`${' '.repeat(8)}16 s  test/build/long.test.ts`);
  });

  it('describes an empty run without failing', () => {
    expect(summarizeTimeline([], 3)).toMatchObject({ wallSeconds: 0, tiers: [], emptySlotSeconds: 0 });
  });
});
