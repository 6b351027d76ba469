// The host runtimes over the built fixtures/example (and fixtures/conformance) that the runtimes
// tier starts once per run (test/shared-hosts.ts): a file that only reads that tree asks for one
// here instead of starting its own. The host belongs to the run: never close it, never change the tree it serves.
import { inject } from 'vitest';
import type { SharedHostName } from '../shared-hosts.js';

export type { SharedHostName } from '../shared-hosts.js';

/** The site root (ending in `/`, MCP at `mcp`) of the shared `name` host; starts it if no file has yet. */
export async function sharedHost(name: SharedHostName): Promise<URL> {
  return (await sharedHostOfProject(name)).url;
}

/** The shared `name` host and the project folder it serves (the tree in its `dist/`); read it, never change it. */
export async function sharedHostOfProject(name: SharedHostName): Promise<{ url: URL; project: string }> {
  const server = inject('sharedHosts');
  if (!server) throw new Error('no shared hosts: this file must run in the runtimes tier (test/helpers/test-tiers.ts)');
  const answer = await fetch(new URL(name, server));
  const body = (await answer.json()) as { url?: string; project?: string; error?: string };
  if (!answer.ok || !body.url) throw new Error(body.error ?? `the shared hosts answered ${answer.status}`);
  return { url: new URL(body.url), project: body.project ?? '' };
}
