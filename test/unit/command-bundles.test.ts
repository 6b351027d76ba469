// The command bundles (scripts/bundle-cli.mjs) and the start that picks one (src/cli/start-cli.ts)
// name the same commands, every command but serve (which has its own bundle): a command the start
// looks for and the build never bundled would run from the whole command line's bundle
// (staticmcp-command-line.cjs), slower but right, so only this check would notice.
import { describe, expect, it } from 'vitest';
import { COMMAND_BUNDLE_PATHS } from '../../scripts/bundle-cli.mjs';
import { COMMAND_NAMES } from '../../src/cli/command-list.js';
import { BUNDLED_COMMANDS } from '../../src/cli/start-cli.js';

describe('the command bundles', () => {
  it('are one per command but serve, under the names the start looks for', () => {
    const others = COMMAND_NAMES.filter((name) => name !== 'serve').sort();
    expect([...BUNDLED_COMMANDS].sort()).toEqual(others);
    expect(Object.keys(COMMAND_BUNDLE_PATHS).sort()).toEqual(others);
    for (const name of others) expect(COMMAND_BUNDLE_PATHS[name]).toBe(`cli/staticmcp-${name}.cjs`);
  });
});
