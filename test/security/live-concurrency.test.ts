// Live calls are not starved by a small fixed pool: 100 concurrent one-second calls finish in a
// few seconds with the project's limits.liveConcurrency, and a call that waits for a slot longer
// than its own timeout is answered with an isError result that says why, not left hanging.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProjectTree, writeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { firstText } from '../helpers/results.js';

function sleeper(seconds: number, timeoutSecs: number): string {
  return `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Sleeps, then answers", "precompute": false, "timeoutSecs": ${timeoutSecs}}'
  echo '{"n": {"description": "Echoed back", "required": true, "value_type": "integer"}}' >&2
  exit 0
fi
sleep ${seconds}
echo "done $n"
`;
}

const textOf = (message: { result?: Record<string, unknown> }): string => firstText(message.result);

describe('live calls under load', () => {
  it('answers 100 concurrent one-second calls within seconds when the project allows 50 at once', async () => {
    const project = await writeProject({
      'tools/nap': { script: sleeper(1, 30) },
      'staticmcp.json': JSON.stringify({ limits: { liveConcurrency: 50 } }),
    });
    buildProjectTree(project);
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const startedAt = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, n) => bridge.request('tools/call', { name: 'nap', arguments: { n } })),
    );
    const elapsedMs = Date.now() - startedAt;
    for (const [n, answer] of answers.entries()) expect(textOf(answer)).toBe(`done ${n}\n`);
    // Two slots (the old fixed pool on two cores) needed 50 s; 50 slots need about 2.
    expect(elapsedMs).toBeLessThan(20_000);
    await bridge.close();
  });

  it('answers a call that waited for a slot past its timeout with an isError result, and runs the rest', async () => {
    const project = await writeProject({
      'tools/hog': { script: sleeper(3, 10) },
      'tools/quick': { script: sleeper(0, 1) },
    });
    buildProjectTree(project);
    const bridge = new RawBridge([project, '--live-concurrency', '1']);
    await bridge.initialize();
    const hog = bridge.request('tools/call', { name: 'hog', arguments: { n: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const queuedAt = Date.now();
    const quick = await bridge.request('tools/call', { name: 'quick', arguments: { n: 2 } });
    expect(quick.result?.isError, JSON.stringify(quick)).toBe(true);
    expect(textOf(quick)).toMatch(/did not start: all 1 live-run slots stayed busy for its whole timeout \(1000 ms\)/);
    expect(Date.now() - queuedAt).toBeLessThan(2_500);
    expect(textOf(await hog)).toBe('done 1\n');
    expect(textOf(await bridge.request('tools/call', { name: 'quick', arguments: { n: 3 } }))).toBe('done 3\n');
    await bridge.close();
  });

  it('refuses a --live-concurrency that is not a positive number', async () => {
    const project = await writeProject({ 'tools/quick': { script: sleeper(0, 1) } });
    await fs.mkdir(path.join(project, 'dist'), { recursive: true });
    const bridge = new RawBridge([project, '--live-concurrency', '0']);
    expect(await bridge.exited).toBe(2);
    expect(bridge.stderr).toMatch(/--live-concurrency 0 is not a whole number above 0/);
  });
});
