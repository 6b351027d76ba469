// What a live script sees as MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY: the folder the build took its
// scripts from (recorded in the tree when it is not `tools`), not the script's own first path segment.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { writeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { firstText } from '../helpers/results.js';

const WHERE = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Says where the tools are"}'
  echo '{"x": {"description": "Anything", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s' "$MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY"
`;

async function liveAnswer(project: string): Promise<string> {
  const bridge = new RawBridge([project]);
  await bridge.initialize();
  const answer = await bridge.request('tools/call', { name: 'where', arguments: { x: 'live' } });
  await bridge.close();
  return firstText(answer.result);
}

describe('live runs', () => {
  it('get the tools folder of a project built from tools/', async () => {
    const project = await writeProject({ 'tools/nested/where': { script: WHERE } });
    execFileSync(process.execPath, [CLI, 'build', project], { stdio: 'ignore' });
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const tools = (await bridge.request('tools/list')).result?.tools as { name: string }[];
    await bridge.close();
    const name = tools[0]?.name;
    const other = new RawBridge([project]);
    await other.initialize();
    const answer = await other.request('tools/call', { name, arguments: { x: 'live' } });
    await other.close();
    expect((answer.result!.content as { text: string }[])[0]?.text).toBe(path.join(project, 'tools'));
  });

  it('get the --tools folder the tree was built from, however deep it is', async () => {
    const project = await writeProject({ 'src/scripts/where': { script: WHERE } });
    execFileSync(process.execPath, [CLI, 'build', project, '--tools', path.join(project, 'src/scripts')], {
      stdio: 'ignore',
    });
    expect(await liveAnswer(project)).toBe(path.join(project, 'src/scripts'));
  });
});
