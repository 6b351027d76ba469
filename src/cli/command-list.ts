// The commands, by name, loaded on demand: a command line loads only its own command's module
// (help and usage errors load them all). Adding a command is one file in commands/ and one line here.
import type { CommandSpec } from './command-spec.js';

const LOADERS: Record<string, () => Promise<{ command: CommandSpec }>> = {
  build: () => import('./commands/build.js') as Promise<{ command: CommandSpec }>,
  merge: () => import('./commands/merge.js') as Promise<{ command: CommandSpec }>,
  index: () => import('./commands/index-command.js') as Promise<{ command: CommandSpec }>,
  serve: () => import('./commands/serve.js') as Promise<{ command: CommandSpec }>,
  dev: () => import('./commands/dev.js') as Promise<{ command: CommandSpec }>,
  check: () => import('./commands/check.js') as Promise<{ command: CommandSpec }>,
  init: () => import('./commands/init.js') as Promise<{ command: CommandSpec }>,
};

export const COMMAND_NAMES = Object.keys(LOADERS);

export async function loadCommand(name: string | undefined): Promise<CommandSpec | undefined> {
  const load = name === undefined || !Object.hasOwn(LOADERS, name) ? undefined : LOADERS[name];
  return load ? (await load()).command : undefined;
}

export async function loadAllCommands(): Promise<CommandSpec[]> {
  return Promise.all(Object.values(LOADERS).map(async (load) => (await load()).command));
}
