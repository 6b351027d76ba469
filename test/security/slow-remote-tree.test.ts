// A remote tree whose host drips one byte every half second: the read of that file fails after
// the total deadline (an idle timeout alone never fires), calls for other files are answered at
// once while a crowd of calls waits on the slow one, and closing stdin ends `serve` even while
// the slow download is in flight.
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureProject } from '../helpers/projects.js';
import { runRefusedInProcess } from '../helpers/in-process-cli.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { firstText } from '../helpers/results.js';

const SLOW_FILE = '/tools/greet/fr/false.json';
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  const root = path.join(buildFixtureProject('fixtures/example'), 'dist');
  server = http.createServer(async (request, response) => {
    const relative = decodeURIComponent(new URL(request.url!, 'http://x').pathname);
    if (relative === SLOW_FILE) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000000' });
      const drip = setInterval(() => response.write(' '), 500);
      response.on('close', () => clearInterval(drip));
      return;
    }
    try {
      response.writeHead(200, { 'content-type': 'application/json' }).end(await fs.readFile(path.join(root, relative)));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const textOf = (message: { result?: Record<string, unknown> }): string => firstText(message.result);

describe('a remote tree that drips bytes', () => {
  it('fails the slow file at the deadline while other files are answered at once', async () => {
    const bridge = new RawBridge([baseUrl, '--fetch-deadline-ms', '2000']);
    await bridge.initialize();
    const startedAt = Date.now();
    let slowEnded = 0;
    const slowCalls = Array.from({ length: 40 }, () =>
      bridge.request('tools/call', { name: 'greet', arguments: { language: 'fr' } }).finally(() => {
        slowEnded += 1;
      }),
    );
    const fast = await bridge.request('tools/call', { name: 'greet', arguments: { language: 'de' } });
    expect(textOf(fast)).toMatch(/Hallo/);
    // At once: before the slow file's deadline ended any call that waits on it.
    expect(slowEnded).toBe(0);
    for (const slow of await Promise.all(slowCalls)) {
      expect(slow.result?.isError, JSON.stringify(slow)).toBe(true);
      expect(textOf(slow)).toMatch(/did not send the whole file within 2000 ms/);
    }
    // Ten times the deadline: only calls the deadline did not end fail this.
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(await bridge.close()).toBe(0);
  });

  it('lets serve exit when stdin closes while the slow download is in flight', async () => {
    const bridge = new RawBridge([baseUrl, '--fetch-deadline-ms', '600000']);
    await bridge.initialize();
    bridge.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'greet', arguments: { language: 'fr' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closedAt = Date.now();
    expect(await bridge.close()).toBe(0);
    // serve gives answers in flight half a second and scripts three more (start-bridge.ts): more
    // than ten times that still fails only a serve that waits for the ten-minute download.
    expect(Date.now() - closedAt).toBeLessThan(40_000);
  });

  it('refuses a deadline that is not a positive number of milliseconds', async () => {
    // The serve command's refusal in-process, as the CLI runs it for this line, before any fetch
    // (test/cli/command-line.test.ts shows the process prints such a refusal the same).
    const refused = await runRefusedInProcess(['serve', baseUrl, '--fetch-deadline-ms', 'soon']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--fetch-deadline-ms soon is not a whole number/);
  });
});
