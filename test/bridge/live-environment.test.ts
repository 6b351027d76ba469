// What a live script sees as MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY: the folder the build took its
// scripts from (recorded in the tree when it is not `tools`), not the script's own first path segment.
// Projects are built in-process (the build command's decision); serve's session answers in-process
// (InProcessBridge: the sources and live runner serve opens), and once as a real serve process.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InProcessBridge } from '../helpers/in-process-bridge.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import { writeProject } from '../helpers/projects.js';
import { type JsonRpcLines, RawBridge } from '../helpers/raw-bridge.js';
import { firstText } from '../helpers/results.js';

const WHERE = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Says where the tools are"}'
  echo '{"x": {"description": "Anything", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s' "$MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY"
`;

/** The live answer of the project's one tool (named by its path under the tools folder) through `bridge`, closed after. */
async function liveAnswer(bridge: JsonRpcLines & { close(): Promise<unknown> }): Promise<string> {
  try {
    await bridge.initialize();
    const tools = (await bridge.request('tools/list')).result?.tools as { name: string }[];
    expect(tools).toHaveLength(1);
    const answer = await bridge.request('tools/call', { name: tools[0]?.name, arguments: { x: 'live' } });
    return firstText(answer.result);
  } finally {
    await bridge.close();
  }
}

describe('live runs', () => {
  it('get the tools folder of a project built from tools/', async () => {
    const project = await writeProject({ 'tools/nested/where': { script: WHERE } });
    await buildTreeInProcess(project);
    expect(await liveAnswer(await InProcessBridge.open(project))).toBe(path.join(project, 'tools'));
  });

  it('get the --tools folder the tree was built from, however deep it is', async () => {
    const project = await writeProject({ 'src/scripts/where': { script: WHERE } });
    await buildTreeInProcess(project, { toolsDir: path.join(project, 'src/scripts') });
    expect(await liveAnswer(await InProcessBridge.open(project))).toBe(path.join(project, 'src/scripts'));
  });

  it('get it in a serve process too', async () => {
    const project = await writeProject({ 'src/scripts/where': { script: WHERE } });
    await buildTreeInProcess(project, { toolsDir: path.join(project, 'src/scripts') });
    expect(await liveAnswer(new RawBridge([project]))).toBe(path.join(project, 'src/scripts'));
  });
});
