// The last line of defence of `serve` (stdio and --http) and `dev`: long-running processes that
// clients, and over HTTP strangers, talk to. Each request already fails alone (an error answer, a
// 500 over HTTP); what escapes every request (a promise rejected where nobody waits) is logged and
// the server keeps serving. What cannot be survived (an
// uncaught exception leaves the process in an unknown state) ends it, but first kills every live
// script it runs: they live in process groups of their own, and would otherwise be reparented to
// PID 1 and run on. SIGHUP (the terminal closed) stops the server like SIGTERM instead of killing
// it outright, for the same reason.
import { killEveryRunningRun } from '../../script/run/running-runs.js';

/** Installs the guard; `stop` is the server's orderly shutdown (sessions ended, then exit 0). */
export function guardServerProcess(logProblem: (text: string) => void, stop: () => void): void {
  process.on('unhandledRejection', (reason) => {
    logProblem(`a task failed outside any request (the server goes on): ${describe(reason)}`);
  });
  process.on('uncaughtException', (error) => {
    logProblem(`stopping after an unexpected error: ${describe(error)}`);
    const killed = killEveryRunningRun();
    if (killed > 0) logProblem(`killed ${killed} live script run(s) still running`);
    process.exit(1);
  });
  // Whatever ends the process (process.exit anywhere): no live script is left behind.
  process.on('exit', () => {
    killEveryRunningRun();
  });
  process.once('SIGHUP', stop);
}

function describe(reason: unknown): string {
  return (reason as Error)?.stack ?? String(reason);
}
