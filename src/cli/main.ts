#!/usr/bin/env node
// Entry point of the `staticmcp` command. `serve`, `dev` and ordinary `build` command lines are
// dispatched before yargs loads, so the bridge starts as fast as Node itself and a no-op rebuild
// stays cheap; everything else (help, usage errors, other commands) goes through yargs.

const fastBuild =
  process.argv[2] === 'build' ? (await import('./parse-build-argv.js')).parseBuildArgv(process.argv.slice(3)) : null;

if (process.argv[2] === 'serve' && !process.argv.includes('--help')) {
  const { runServeCommand } = await import('./serve-command.js');
  process.exitCode = await runServeCommand(process.argv.slice(3));
} else if (process.argv[2] === 'dev' && !process.argv.includes('--help')) {
  const { runDevCommand } = await import('./dev-command.js');
  process.exitCode = await runDevCommand(process.argv.slice(3));
} else if (fastBuild) {
  const { runBuildCommand } = await import('./build-command.js');
  process.exitCode = await runBuildCommand(fastBuild);
} else {
  const { runCli } = await import('./yargs-cli.js');
  await runCli(process.argv.slice(2));
}
