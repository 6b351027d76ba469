#!/usr/bin/env node
// Entry point of the `staticmcp` command. `serve` and `dev` are dispatched before yargs loads, so
// the bridge starts as fast as Node itself; every other command goes through yargs.

if (process.argv[2] === 'serve' && !process.argv.includes('--help')) {
  const { runServeCommand } = await import('./serve-command.js');
  process.exitCode = await runServeCommand(process.argv.slice(3));
} else if (process.argv[2] === 'dev' && !process.argv.includes('--help')) {
  const { runDevCommand } = await import('./dev-command.js');
  process.exitCode = await runDevCommand(process.argv.slice(3));
} else {
  const { runCli } = await import('./yargs-cli.js');
  await runCli(process.argv.slice(2));
}
