// The tree's own worker in workerd over a packed tree (issue #24): through its ASSETS binding it
// reads one whole pack per packed call (and each index once, kept by the isolate), answering as it does over the unpacked
// tree; a missing pack answers "not precomputed", a damaged one says its answer cannot be read and
// why (a record whose bytes changed: its checksum), never an error of the worker. The three trees (unpacked, packed, damaged) are each a site
// of its own, all in one workerd.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packTool } from '../helpers/packed-trees.js';
import { buildProjectTree, makeProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import { startWorkerdSitesOnPorts, type WorkerdSite } from './workerd-site.js';

const WORDS = Array.from({ length: 30 }, (_, position) => `word-${position}`);
const clients: Client[] = [];
let plainTree: string;
let packedTree: string;
/** A copy of the packed tree with one pack cut short, one a host's HTML page, one gone. */
let damagedTree: string;
let sites: readonly WorkerdSite[] = [];
let plain: Connected;
let packed: Connected;
let hurt: Connected;

interface Connected {
  client: Client;
  site: WorkerdSite;
}

function copyTree(from: string): string {
  const to = path.join(temporaryFolderSync('staticmcp-packed-'), 'tree');
  cpSync(from, to, { recursive: true });
  return to;
}

async function workerClient(site: WorkerdSite): Promise<Connected> {
  const client = new Client({ name: 'packed-worker-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
  clients.push(client);
  return { client, site };
}

/** The answers as text, the site's own address (its port) left out: two sites answer alike. */
async function answersOf(client: Client, tool: string, values: readonly string[]): Promise<string[]> {
  const answers: string[] = [];
  for (const value of values)
    answers.push(
      JSON.stringify(await client.callTool({ name: tool, arguments: { value } })).replace(
        /http:\/\/127\.0\.0\.1:\d+\//g,
        '<site>/',
      ),
    );
  return answers;
}

beforeAll(async () => {
  const project = await makeProject({
    tools: { echo: 'echo-value', other: 'echo-value' },
    config: { tools: { echo: { values: { value: WORDS } }, other: { values: { value: ['a', 'b'] } } } },
  });
  buildProjectTree(project);
  plainTree = copyTree(path.join(project, 'dist'));
  packedTree = copyTree(plainTree);
  packTool(packedTree, 'echo');
  damagedTree = copyTree(packedTree);
  const folder = path.join(damagedTree, 'packs', 'echo');
  const [truncated, html, gone, flipped] = readdirSync(folder)
    .filter((name) => name.endsWith('.pack'))
    .sort()
    .map((name) => path.join(folder, name));
  writeFileSync(truncated!, readFileSync(truncated!).subarray(0, 40));
  writeFileSync(html!, '<!doctype html><title>Not found</title>');
  rmSync(gone!);
  // One byte of its last record's body changed: only that record's CRC fails (workerd computes it
  // natively, native-crc32.ts), the pack's other records answer as before.
  const flippedBytes = readFileSync(flipped!);
  flippedBytes[flippedBytes.length - 1] = flippedBytes[flippedBytes.length - 1]! ^ 0x20;
  writeFileSync(flipped!, flippedBytes);
  const [plainSite, packedSite, damagedSite] = await startWorkerdSitesOnPorts([
    { treeDir: plainTree },
    { treeDir: packedTree },
    { treeDir: damagedTree },
  ] as const);
  sites = [plainSite, packedSite, damagedSite];
  [plain, packed, hurt] = await Promise.all([
    workerClient(plainSite),
    workerClient(packedSite),
    workerClient(damagedSite),
  ]);
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  // One workerd runs every site: closing one closes them all.
  await sites[0]?.close();
});

describe('the worker over a packed tree', () => {
  it('answers every call as over the unpacked tree, reading the packs through ASSETS', async () => {
    const values = [...WORDS, 'never-built'];
    const expected = await answersOf(plain.client, 'echo', values);
    expect(JSON.parse(expected[2]!).content[0].text).toBe('word-2\n');
    expect(await answersOf(packed.client, 'echo', values)).toEqual(expected);
    expect(await answersOf(packed.client, 'other', ['a', 'b', 'c'])).toEqual(
      await answersOf(plain.client, 'other', ['a', 'b', 'c']),
    );
    const packReads = [...packed.site.assetRequests.keys()].filter((asset) => asset.startsWith('/packs/echo/'));
    expect(packReads.some((asset) => asset.endsWith('.pack'))).toBe(true);
    expect(packReads.some((asset) => asset.endsWith('.idx'))).toBe(true);
    // The isolate keeps parsed indexes between requests (each call is a request of its own).
    for (const index of packReads.filter((asset) => asset.endsWith('.idx')))
      expect(packed.site.assetRequests.get(index), index).toBe(1);
    expect(packReads.filter((asset) => asset.endsWith('.idx')).length).toBeLessThan(WORDS.length);
  });

  it('answers the calls of a damaged pack as unreadable, of a missing one as not precomputed, the rest as before', async () => {
    const [notPrecomputed] = await answersOf(plain.client, 'echo', ['never-built']);
    const expected = await answersOf(plain.client, 'echo', WORDS);
    const got = await answersOf(hurt.client, 'echo', WORDS);
    let refused = 0;
    let named = 0;
    let edited = 0;
    got.forEach((answer, position) => {
      if (answer === expected[position]) return;
      refused += 1;
      // The truncated pack's calls say why they cannot be read, as does the record whose byte
      // changed; the lost packs' read as never built.
      if (/its precomputed answer cannot be read \(packs\/echo\/.*truncated/.test(answer)) named += 1;
      else if (/its precomputed answer cannot be read \(packs\/echo\/.*checksum does not match/.test(answer))
        edited += 1;
      else expect(answer).toBe(notPrecomputed!.replaceAll('never-built', WORDS[position]!));
    });
    expect(refused).toBeGreaterThan(0);
    expect(named).toBeGreaterThan(0);
    expect(edited).toBe(1);
    expect(refused).toBeLessThan(WORDS.length);
  });
});
