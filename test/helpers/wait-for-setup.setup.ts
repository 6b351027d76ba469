// Setup file of the `cli` and `runtimes` tiers (vitest.config.ts): holds the test file until the
// global setup has compiled src/ and built fixtures/example (and, for the runtimes tier, installed
// tools/runtimes), which it does beside the first test files rather than before them
// (test/global-setup.ts). When that work failed, the file fails with its error.
import http from 'node:http';
import { inject } from 'vitest';

/** The answer of the global setup's readiness server (test/setup-readiness.ts): resolves when ready, rejects with its error. */
function waitForSetup(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // node:http, not fetch: fetch gives up after 300 s without an answer, and a loaded machine
    // installing tools/runtimes can take about that long.
    const request = http.get(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        response.statusCode === 200
          ? resolve()
          : reject(new Error(`the global setup failed, so no test of this file ran:\n${body}`)),
      );
      response.on('error', reject);
    });
    request.on('error', (error) =>
      reject(new Error(`the global setup's readiness server did not answer (${error.message}): did the run end?`)),
    );
  });
}

await waitForSetup(inject('setupReady'));
