// The order `vitest run` starts test files in (vitest.config.ts). The `core` tier first: its files
// need nothing compiled, so they keep the cores busy while the global setup compiles src/ and
// builds fixtures/example beside them (test/global-setup.ts), which every other file waits for.
// Then the longest first, so the run does not end waiting on one long file started last. Vitest's
// own order puts the tiers in name order (cli, core, runtimes): the runtimes tier, whose files are
// the longest and mostly wait on child processes, would start after every cli file. Here the tiers
// go core, runtimes, cli; within a tier the files LONGEST_FILES (test/helpers/test-tiers.ts) names
// come first, in its order (a fresh clone has no timings of its own), then vitest's order: the
// longest of the last runs where vitest kept their timings, otherwise the largest file. The order
// changes no test's outcome.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONGEST_FILES, type Tier } from './helpers/test-tiers.js';

const TIER_ORDER: readonly Tier[] = ['core', 'runtimes', 'cli'];

/** Where a file goes: its tier's place, then its place in LONGEST_FILES (after them when not listed). */
function rankFile(spec: TestSpecification, root: string): [number, number] {
  const tier = TIER_ORDER.indexOf(spec.project.name as Tier);
  const relative = spec.moduleId.startsWith(`${root}/`) ? spec.moduleId.slice(root.length + 1) : spec.moduleId;
  const listed = LONGEST_FILES.indexOf(relative);
  return [tier < 0 ? TIER_ORDER.length : tier, listed < 0 ? LONGEST_FILES.length : listed];
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root.replace(/\/$/, '');
    const ranks = new Map(files.map((spec) => [spec, rankFile(spec, root)]));
    // Array sort is stable: files of equal rank keep vitest's order.
    return (await super.sort(files)).sort((a, b) => {
      const [tierA = 0, listedA = 0] = ranks.get(a) ?? [];
      const [tierB = 0, listedB = 0] = ranks.get(b) ?? [];
      return tierA - tierB || listedA - listedB;
    });
  }
}
