// What a run's schedule looked like, from when each test file held a worker: how long each tier
// ran, how many files ran at once, the time a worker slot stood empty (and the stretch at the end
// when fewer files than workers were left), and the slowest files of each tier, the order
// LONGEST_FILES (test-tiers.ts) should list them in. test/timeline-reporter.ts gathers the spans
// from vitest and prints this; it is pure so a unit test can give it spans of its own.

/** One test file's hold on a worker: from the worker taking it (setup files and imports included) to its end. */
export interface FileSpan {
  file: string;
  tier: string;
  startMs: number;
  endMs: number;
}

export interface TierSpan {
  tier: string;
  files: number;
  /** From the run's first file start, in seconds. */
  firstStartSeconds: number;
  lastEndSeconds: number;
  /** The sum of its files' spans. */
  fileSeconds: number;
}

export interface Timeline {
  wallSeconds: number;
  tiers: TierSpan[];
  /** Seconds during which exactly `index` files held a worker. */
  secondsAtConcurrency: number[];
  /** Worker-seconds with no file: Σ over time of (workers − files running), while below `workers`. */
  emptySlotSeconds: number;
  /** The run's last stretch with fewer files running than workers: its start and the files in it. */
  tail: { startSeconds: number; files: string[] };
  /** Per tier, its files slowest first, with their spans in seconds. */
  slowest: Record<string, { file: string; seconds: number }[]>;
}

const round = (value: number): number => Math.round(value * 10) / 10;

/** The timeline of `spans` run on `workers` workers. */
export function summarizeTimeline(spans: readonly FileSpan[], workers: number): Timeline {
  if (spans.length === 0)
    return {
      wallSeconds: 0,
      tiers: [],
      secondsAtConcurrency: [],
      emptySlotSeconds: 0,
      tail: { startSeconds: 0, files: [] },
      slowest: {},
    };
  const originMs = Math.min(...spans.map((span) => span.startMs));
  const endMs = Math.max(...spans.map((span) => span.endMs));
  const seconds = (ms: number): number => round((ms - originMs) / 1000);

  const tiers: TierSpan[] = [];
  const slowest: Timeline['slowest'] = {};
  for (const tier of [...new Set(spans.map((span) => span.tier))]) {
    const own = spans.filter((span) => span.tier === tier);
    tiers.push({
      tier,
      files: own.length,
      firstStartSeconds: seconds(Math.min(...own.map((span) => span.startMs))),
      lastEndSeconds: seconds(Math.max(...own.map((span) => span.endMs))),
      fileSeconds: round(own.reduce((sum, span) => sum + (span.endMs - span.startMs), 0) / 1000),
    });
    slowest[tier] = own
      .map((span) => ({ file: span.file, seconds: round((span.endMs - span.startMs) / 1000) }))
      .sort((left, right) => right.seconds - left.seconds || left.file.localeCompare(right.file));
  }

  // Sweep the starts and ends in time order; at equal times an end goes first (a slot handed on).
  const events = spans
    .flatMap((span) => [
      { atMs: span.startMs, change: 1 },
      { atMs: span.endMs, change: -1 },
    ])
    .sort((left, right) => left.atMs - right.atMs || left.change - right.change);
  const secondsAtConcurrency: number[] = [];
  let running = 0;
  let previousMs = originMs;
  let emptySlotMs = 0;
  let tailStartMs = endMs;
  for (const event of events) {
    const lengthMs = event.atMs - previousMs;
    secondsAtConcurrency[running] = (secondsAtConcurrency[running] ?? 0) + lengthMs / 1000;
    if (running < workers) emptySlotMs += (workers - running) * lengthMs;
    running += event.change;
    previousMs = event.atMs;
    // The tail starts at the last moment the run went below `workers` without coming back.
    if (running < workers && event.change < 0 && tailStartMs === endMs) tailStartMs = event.atMs;
    if (running >= workers) tailStartMs = endMs;
  }
  return {
    wallSeconds: seconds(endMs),
    tiers,
    secondsAtConcurrency: Array.from(secondsAtConcurrency, (value) => round(value ?? 0)),
    emptySlotSeconds: round(emptySlotMs / 1000),
    tail: {
      startSeconds: seconds(tailStartMs),
      files: spans
        .filter((span) => span.endMs > tailStartMs)
        .sort((left, right) => left.startMs - right.startMs)
        .map((span) => span.file),
    },
    slowest,
  };
}

/** The timeline as the lines the reporter prints; `listed` is LONGEST_FILES, `top` files per tier. */
export function describeTimeline(timeline: Timeline, workers: number, top = 12): string[] {
  const lines = [
    `Timeline: ${timeline.wallSeconds} s from the first file's start to the last file's end, ${workers} workers`,
    ...timeline.tiers.map(
      (tier) =>
        `  ${tier.tier.padEnd(9)} ${String(tier.files).padStart(4)} files  ${tier.firstStartSeconds} s to ${tier.lastEndSeconds} s  ${tier.fileSeconds} file-seconds`,
    ),
    `  seconds with 0, 1, 2, … files running: ${timeline.secondsAtConcurrency.join(', ')}`,
    `  worker-seconds with no file: ${timeline.emptySlotSeconds}`,
    `  the end, from ${timeline.tail.startSeconds} s with fewer files than workers: ${timeline.tail.files.join(', ')}`,
  ];
  for (const [tier, files] of Object.entries(timeline.slowest)) {
    lines.push(`  slowest of ${tier}:`);
    for (const { file, seconds } of files.slice(0, top)) lines.push(`    ${String(seconds).padStart(6)} s  ${file}`);
  }
  return lines;
}
