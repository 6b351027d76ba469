// Live calls are not starved by a small fixed pool: of 100 concurrent calls, the project's
// limits.liveConcurrency (50) run at once, no more, and the rest once they end; and a call that waits for a slot longer
// than its own timeout is answered with an isError result that says why, not left hanging. Nor by
// one client: over HTTP each client (peer address, plus Origin) gets at most 4 live runs at once in
// both protocol eras, so another client's call still finds a global slot (issue 21, item 7).
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpServe, post, sseMessages } from '../helpers/http-serve.js';
import { waitUntil } from '../helpers/processes.js';
import { writeProject } from '../helpers/projects.js';
import { modernHeaders } from '../protocol-table/drivers.js';
import { MODERN_META } from '../protocol-table/modern-cases.js';
import { runRefusedInProcess } from '../helpers/in-process-cli.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { firstText } from '../helpers/results.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';

/**
 * A live-only tool that echoes `n` once `gateFolder` holds a file named release, after marking
 * its start there with `<n>.started`: its run holds a slot for as long as the test wants.
 */
function gatedSleeper(gateFolder: string, timeoutSecs: number): string {
  return `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Waits for the test, then answers", "precompute": false, "timeoutSecs": ${timeoutSecs}}'
  echo '{"n": {"description": "Echoed back", "required": true, "value_type": "integer"}}' >&2
  exit 0
fi
: > '${gateFolder}/'"$n".started
while [ ! -e '${gateFolder}/release' ]; do sleep 1; done
echo "done $n"
`;
}

/** A live-only tool that sleeps, then echoes `n`; with `startedMarker`, it first creates that file. */
function sleeper(seconds: number, timeoutSecs: number, startedMarker?: string): string {
  return `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Sleeps, then answers", "precompute": false, "timeoutSecs": ${timeoutSecs}}'
  echo '{"n": {"description": "Echoed back", "required": true, "value_type": "integer"}}' >&2
  exit 0
fi
${startedMarker ? `: > '${startedMarker}'` : ''}
sleep ${seconds}
echo "done $n"
`;
}

const textOf = (message: { result?: Record<string, unknown> }): string => firstText(message.result);

describe('live calls under load', () => {
  it('runs 50 of 100 concurrent calls at once when the project allows 50, then the rest', async () => {
    const gate = await temporaryFolder();
    const project = await writeProject({
      'tools/nap': { script: gatedSleeper(gate, 60) },
      'staticmcp.json': JSON.stringify({ limits: { liveConcurrency: 50 } }),
    });
    await buildTreeInProcess(project);
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const started = (): number => readdirSync(gate).filter((name) => name.endsWith('.started')).length;
    const answers = Promise.all(
      Array.from({ length: 100 }, (_, n) => bridge.request('tools/call', { name: 'nap', arguments: { n } })),
    );
    // Each run holds its slot until released, so the count is the product's, not the machine's
    // speed: the old fixed pool ran two at a time on two cores (a wall bound stood for this).
    await waitUntil(() => started() >= 50, 40_000, '50 live runs to start');
    // Time for a 51st run to start, if the limit let one through.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started()).toBe(50);
    await fs.writeFile(path.join(gate, 'release'), '');
    for (const [n, answer] of (await answers).entries()) expect(textOf(answer)).toBe(`done ${n}\n`);
    expect(started()).toBe(100);
    await bridge.close();
  });

  it('answers a call that waited for a slot past its timeout with an isError result, and runs the rest', async () => {
    const hogStarted = path.join(await temporaryFolder(), 'hog-started');
    const project = await writeProject({
      'tools/hog': { script: sleeper(3, 10, hogStarted) },
      'tools/quick': { script: sleeper(0, 1) },
    });
    await buildTreeInProcess(project);
    const bridge = new RawBridge([project, '--live-concurrency', '1']);
    await bridge.initialize();
    const hog = bridge.request('tools/call', { name: 'hog', arguments: { n: 1 } });
    // The one slot is the hog's once its script runs (a fixed wait lost that race on a loaded machine).
    await waitUntil(() => existsSync(hogStarted), 10_000, 'the hog call to start');
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
    // The serve command's option check in-process, as the CLI runs it for this line, before it
    // serves (test/cli/command-line.test.ts shows the process prints such a refusal the same).
    const refused = await runRefusedInProcess(['serve', project, '--live-concurrency', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--live-concurrency 0 is not a whole number above 0/);
  });
});

/** A live-only tool that marks that it started (a file named after its argument), then holds its slot. */
const HOLDER = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Holds a live slot", "precompute": false, "timeoutSecs": 60}'
  echo '{"n": {"description": "Names the marker", "required": true, "value_type": "integer"}}' >&2
  exit 0
fi
mkdir -p "$STATICMCP_PROJECT_ROOT/started"
touch "$STATICMCP_PROJECT_ROOT/started/$n"
sleep 60
`;

/** A 2026-07-28 tools/call POSTed from `localAddress`, answered or abandoned (which cancels it). */
function modernCallFrom(port: number, localAddress: string, name: string, n: number) {
  const params = { name, arguments: { n }, _meta: MODERN_META };
  const outgoing = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/mcp',
    localAddress,
    agent: false,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...modernHeaders('tools/call', params),
    },
  });
  outgoing.on('error', () => {});
  outgoing.end(JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params }));
  return { abandon: () => outgoing.destroy() };
}

describe('live runs per client over HTTP', () => {
  it("runs another client's call while one client's 2026-07-28 calls outnumber the global slots", async () => {
    const project = await writeProject({
      'tools/hold': { script: HOLDER },
      'tools/quick': { script: sleeper(0, 2) },
    });
    await buildTreeInProcess(project);
    // Six global slots; the greedy client (127.0.0.2) asks for eight runs at once.
    const server = await HttpServe.start([project, '--live-concurrency', '6']);
    const started = path.join(project, 'started');
    const countStarted = (): number => (existsSync(started) ? readdirSync(started).length : 0);
    const greedy = Array.from({ length: 8 }, (_, n) => modernCallFrom(server.port, '127.0.0.2', 'hold', n));
    try {
      await waitUntil(() => countStarted() >= 4, 15_000, "the greedy client's runs to start");
      // Time for any further run to start, had the greedy client more slots than its own four.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // Another client (this machine's agent, 127.0.0.1) gets a slot at once; before the per-client
      // cap it waited out its 2 s timeout and was told that all 6 slots stayed busy.
      const params = { name: 'quick', arguments: { n: 7 }, _meta: MODERN_META };
      const answer = await post(
        server.port,
        { jsonrpc: '2.0', id: 99, method: 'tools/call', params },
        modernHeaders('tools/call', params),
      );
      const message = answer.headers['content-type']?.startsWith('text/event-stream')
        ? (sseMessages(answer.text).at(-1) as { result?: Record<string, unknown> })
        : answer.json();
      expect(message.result?.isError, answer.text).not.toBe(true);
      expect(textOf(message)).toBe('done 7\n');
      // The greedy client got its four, the rest of its calls wait for them.
      expect(countStarted()).toBe(4);
    } finally {
      for (const call of greedy) call.abandon();
      await server.stop();
    }
  });
});
