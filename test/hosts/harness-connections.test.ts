// The run's own loopback servers in vitest's process (test/shared-hosts.ts, test/setup-readiness.ts)
// end each connection after its answer. A test worker runs file after file, and its fetch keeps an
// idle connection for the next file's ask: a server that closes that connection after its idle
// timeout, just as the ask is sent on it, failed the ask with "other side closed" on a loaded machine.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { serveReadiness } from '../setup-readiness.js';
import { startSharedHostsServer } from '../shared-hosts.js';

/** Longer than an answer takes, shorter than Node's keep-alive timeout (5 s) after which a kept connection would end. */
const END_WITHIN_MS = 2_000;

/**
 * Sends one request on a connection of its own; resolves to what came back once the server ended
 * the connection, rejects when it is still open `END_WITHIN_MS` after the request.
 */
function requestUntilEnd(url: string, method: string, pathname: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open ${END_WITHIN_MS} ms after the request; it got:\n${received}`));
    }, END_WITHIN_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => {
      clearTimeout(timer);
      socket.end();
      resolve(received);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(`${method} ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

describe("the run's loopback servers", () => {
  it('end the connection after answering whether the setup is ready', async () => {
    const readiness = await serveReadiness(Promise.resolve());
    closers.push(() => readiness.close());
    const answer = await requestUntilEnd(readiness.url, 'GET', '/');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('\r\nready\r\n');
  });

  it('end the connection after a release and after an unknown host, starting no host', async () => {
    // No host starts for these requests, so nothing is compiled or built.
    const server = await startSharedHostsServer('no-cli', 'no-example', 'no-root', Promise.resolve());
    closers.push(() => server.close());
    const release = await requestUntilEnd(server.url, 'DELETE', '/workerd');
    expect(release).toMatch(/^HTTP\/1\.1 204 /);
    expect(release).toMatch(/\r\nconnection: close\r\n/i);
    const unknown = await requestUntilEnd(server.url, 'GET', '/no-such-host');
    expect(unknown).toMatch(/^HTTP\/1\.1 404 /);
    expect(unknown).toContain('no shared host');
  });
});
