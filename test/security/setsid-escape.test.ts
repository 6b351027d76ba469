// A script that starts a child in a new session (setsid), outside its process group, and then
// hangs: when the run times out or is cancelled, live or at build time, the escaped child is
// killed too, and the server keeps answering.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../helpers/processes.js';
import { writeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { buildInProcess, buildTreeInProcess } from '../helpers/in-process-build.js';

/** Leaves a setsid sleeper (its pid in <label>.pid), then hangs until killed. */
function escapingScript(precompute: boolean): string {
  return `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Escapes with setsid, then hangs", "timeoutSecs": 1${precompute ? '' : ', "precompute": false'}}'
  echo '{"label": {"description": "Names the pid file", "required": true, "value_type": ${precompute ? '{"enum": ["built"]}' : '"string"'}}}' >&2
  exit 0
fi
setsid sh -c 'echo $$ > "$STATICMCP_PROJECT_ROOT/$0.pid"; exec sleep 300' "$label" &
sleep 300
`;
}

async function pidFrom(file: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    if (Date.now() > deadline) throw new Error(`${file} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Number(readFileSync(file, 'utf8').trim());
}

async function waitUntilDead(pid: number): Promise<boolean> {
  const deadline = Date.now() + 8_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return !isAlive(pid);
}

describe('a child that escaped with setsid', () => {
  it('dies with a live run that timed out, and the bridge keeps answering', async () => {
    const project = await writeProject({ 'tools/escape': { script: escapingScript(false) } });
    await buildTreeInProcess(project);
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const answer = await bridge.request('tools/call', { name: 'escape', arguments: { label: 'timeout' } });
    expect(answer.result?.isError).toBe(true);
    expect(JSON.stringify(answer.result)).toMatch(/timed out/);
    const escaped = await pidFrom(path.join(project, 'timeout.pid'));
    expect(await waitUntilDead(escaped)).toBe(true);
    expect((await bridge.request('ping')).result).toEqual({});
    await bridge.close();
  });

  it('dies with a live run that was cancelled', async () => {
    const project = await writeProject({ 'tools/escape': { script: escapingScript(false) } });
    await buildTreeInProcess(project);
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    bridge.send({
      jsonrpc: '2.0',
      id: 'c',
      method: 'tools/call',
      params: { name: 'escape', arguments: { label: 'cancel' } },
    });
    const escaped = await pidFrom(path.join(project, 'cancel.pid'));
    bridge.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } });
    expect(await waitUntilDead(escaped)).toBe(true);
    await bridge.close();
  });

  it('dies with a build-time run that timed out', async () => {
    const project = await writeProject({ 'tools/escape': { script: escapingScript(true) } });
    expect((await buildInProcess(project)).code).not.toBe(0);
    const escaped = await pidFrom(path.join(project, 'built.pid'));
    expect(await waitUntilDead(escaped)).toBe(true);
  });
});
