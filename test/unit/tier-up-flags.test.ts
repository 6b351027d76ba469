// The V8 flags the CLI sets while it runs: `serve` once its first answers are out
// (src/cli/tier-up-sooner.ts), `build` from the start when the project was built before, kept
// while discovery finds an edit of a few documents and given back otherwise (src/cli/tier-up-later.ts). The running Node's V8 takes each of them without a word on stderr (V8
// prints an error there for a flag it lacks, which a stdio client or a build's user would see), and
// an engine not known gets none.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  BUILD_INTERRUPT_BUDGET,
  isEditOfFew,
  laterTierUpFlags,
  MANY_CACHED_CALLS,
  tieringAfter,
  USUAL_INTERRUPT_BUDGET,
  usualTierUpFlags,
} from '../../src/cli/tier-up-later.js';
import { soonerTierUpFlags } from '../../src/cli/tier-up-sooner.js';

let v8Options: string | undefined;
/** The running Node's `--v8-options` text, read once for the file's tests. */
function readV8Options(): string {
  v8Options ??= spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
  return v8Options;
}

/** Sets `flags` after the start, as the CLI does, and checks V8 took each as one of its own. */
function expectTakenSilently(flags: string[]): void {
  const script = `const v8 = require('node:v8');
for (const flag of ${JSON.stringify(flags)}) v8.setFlagsFromString(flag);
process.stdout.write('set');`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe('set');
  const options = readV8Options();
  for (const flag of flags) expect(options).toContain(`${flag.slice(0, flag.indexOf('='))} (`);
}

describe('the sooner tier-up of a server', () => {
  it("sets flags the running Node's V8 takes silently", () => {
    const flags = soonerTierUpFlags(process.versions.v8);
    expect(flags.length).toBeGreaterThan(0);
    expectTakenSilently(flags);
  });

  it('sets nothing on an engine whose tiering flags are not known', () => {
    for (const version of ['11.8.172.17', '14.1.146.11-node.12', '10.2.154.26', 'unknown'])
      expect(soonerTierUpFlags(version)).toEqual([]);
    expect(soonerTierUpFlags('11.3.244.8-node.30')).toEqual(['--interrupt-budget=2048']);
    expect(soonerTierUpFlags('13.6.233.17-node.53')).toEqual([
      '--invocation-count-for-maglev=50',
      '--invocation-count-for-turbofan=150',
    ]);
  });
});

describe('the later tier-up of a build', () => {
  it("sets flags the running Node's V8 takes silently", () => {
    const flags = laterTierUpFlags(process.versions.v8);
    // Node 20's engine is the one this is for; a later Node gets none (the next test).
    if (!process.versions.v8.startsWith('11.3.')) return;
    expect(flags).toEqual([`--interrupt-budget=${BUILD_INTERRUPT_BUDGET}`]);
    expectTakenSilently(flags);
  });

  it('sets nothing on an engine whose tiering flags are not known', () => {
    for (const version of ['11.8.172.17', '12.4.254.21-node.33', '13.6.233.17-node.53', '10.2.154.26', 'unknown'])
      expect(laterTierUpFlags(version)).toEqual([]);
    expect(laterTierUpFlags('11.3.244.8-node.30')).toEqual([`--interrupt-budget=${BUILD_INTERRUPT_BUDGET}`]);
  });

  it("gives back V8's own budget with a flag the running Node's V8 takes silently", () => {
    if (!process.versions.v8.startsWith('11.3.')) return;
    const flags = usualTierUpFlags(process.versions.v8);
    expect(flags).toEqual([`--interrupt-budget=${USUAL_INTERRUPT_BUDGET}`]);
    expectTakenSilently(flags);
    // The budget given back is the engine's own default.
    expect(readV8Options()).toContain(`default: --interrupt-budget=${USUAL_INTERRUPT_BUDGET}\n`);
  });

  it('gives nothing back on an engine whose tiering flags are not known', () => {
    for (const version of ['11.8.172.17', '13.6.233.17-node.53', 'unknown'])
      expect(usualTierUpFlags(version)).toEqual([]);
  });

  it('stays later through an edit of a few documents, and goes back once scripts run, many calls replay or many documents changed', () => {
    expect(tieringAfter({ type: 'plan', totalRuns: 0, cachedRuns: 2 })).toBeUndefined();
    expect(tieringAfter({ type: 'plan', totalRuns: 1, cachedRuns: 0 })).toBe('usual');
    expect(tieringAfter({ type: 'plan', totalRuns: 0, cachedRuns: MANY_CACHED_CALLS })).toBe('usual');
    expect(tieringAfter({ type: 'documents', parsed: 1, reused: 9_999 })).toBe('later');
    expect(tieringAfter({ type: 'documents', parsed: 10_000, reused: 0 })).toBe('usual');
    expect(tieringAfter({ type: 'documents', parsed: 500, reused: 500 })).toBe('usual');
  });

  it('is for an edit of a few documents only', () => {
    expect(isEditOfFew({ parsed: 1, reused: 9_999 })).toBe(true);
    expect(isEditOfFew({ parsed: 0, reused: 40 })).toBe(true);
    expect(isEditOfFew({ parsed: 10_000, reused: 0 })).toBe(false);
    expect(isEditOfFew({ parsed: 500, reused: 500 })).toBe(false);
    expect(isEditOfFew({ parsed: 0, reused: 0 })).toBe(false);
  });
});
