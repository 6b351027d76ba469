import { describe, expect, it } from 'vitest';
import { parseBuildArgv } from '../../src/cli/parse-build-argv.js';

describe('parseBuildArgv (the build command line without yargs)', () => {
  it('reads an ordinary build command line', () => {
    expect(parseBuildArgv(['my-server', '--out', 'site', '--concurrency', '4', '--force', '--json'])).toEqual({
      project: 'my-server',
      out: 'site',
      tools: undefined,
      concurrency: 4,
      force: true,
      json: true,
    });
    expect(parseBuildArgv(['--tools', './scripts'])).toEqual({
      project: '.',
      out: undefined,
      tools: './scripts',
      concurrency: undefined,
      force: false,
      json: false,
    });
  });

  it.each([
    [['--help']],
    [['-h']],
    [['--version']],
    [['--bogus']],
    [['a', 'b']],
    [['--concurrency', '0']],
    [['--concurrency', 'many']],
    [['--out']],
  ])('leaves %j to yargs, which explains usage and errors', (argv) => {
    expect(parseBuildArgv(argv)).toBeNull();
  });
});
