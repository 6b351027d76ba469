#!/usr/bin/env node
// Runs several MCP Inspector CLI invocations, one after the other, in this one Node process: the
// Inspector's CLI module exports the `runCli(argv)` its `inspector --cli` launcher calls, and its
// `handleError(error)` that prints the `{"error":…}` envelope and picks the exit code. Each run's
// stdout and stderr writes are kept apart and reported with the exit code the launcher would have
// exited with. Starting the Inspector (its bundle parsed and compiled) costs more CPU than a run
// against a local server, so a test with many runs pays that start once (test/helpers/inspector-cli.ts).
//
// Usage: node inspector-batch.mjs <the CLI's build/index.js> <runs.json> <results.json>
// runs.json: [["<argv after --cli>", …], …]; results.json: [{ code, stdout, stderr }, …], in order.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [cliModule, runsFile, resultsFile] = process.argv.slice(2);
if (!cliModule || !runsFile || !resultsFile) {
  process.stderr.write('usage: node inspector-batch.mjs <inspector cli build/index.js> <runs.json> <results.json>\n');
  process.exit(2);
}
const runs = JSON.parse(readFileSync(runsFile, 'utf8'));
const { runCli, handleError } = await import(pathToFileURL(cliModule).href);

/** Sends a stream's writes into `sink` instead (the callback still runs, as awaitableLog waits on it). */
function capture(stream, sink) {
  const write = stream.write;
  stream.write = (chunk, encoding, callback) => {
    sink.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (done) queueMicrotask(() => done());
    return true;
  };
  return () => {
    stream.write = write;
  };
}

const results = [];
for (const argv of runs) {
  const stdout = [];
  const stderr = [];
  const restoreStdout = capture(process.stdout, stdout);
  const restoreStderr = capture(process.stderr, stderr);
  let code = 0;
  try {
    // runCli parses argv as process.argv: the node binary and the script come first.
    await runCli([process.execPath, 'inspector', ...argv]);
  } catch (error) {
    // handleError ends with process.exit(code): keep the code, not the exit.
    const exit = process.exit;
    process.exit = (exitCode) => {
      code = exitCode ?? 1;
    };
    try {
      await handleError(error);
    } finally {
      process.exit = exit;
    }
  } finally {
    restoreStdout();
    restoreStderr();
  }
  results.push({ code, stdout: stdout.join(''), stderr: stderr.join('') });
}
writeFileSync(resultsFile, JSON.stringify(results));
// Transports the Inspector closed may still hold sockets open a moment: the results are written.
process.exit(0);
