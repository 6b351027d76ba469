// What a build did, as data: the CLI prints it for humans or as JSON; tests read it.

export interface RunFailure {
  arguments: Record<string, unknown>;
  message: string;
  /** The first lines of stderr, to show without opening anything. */
  stderrHead: string;
}

export interface ToolReport {
  name: string;
  script: string;
  /** Call files written. */
  precomputed: number;
  /** Of those, answers the script gave with a non-zero exit (isError results). */
  errorResults: number;
  /** Argument sets answered from the cache, without running the script. */
  cached: number;
  /** Time the tool's script ran in this build, summed over its runs (runs overlap, so this can exceed the build's). */
  scriptMs: number;
  /** Whether calls that miss the tree are served by running the script. */
  live: boolean;
  liveReason?: string;
  /** Calls that failed; `failures` lists the first of them (tool-report.ts caps every list). */
  failedRuns: number;
  failures: RunFailure[];
  warnings: string[];
  logLines: { level: string; message: string }[];
}

export interface BuildProblem {
  path: string;
  message: string;
}

export interface BuildReport {
  ok: boolean;
  outDir: string;
  /** True when the tree on disk already held exactly this output and nothing was written. */
  unchanged: boolean;
  tools: ToolReport[];
  /** Scripts and files that could not become part of the tree, with why. */
  failures: BuildProblem[];
  /** Things that were tolerated or skipped. */
  warnings: BuildProblem[];
  resources: number;
  files: number;
  contentHash: string;
  /**
   * The search index, when the tree has one: `written` anew, or `reused` (the previous build's
   * files linked as they were, its documents being the same: search-index-reuse.ts).
   */
  searchIndex?: 'written' | 'reused';
  /**
   * Resource files under resources/: Markdown documents parsed by this build, and documents whose
   * parse came from the project's document cache, their bytes unchanged (document-cache.ts).
   */
  documents?: { parsed: number; reused: number };
  durationMs: number;
  /** Set by `build --shard I/N`: the tree is a part for `staticmcp merge`, holding this shard's calls. */
  shard?: { index: number; count: number };
}

export type BuildEvent =
  | { type: 'plan'; totalRuns: number; cachedRuns: number }
  /** A result the plan counted as cached did not read back (a damaged cache record): it runs again. */
  | { type: 'rerun'; totalRuns: number; tool: string }
  | { type: 'run'; done: number; totalRuns: number; tool: string }
  /** Discovery reused documents from the previous build (an edit): how many it parsed and reused. */
  | { type: 'documents'; parsed: number; reused: number }
  /** What the build did first about a tree an interrupted build left (interrupted-write.ts). */
  | { type: 'recovered'; note: string };
