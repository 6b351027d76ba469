#!/usr/bin/env node
// Runs several MCP Inspector CLI invocations in this one Node process: the Inspector's CLI module
// exports the `runCli(argv)` its `inspector --cli` launcher calls, and its `handleError(error)` that
// prints the `{"error":…}` envelope and picks the exit code. Each run's stdout and stderr writes are
// kept apart and reported with the exit code the launcher would have exited with. Starting the
// Inspector (its bundle parsed and compiled) costs more CPU than a run against a local server, so a
// test with many runs pays that start once (test/helpers/inspector-cli.ts). The runs go in `lanes`
// side by side (one by default), each taking the next run when its last ended; a run's writes and
// exit code are told apart by the async context it runs in (AsyncLocalStorage), which its
// transports' callbacks inherit.
//
// Usage: node inspector-batch.mjs <the CLI's build/index.js> <runs.json> <results.json> [lanes]
// runs.json: [["<argv after --cli>", …], …]; results.json: [{ code, stdout, stderr }, …], in order.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [cliModule, runsFile, resultsFile, lanesArgument = '1'] = process.argv.slice(2);
if (!cliModule || !runsFile || !resultsFile) {
  process.stderr.write(
    'usage: node inspector-batch.mjs <inspector cli build/index.js> <runs.json> <results.json> [lanes]\n',
  );
  process.exit(2);
}
const runs = JSON.parse(readFileSync(runsFile, 'utf8'));
const { runCli, handleError } = await import(pathToFileURL(cliModule).href);

/** The run whose async context is current: its output and exit code. */
const current = new AsyncLocalStorage();

/** Sends a run's writes into its own output instead (the callback still runs, as awaitableLog waits on it). */
function capture(stream, key) {
  const write = stream.write;
  stream.write = function (chunk, encoding, callback) {
    const run = current.getStore();
    if (!run) return write.call(this, chunk, encoding, callback);
    run[key].push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (done) queueMicrotask(() => done());
    return true;
  };
}
capture(process.stdout, 'stdout');
capture(process.stderr, 'stderr');
// handleError ends with process.exit(code): within a run, keep the code, not the exit.
const exit = process.exit;
process.exit = (exitCode) => {
  const run = current.getStore();
  if (!run) return exit(exitCode);
  run.code = exitCode ?? 1;
};

async function runOne(argv) {
  const run = { code: 0, stdout: [], stderr: [] };
  await current.run(run, async () => {
    try {
      // runCli parses argv as process.argv: the node binary and the script come first.
      await runCli([process.execPath, 'inspector', ...argv]);
    } catch (error) {
      await handleError(error);
    }
  });
  return { code: run.code, stdout: run.stdout.join(''), stderr: run.stderr.join('') };
}

const results = new Array(runs.length);
let next = 0;
async function runLane() {
  while (next < runs.length) {
    const position = next++;
    results[position] = await runOne(runs[position]);
  }
}
await Promise.all(Array.from({ length: Math.max(1, Number(lanesArgument) || 1) }, runLane));
writeFileSync(resultsFile, JSON.stringify(results));
// Transports the Inspector closed may still hold sockets open a moment: the results are written.
exit(0);
