// Damaged trees served from elsewhere (test/security/damaged-remote-*.test.ts): byte edits of pack
// and index files, a static host with byte ranges, `serve <URL>` and the tree's worker in workerd
// as MCP clients, and the peak memory of the processes that read the damage.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encodeIndex } from '../../src/core/packs/pack-encoding.js';
import { entryKey, parseIndex, readEntry } from '../../src/core/packs/pack-format.js';
import { startWorkerdSite, startWorkerdSites } from '../edge/workerd-site.js';
import { CLI } from './paths.js';

export const HTML_PAGE = '<!doctype html><title>Not found</title>';
/** What `serve <URL>` may hold at its peak after every damaged read (it rests near 60 MB). */
export const MAX_SERVE_PEAK_BYTES = 300 * 1024 * 1024;
/** What serve's session may add, in a process of its own or in this one, to the process's resting size. */
export const MAX_SERVE_GROWTH_BYTES = MAX_SERVE_PEAK_BYTES - 60 * 1024 * 1024;
/** What workerd may hold at its peak after every damaged read. */
export const MAX_WORKERD_PEAK_BYTES = 400 * 1024 * 1024;

/** The files of `folder` ending in `extension`, sorted, as paths. */
export function filesOf(folder: string, extension: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith(extension))
    .sort()
    .map((name) => path.join(folder, name));
}

/** Replaces a file's bytes with `change` of a copy of them. */
export function rewrite(file: string, change: (bytes: Uint8Array) => Uint8Array): void {
  writeFileSync(file, change(Uint8Array.from(readFileSync(file))));
}

/** Flips every 48th byte past a pack's header: most records damaged, not all. */
export function flipEvery48(bytes: Uint8Array): Uint8Array {
  for (let at = 40; at < bytes.length; at += 48) bytes[at] = bytes[at]! ^ 0xff;
  return bytes;
}

/** An index encoded again after `change` edits its packs and entries: every field stays consistent. */
export function reencodeIndex(
  file: string,
  change: (packs: { path: string; length: number }[], entries: Parameters<typeof encodeIndex>[2][number][]) => void,
): void {
  const parsed = parseIndex(readFileSync(file), file);
  if ('status' in parsed) throw new Error(parsed.reason);
  const packList = [...parsed.packs];
  const packs = packList.map((pack) => ({ ...pack }));
  const entries = Array.from({ length: parsed.entryCount }, (_, entry) => {
    const read = readEntry(parsed, entry);
    return {
      key: Uint8Array.from(entryKey(parsed, entry)),
      pack: packList.indexOf(read.pack),
      recordOffset: read.recordOffset,
      recordLength: read.recordLength,
    };
  });
  change(packs, entries);
  writeFileSync(file, encodeIndex(parsed.keyKind as 1, packs, entries));
}

export const HOSTILE_PACK_NAMES = ['../../mcp.json', 'packs/../mcp.json', 'mcp.json', 'tools/echo/word-1.json'];

const sites: { close(): Promise<void> }[] = [];
const clients: Client[] = [];
const hosts: http.Server[] = [];

/** A static host of `root`: files only, with byte ranges (206), as a CDN serves a tree. */
export async function hostFolder(root: string): Promise<string> {
  const host = http.createServer((request, response) => {
    const relative = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file = path.resolve(root, `.${relative}`);
    let bytes: Buffer;
    try {
      if (!file.startsWith(`${root}${path.sep}`)) throw new Error('outside');
      bytes = readFileSync(file);
    } catch {
      response.writeHead(404).end('not found');
      return;
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    if (range && Number(range[1]) < bytes.length) {
      const [start, end] = [Number(range[1]), Math.min(Number(range[2]), bytes.length - 1)];
      response
        .writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}` })
        .end(bytes.subarray(start, end + 1));
      return;
    }
    response.writeHead(200).end(bytes);
  });
  hosts.push(host);
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(host.address() as AddressInfo).port}/`;
}

export interface Connected {
  client: Client;
  /** The `serve <URL>` process (undefined for the worker). */
  pid?: number;
}

export async function serveUrl(url: string): Promise<Connected> {
  const client = new Client({ name: 'damage-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', url], stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid ?? undefined };
}

export async function workerOf(tree: string): Promise<Connected> {
  const site = await startWorkerdSite(tree);
  sites.push(site);
  const client = new Client({ name: 'damage-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
  clients.push(client);
  return { client };
}

/** Each tree of `trees` (name → folder) behind its own worker, all in one workerd; a client for each. */
export async function workersOf(trees: Record<string, string>): Promise<Record<string, Connected>> {
  const site = await startWorkerdSites(trees);
  sites.push(site);
  const connected = await Promise.all(
    Object.entries(site.urls).map(async ([name, url]) => {
      const client = new Client({ name: 'damage-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('mcp', url)));
      clients.push(client);
      return [name, { client }] as const;
    }),
  );
  return Object.fromEntries(connected);
}

/** The workerd processes this test file started (miniflare's children of this process). */
export function workerdPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // comm is in parentheses and may hold spaces: the fields after it start at the last ')'.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return stat.includes('(workerd)') && Number(fields[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Peak resident memory of a process so far (Linux), in bytes. */
export function peakBytesOf(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

/**
 * Starts this process's peak resident memory again from its present size (Linux 4.0+: clear_refs
 * `5`) and returns that size, in bytes: the peak read after it is what came since.
 */
export function resetPeakBytes(): number {
  writeFileSync('/proc/self/clear_refs', '5');
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

export interface CallAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
}

/** A call result's text items, one per line. */
export function textOf(answer: CallAnswer): string {
  return answer.content.map((item) => item.text ?? '').join('\n');
}

/** Closes every client, worker and host this module started (a test file's afterAll). */
export async function closeDamageHosts(): Promise<void> {
  // Emptied as they close: the runtimes tier runs several files in one worker, where this module
  // and its lists outlive a file.
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const site of sites.splice(0)) await site.close();
  for (const host of hosts.splice(0)) await new Promise((resolve) => host.close(resolve));
}
