// The options of a build (`buildProject`), and for each one, decided once here, what it does to
// the tree: the up-to-date fast path (up-to-date.ts) replays a recorded build only when every
// option that changes the output had the same value. A new option must be given its effect below
// (the table must name every option: leaving one out is a type error), and test/build/up-to-date
// changes every 'output' option and expects a rebuild. CONTRIBUTING "Adding a build option".
import type { TreeFileReuse } from '../tree-writer/file-reuse.js';
import type { BuildEvent } from './build-report.js';
import type { ShardSpec } from './shard-of-call.js';

export interface BuildOptions {
  projectRoot: string;
  /** A tools folder other than `<project>/tools` (a bare folder of scripts). */
  toolsDir?: string;
  /** The output folder; absent: `out` of staticmcp.json, else `<project>/dist`. */
  outDir?: string;
  concurrency?: number;
  /** Ignore the cache: run every script again. */
  force?: boolean;
  /** Run only this shard's calls and write a part for `staticmcp merge` (see shard-part.ts). */
  shard?: ShardSpec;
  onEvent?: (event: BuildEvent) => void;
  /** Aborting ends the running scripts and stops the build before it swaps anything in. */
  signal?: AbortSignal;
  /** Link the files an earlier build through the same reuse left unchanged (dev's rebuilds, file-reuse.ts). */
  fileReuse?: TreeFileReuse;
  /** Call files the tree may hold before it needs packs (`0`: never); absent: `limits.maxCallFiles`. */
  maxCallFiles?: number;
  /** A built website's folder (`--site`), in place of staticmcp.json's `site` folder (its selector kept). */
  siteDir?: string;
}

/**
 * - `output`: the tree depends on the value, so it is part of the fingerprint;
 * - `output-path`: the same, for a path (resolved, so `dist` and `./dist` are one value);
 * - `same-output`: changes how the build runs, never a byte of the tree;
 * - `never-replayed`: a build given it (set and not false) always runs (`force`: it asks to; `shard`:
 *   it writes a part, which no record describes).
 */
export type BuildOptionEffect = 'output' | 'output-path' | 'same-output' | 'never-replayed';

export const BUILD_OPTION_EFFECTS = {
  // The server's name is the project folder's.
  projectRoot: 'output-path',
  toolsDir: 'output-path',
  outDir: 'output-path',
  concurrency: 'same-output',
  force: 'never-replayed',
  shard: 'never-replayed',
  onEvent: 'same-output',
  signal: 'same-output',
  fileReuse: 'same-output',
  // Decides whether the tree is packed (pack-call-files.ts).
  maxCallFiles: 'output',
  siteDir: 'output-path',
} as const satisfies Record<keyof BuildOptions, BuildOptionEffect>;

type EffectOf<Name extends keyof BuildOptions> = (typeof BUILD_OPTION_EFFECTS)[Name];

/** The options whose value the tree depends on (what the fingerprint covers). */
export type OutputOption = {
  [Name in keyof BuildOptions]-?: EffectOf<Name> extends 'output' | 'output-path' ? Name : never;
}[keyof BuildOptions];
