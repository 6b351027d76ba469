// The host runtimes over the built fixtures/example (and fixtures/conformance) that the runtimes
// tier starts once per run (test/shared-hosts.ts): a file that only reads that tree asks for one
// here instead of starting its own. The host belongs to the run: never close it, never change the tree it serves.
// A file holds each host it asked for until its end (shared-hosts.setup.ts releases them after the
// file's own afterAll hooks): the run pauses a host no file holds.
import { cpSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { temporaryFolderSync } from './temp-folders.js';
import type { SharedHostName } from '../shared-hosts.js';

export type { SharedHostName } from '../shared-hosts.js';

/** The site root (ending in `/`, MCP at `mcp`) of the shared `name` host; starts it if no file has yet. */
export async function sharedHost(name: SharedHostName): Promise<URL> {
  return (await sharedHostOfProject(name)).url;
}

/**
 * The hosts the running test file holds. A module variable: a worker runs one file at a time, and
 * files that share a worker share this module (vitest.config.ts), so the release empties it.
 */
const held = new Map<SharedHostName, Promise<{ url: URL; project: string }>>();

/** The shared `name` host and the project folder it serves (the tree in its `dist/`); read it, never change it. */
export function sharedHostOfProject(name: SharedHostName): Promise<{ url: URL; project: string }> {
  let host = held.get(name);
  if (!host) {
    host = askSharedHost(name);
    held.set(name, host);
  }
  return host;
}

async function askSharedHost(name: SharedHostName): Promise<{ url: URL; project: string }> {
  const server = inject('sharedHosts');
  if (!server) throw new Error('no shared hosts: this file must run in the runtimes tier (test/helpers/test-tiers.ts)');
  // Which file asks: a host found ended is reported with the files that used it last.
  const asking = new URL(name, server);
  const testPath = expect.getState().testPath;
  if (testPath) asking.searchParams.set('file', path.relative(process.cwd(), testPath));
  const answer = await fetch(asking);
  const body = (await answer.json()) as { url?: string; project?: string; error?: string };
  if (!answer.ok || !body.url) throw new Error(body.error ?? `the shared hosts answered ${answer.status}`);
  return { url: new URL(body.url), project: body.project ?? '' };
}

/**
 * Lets go of the shared `name` host before the file ends, once the file is done with it, so the run
 * can pause it (Deno) while the file goes on with other hosts. Asking for it again later
 * holds it again.
 */
export async function releaseSharedHost(name: SharedHostName): Promise<void> {
  const host = held.get(name);
  if (!host) return;
  held.delete(name);
  // The ask first: a release that reached the server before its ask would leave the host held.
  await host.catch(() => undefined);
  const server = inject('sharedHosts');
  if (server) await fetch(new URL(name, server), { method: 'DELETE' });
}

/** Lets go of every host this file asked for (its ask counted, even when the host failed to start). */
export async function releaseSharedHosts(): Promise<void> {
  const names = [...held.keys()];
  held.clear();
  if (names.length === 0) return;
  const server = inject('sharedHosts');
  if (!server) return;
  await Promise.all(names.map((name) => fetch(new URL(name, server), { method: 'DELETE' })));
}

/**
 * A copy of the built project the shared `name` host serves, this file's own to change: the
 * project is built once per run instead of once in each file that needs it.
 */
export async function copySharedProject(name: SharedHostName): Promise<string> {
  const { project } = await sharedHostOfProject(name);
  const copy = path.join(temporaryFolderSync('staticmcp-shared-copy-'), path.basename(project));
  cpSync(project, copy, { recursive: true });
  return copy;
}
