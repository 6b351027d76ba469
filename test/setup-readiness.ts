// The loopback server by which test/global-setup.ts tells the `cli` and `runtimes` files that its
// work in vitest's own process (the compile of src/, the build of fixtures/example, the install of
// tools/runtimes) is done: `GET /` answers once it is, 200, or 500 with the error that stopped it.
// The global setup returns before that work ends, so the `core` tier's files run beside it; each
// file of the other tiers asks here first (test/helpers/wait-for-setup.setup.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReadinessServer {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  close(): Promise<void>;
}

/** Serves the outcome of `work` to every file that asks, as soon as it is known. */
export async function serveReadiness(work: Promise<unknown>): Promise<ReadinessServer> {
  const outcome = work.then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  const server = http.createServer((_request, response) => {
    // Closed after the answer, as test/shared-hosts.ts does: a worker's next file would otherwise
    // send its ask on the kept connection, which this server may be closing as it arrives.
    response.setHeader('connection', 'close');
    outcome.then((failure) => {
      response.writeHead(failure === undefined ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(failure ?? 'ready');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
