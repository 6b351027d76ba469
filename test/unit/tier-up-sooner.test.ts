// The V8 flags `serve` sets once its first answers are out (src/cli/tier-up-sooner.ts): the running
// Node's V8 takes each of them without a word on stderr (V8 prints an error there for a flag it
// lacks, which a stdio client would show its user), and an engine not known gets none.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { soonerTierUpFlags } from '../../src/cli/tier-up-sooner.js';

describe('the sooner tier-up of a server', () => {
  it("sets flags the running Node's V8 takes silently", () => {
    const flags = soonerTierUpFlags(process.versions.v8);
    expect(flags.length).toBeGreaterThan(0);
    // Set after the start, as serve does; a flag V8 lacks is reported on stderr ("unrecognized flag").
    const script = `const v8 = require('node:v8');
for (const flag of ${JSON.stringify(flags)}) v8.setFlagsFromString(flag);
process.stdout.write('set');`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('set');
    // And V8 lists each as one of its own options.
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    for (const flag of flags) expect(options).toContain(`${flag.slice(0, flag.indexOf('='))} (`);
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
