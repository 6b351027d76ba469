// Names a tree or a project supplies reach a terminal escaped: `check` and `build` once printed a
// file named `\x1b[2J…` (clear the screen), an OSC title sequence or a bidi override raw on stderr,
// so checking a downloaded tree could rewrite what the terminal shows, and serve logged URIs raw. Now every human line is
// printed with its control characters as visible escapes; --json output is unchanged.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { resourceFilePath } from '../../src/core/tree/resource-key.js';
import { writeProject, writeTree } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';

const CLEAR_SCREEN = '\x1b[2J';
const SET_TITLE = '\x1b]0;pwned\x07';
const RIGHT_TO_LEFT = '\u202e';
/** What a terminal would act on, raw: control characters (ESC, BEL, C1 …) but newline and tab, bidi overrides. */
function rawControlsIn(text: string): string[] {
  return [...text].filter((character) => !'\n\t'.includes(character) && /[\p{Cc}\p{Bidi_Control}]/u.test(character));
}

describe('names with terminal escape sequences', () => {
  it('check prints a file name and a URI from the tree escaped', async () => {
    const tree = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'strange', version: '1' },
        capabilities: {
          tools: [],
          resources: [{ uri: `file:///notes${CLEAR_SCREEN}${RIGHT_TO_LEFT}.txt`, name: 'notes' }],
        },
      },
    });
    mkdirSync(path.join(tree, 'tools'));
    writeFileSync(path.join(tree, 'tools', `${CLEAR_SCREEN}${SET_TITLE}evil.json`), '{}');
    const { code, stderr } = await runCli(['check', tree]);
    expect(code).toBe(1);
    expect(rawControlsIn(stderr)).toEqual([]);
    expect(stderr).toContain('tools/\\x1b[2J\\x1b]0;pwned\\x07evil.json');
    expect(stderr).toContain('file:///notes\\x1b[2J\\u202e.txt');
    // One problem, one line: a newline in a name cannot forge a line of its own.
    expect(stderr.split('\n').filter((line) => line.includes('evil.json'))).toHaveLength(1);
  });

  it('serve logs a URI from the tree and the client escaped', async () => {
    const uri = `file:///notes${CLEAR_SCREEN}${SET_TITLE}.txt`;
    const tree = await writeTree({
      'mcp.json': {
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'strange', version: '1' },
        capabilities: { tools: [], resources: [{ uri, name: 'notes' }] },
      },
      // Listed but not JSON: the read fails, and the bridge says so on stderr, naming the URI.
      [resourceFilePath(uri)]: 'not json',
    });
    const bridge = new RawBridge([tree]);
    await bridge.initialize();
    expect((await bridge.request('resources/read', { uri })).error?.code).toBe(-32603);
    expect(await bridge.close()).toBe(0);
    expect(bridge.stderr).toContain('resources/read file:///notes\\x1b[2J\\x1b]0;pwned\\x07.txt');
    expect(rawControlsIn(bridge.stderr)).toEqual([]);
  });

  it('build prints a tool file name from the project escaped', async () => {
    const project = await writeProject({
      [`tools/e${CLEAR_SCREEN}vil`]: { script: '#!/bin/sh\necho not-json\n' },
      [`tools/t${SET_TITLE}`]: { script: '#!/bin/sh\necho not-json\n' },
    });
    const { stderr } = await runCli(['build', project]);
    expect(rawControlsIn(stderr)).toEqual([]);
    expect(stderr).toContain('tools/e\\x1b[2Jvil');
    expect(stderr).toContain('tools/t\\x1b]0;pwned\\x07');
  });

  it('a refused option value is printed escaped and, when huge, by its ends and length', async () => {
    const { code, stderr } = await runCli(['serve', '--http', '--port', `${CLEAR_SCREEN}${'9'.repeat(5000)}`]);
    expect(code).toBe(2);
    expect(rawControlsIn(stderr)).toEqual([]);
    expect(stderr).toContain('--port \\x1b[2J9999');
    expect(stderr).toContain('[5007 characters]');
    expect(stderr.length).toBeLessThan(1000);
  });
});
