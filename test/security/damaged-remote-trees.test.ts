// Damaged packs and search parts read by the two hosts that read a tree from elsewhere: the tree's
// worker in workerd (through ASSETS) and `serve <URL>` (over HTTP, by byte range). The mutation set
// is the folder reader's (test/unit/pack-reader.test.ts, test/unit/search-index.test.ts): truncated
// and bit-flipped packs and indexes, huge lengths, names outside packs/, thousands of table rows, a
// host's HTML page for a part. Every call is answered on its own: the right answer, or an error that
// says the precomputed answer (or the index) is damaged; never a wrong answer, a crash or a stall;
// the other calls still answered, and `serve <URL>` stays in bounded memory.
//
// One packed tree carries every pack mutation at once (a tool per mutation, so one worker and one
// server answer them all); the search index is one per tree, so each search mutation is a copy of
// one indexed tree, all served by one static host under a folder each.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encodeIndex, entryKey, MAX_PACK_BYTES, parseIndex, readEntry } from '../../src/core/packs/pack-format.js';
import { startWorkerdSite, type WorkerdSite } from '../edge/workerd-site.js';
import { buildJson } from '../helpers/cli.js';
import { packTool } from '../helpers/packed-trees.js';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';

const WORDS = Array.from({ length: 30 }, (_, position) => `word-${position}`);
const HTML_PAGE = '<!doctype html><title>Not found</title>';
/** What `serve <URL>` may hold at its peak after every damaged read (it rests near 60 MB). */
const MAX_SERVE_PEAK_BYTES = 300 * 1024 * 1024;
/** What workerd may hold at its peak after every damaged read. */
const MAX_WORKERD_PEAK_BYTES = 400 * 1024 * 1024;

/** A pack damage, applied to every file of its tool below packs/<tool>/. */
type PackDamage = (folder: string, tree: string, tool: string) => void;

function filesOf(folder: string, extension: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith(extension))
    .sort()
    .map((name) => path.join(folder, name));
}

function rewrite(file: string, change: (bytes: Uint8Array) => Uint8Array): void {
  writeFileSync(file, change(Uint8Array.from(readFileSync(file))));
}

function flipEvery48(bytes: Uint8Array): Uint8Array {
  for (let at = 40; at < bytes.length; at += 48) bytes[at] = bytes[at]! ^ 0xff;
  return bytes;
}

/** An index encoded again after `change` edits its packs and entries: every field stays consistent. */
function reencodeIndex(
  file: string,
  change: (packs: { path: string; length: number }[], entries: Parameters<typeof encodeIndex>[2][number][]) => void,
): void {
  const parsed = parseIndex(readFileSync(file), file);
  if ('status' in parsed) throw new Error(parsed.reason);
  const packs = parsed.packs.map((pack) => ({ ...pack }));
  const entries = Array.from({ length: parsed.entryCount }, (_, entry) => {
    const read = readEntry(parsed, entry);
    return {
      key: Uint8Array.from(entryKey(parsed, entry)),
      pack: parsed.packs.indexOf(read.pack),
      recordOffset: read.recordOffset,
      recordLength: read.recordLength,
    };
  });
  change(packs, entries);
  writeFileSync(file, encodeIndex(parsed.keyKind as 1, packs, entries));
}

const HOSTILE_PACK_NAMES = ['../../mcp.json', 'packs/../mcp.json', 'mcp.json', 'tools/echo/word-1.json'];

/** Tool → its damage: the same set as the folder reader's tests. */
const PACK_DAMAGES: Record<string, PackDamage> = {
  cutpack: (folder) => {
    for (const pack of filesOf(folder, '.pack')) rewrite(pack, (bytes) => bytes.subarray(0, bytes.length >> 1));
  },
  flippack: (folder) => {
    for (const pack of filesOf(folder, '.pack')) rewrite(pack, flipEvery48);
  },
  htmlpack: (folder) => {
    for (const pack of filesOf(folder, '.pack')) writeFileSync(pack, HTML_PAGE);
  },
  cutindex: (folder) => {
    for (const index of filesOf(folder, '.idx')) rewrite(index, (bytes) => bytes.subarray(0, bytes.length - 3));
  },
  flipindex: (folder) => {
    for (const index of filesOf(folder, '.idx'))
      rewrite(index, (bytes) => {
        bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
        return bytes;
      });
  },
  // Each pack said to be as large as a pack may be, each record to reach its end: the reader asks
  // the host for megabytes where a few hundred bytes are.
  hugelength: (folder) => {
    for (const index of filesOf(folder, '.idx'))
      reencodeIndex(index, (packs, entries) => {
        for (const pack of packs) pack.length = MAX_PACK_BYTES;
        for (const entry of entries) entry.recordLength = MAX_PACK_BYTES - entry.recordOffset;
      });
  },
  // An index header that counts four billion entries.
  hugecount: (folder) => {
    for (const index of filesOf(folder, '.idx'))
      rewrite(index, (bytes) => {
        new DataView(bytes.buffer).setUint32(16, 0xffffffff);
        return bytes;
      });
  },
  outside: (folder) => {
    for (const [position, index] of filesOf(folder, '.idx').entries())
      reencodeIndex(index, (packs) => {
        for (const pack of packs) pack.path = HOSTILE_PACK_NAMES[position % HOSTILE_PACK_NAMES.length]!;
      });
  },
  // 5,000 rows in the table (every one but the real ones naming an index that is not there).
  manyrows: (_folder, tree, tool) => {
    const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
    const rows = Array.from({ length: 5000 }, (_, row) => ({
      first: row.toString(16).padStart(4, '0'),
      index: `packs/${tool}/absent-${row}.idx`,
    }));
    manifest.staticmcp.packs[tool] = rows;
    writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
  },
};
const DAMAGED_TOOLS = Object.keys(PACK_DAMAGES);

const sites: WorkerdSite[] = [];
const clients: Client[] = [];
const hosts: http.Server[] = [];

/** A static host of `root`: files only, with byte ranges (206), as a CDN serves a tree. */
async function hostFolder(root: string): Promise<string> {
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

interface Connected {
  client: Client;
  /** The `serve <URL>` process (undefined for the worker). */
  pid?: number;
}

async function serveUrl(url: string): Promise<Connected> {
  const client = new Client({ name: 'damage-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', url], stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid ?? undefined };
}

async function workerOf(tree: string): Promise<Connected> {
  const site = await startWorkerdSite(tree);
  sites.push(site);
  const client = new Client({ name: 'damage-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('mcp', site.url)));
  clients.push(client);
  return { client };
}

/** The workerd processes this test file started (miniflare's children of this process). */
function workerdPids(): number[] {
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
function peakBytesOf(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

interface CallAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
}

function textOf(answer: CallAnswer): string {
  return answer.content.map((item) => item.text ?? '').join('\n');
}

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const site of sites) await site.close();
  for (const host of hosts) await new Promise((resolve) => host.close(resolve));
});

describe('damaged packs read from elsewhere', () => {
  let packedTree: string;

  beforeAll(async () => {
    const tools = Object.fromEntries([...DAMAGED_TOOLS, 'sound'].map((tool) => [tool, 'echo-value']));
    const values = Object.fromEntries([...DAMAGED_TOOLS, 'sound'].map((tool) => [tool, { values: { value: WORDS } }]));
    const project = await makeProject({ tools, config: { tools: values } });
    const { report } = await buildJson(project);
    expect(report.ok).toBe(true);
    packedTree = path.join(temporaryFolderSync('staticmcp-damaged-'), 'tree');
    cpSync(report.outDir, packedTree, { recursive: true });
    for (const tool of [...DAMAGED_TOOLS, 'sound']) packTool(packedTree, tool);
    for (const [tool, damage] of Object.entries(PACK_DAMAGES))
      damage(path.join(packedTree, 'packs', tool), packedTree, tool);
  }, 60_000);

  /** Every call of every tool: the right answer or an error naming the damage; the sound tool whole. */
  async function expectCleanAnswers(client: Client): Promise<Record<string, string>> {
    const outcomes: Record<string, string> = {};
    for (const tool of DAMAGED_TOOLS) {
      const answers = (await Promise.all(
        WORDS.map((value) => client.callTool({ name: tool, arguments: { value } })),
      )) as CallAnswer[];
      let right = 0;
      answers.forEach((answer, position) => {
        if (!answer.isError) {
          // Never a wrong answer: what is answered is the call's own.
          expect(textOf(answer), `${tool} ${WORDS[position]}`).toBe(`${WORDS[position]}\n`);
          right += 1;
        } else expect(textOf(answer), tool).toMatch(/precomputed answer cannot be read|was not precomputed/);
      });
      const damaged = answers.find((answer) => answer.isError);
      outcomes[tool] = damaged ? `${right} right, ${textOf(damaged)}` : `${right} right`;
    }
    for (const value of WORDS) {
      const answer = (await client.callTool({ name: 'sound', arguments: { value } })) as CallAnswer;
      expect(textOf(answer)).toBe(`${value}\n`);
    }
    return outcomes;
  }

  it('the worker in workerd answers each call alone: the right answer or the damage named', async () => {
    const before = new Set(workerdPids());
    const { client } = await workerOf(packedTree);
    const workerd = workerdPids().filter((pid) => !before.has(pid));
    const outcomes = await expectCleanAnswers(client);
    // A record promised 24 MiB long by a damaged index is not allocated at that length.
    expect(workerd.length).toBeGreaterThan(0);
    for (const pid of workerd) expect(peakBytesOf(pid)).toBeLessThan(MAX_WORKERD_PEAK_BYTES);
    // The damage that breaks records or indexes is named, not hidden as "not precomputed".
    for (const tool of ['cutpack', 'flippack', 'cutindex', 'hugelength', 'hugecount', 'outside'])
      expect(outcomes[tool], tool).toMatch(/cannot be read/);
    await client.ping();
  }, 60_000);

  it('serve <URL> answers each call alone, by byte range, in bounded memory', async () => {
    const { client, pid } = await serveUrl(await hostFolder(packedTree));
    const outcomes = await expectCleanAnswers(client);
    for (const tool of ['cutpack', 'flippack', 'cutindex', 'hugelength', 'hugecount', 'outside'])
      expect(outcomes[tool], tool).toMatch(/cannot be read/);
    await client.ping();
    expect(peakBytesOf(pid!)).toBeLessThan(MAX_SERVE_PEAK_BYTES);
  }, 60_000);
});

/** A search damage, applied to a copy of the indexed tree. */
type SearchDamage = (tree: string) => void;

const SEARCH = path.join('packs', 'search.index');
const TERMS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'sigma'];
const QUERIES = ['alpha', 'kappa sigma', 'zeta theta'];

function searchFiles(tree: string, part: string, extension: string): string[] {
  return filesOf(path.join(tree, SEARCH, part), extension);
}

function editManifestSearch(tree: string, change: (search: Record<string, unknown>) => void): void {
  const manifest = JSON.parse(readFileSync(path.join(tree, 'mcp.json'), 'utf8'));
  change(manifest.staticmcp.search);
  writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
}

/**
 * Name → its damage, and what it breaks: the search tool (`search`), fetch (`fetch`), or nothing a
 * client can tell (`none`). The folder reader's set: cut and flipped parts, huge lengths, names
 * outside the index, thousands of table rows.
 */
const SEARCH_DAMAGES: Record<
  string,
  { damage: SearchDamage; breaks: 'search' | 'fetch' | 'both' | 'unlisted' | 'none' }
> = {
  cutterms: {
    damage: (tree) => {
      for (const pack of searchFiles(tree, 'terms', '.pack')) rewrite(pack, (bytes) => bytes.subarray(0, 24));
    },
    breaks: 'search',
  },
  // Terms flipped (search) and the documents cut (fetch), one tree for both.
  flipterms: {
    damage: (tree) => {
      for (const pack of searchFiles(tree, 'terms', '.pack')) rewrite(pack, flipEvery48);
      for (const pack of searchFiles(tree, 'documents', '.pack'))
        rewrite(pack, (bytes) => bytes.subarray(0, bytes.length >> 1));
    },
    breaks: 'both',
  },
  cuttitles: {
    damage: (tree) => {
      for (const pack of searchFiles(tree, 'titles', '.pack')) rewrite(pack, (bytes) => bytes.subarray(0, 24));
    },
    breaks: 'search',
  },
  cuttermindex: {
    damage: (tree) => {
      for (const index of searchFiles(tree, 'terms', '.idx')) rewrite(index, (bytes) => bytes.subarray(0, 30));
    },
    breaks: 'search',
  },
  hugelength: {
    damage: (tree) => {
      for (const part of ['terms', 'titles', 'documents'])
        for (const index of searchFiles(tree, part, '.idx'))
          reencodeIndex(index, (packs, entries) => {
            for (const pack of packs) pack.length = MAX_PACK_BYTES;
            for (const entry of entries) entry.recordLength = MAX_PACK_BYTES - entry.recordOffset;
          });
    },
    breaks: 'both',
  },
  outsidepack: {
    damage: (tree) => {
      for (const part of ['terms', 'titles', 'documents'])
        for (const [position, index] of searchFiles(tree, part, '.idx').entries())
          reencodeIndex(index, (packs) => {
            for (const pack of packs) pack.path = HOSTILE_PACK_NAMES[position % HOSTILE_PACK_NAMES.length]!;
          });
    },
    breaks: 'both',
  },
  // The table in mcp.json names an index outside the search folder: the declaration is refused as
  // a whole, and the search and fetch tools are left out (a call is an unknown tool).
  outsidetable: {
    damage: (tree) =>
      editManifestSearch(tree, (search) => {
        (search.terms as { index: string }[])[0]!.index = 'packs/../mcp.json';
      }),
    breaks: 'unlisted',
  },
  // 5,000 term rows inline, each naming the one real term index: every lookup still finds its term.
  manyrows: {
    damage: (tree) => editManifestSearch(tree, (search) => manyTermRows(search)),
    breaks: 'none',
  },
  // The same rows in a table file (the shape a build writes past 16 KiB of rows).
  manyrowsfile: {
    damage: (tree) => moveRowsToFile(tree, (rows) => manyTermRows(rows)),
    breaks: 'none',
  },
  cuttablefile: {
    damage: (tree) =>
      moveRowsToFile(
        tree,
        () => {},
        (bytes) => bytes.subarray(0, bytes.length >> 1),
      ),
    breaks: 'both',
  },
};

function manyTermRows(search: Record<string, unknown>): void {
  const index = (search.terms as { index: string }[])[0]!.index;
  search.terms = Array.from({ length: 5000 }, (_, row) => ({
    first: row === 0 ? '00' : row.toString(16).padStart(4, '0'),
    index,
  }));
}

/** The manifest's search rows moved into a table file (edited by `change`, its bytes by `cut`). */
function moveRowsToFile(
  tree: string,
  change: (rows: Record<string, unknown>) => void,
  cut: (bytes: Uint8Array) => Uint8Array = (bytes) => bytes,
): void {
  const tablePath = `${SEARCH.split(path.sep).join('/')}/0123456789abcdef.table.json`;
  editManifestSearch(tree, (search) => {
    const rows: Record<string, unknown> = { terms: search.terms, titles: search.titles, documents: search.documents };
    change(rows);
    writeFileSync(path.join(tree, tablePath), cut(new TextEncoder().encode(JSON.stringify(rows))));
    delete search.terms;
    delete search.titles;
    delete search.documents;
    search.table = tablePath;
  });
}

describe('damaged search parts read from elsewhere', () => {
  /** Every damaged tree, a folder each below one root. */
  let root: string;

  beforeAll(async () => {
    const files = Object.fromEntries(
      Array.from({ length: 40 }, (_, position) => [
        `resources/doc-${position}.md`,
        `# Note ${position}\n\n${Array.from({ length: 12 }, (_, word) => TERMS[(position * 7 + word * word) % TERMS.length]).join(' ')}\n`,
      ]),
    );
    const project = await makeProject({ tools: { hello: 'ok' }, config: { search: true }, files });
    const { report } = await buildJson(project);
    expect(report.ok).toBe(true);
    root = temporaryFolderSync('staticmcp-damaged-search-');
    for (const [name, { damage }] of Object.entries(SEARCH_DAMAGES)) {
      cpSync(report.outDir, path.join(root, name), { recursive: true });
      damage(path.join(root, name));
    }
  }, 60_000);

  /** A call's answer, or the JSON-RPC error it got, as one text (an error of the call alone). */
  async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<CallAnswer> {
    try {
      return (await client.callTool({ name, arguments: args })) as CallAnswer;
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `JSON-RPC error: ${(error as Error).message}` }] };
    }
  }

  /** The answers of one damaged tree: each search and fetch an answer or an error naming the damage. */
  async function expectCleanSearch(client: Client, name: string): Promise<void> {
    const { breaks } = SEARCH_DAMAGES[name]!;
    for (const query of QUERIES) {
      const answer = (await callText(client, 'search', { query })) as CallAnswer & {
        structuredContent?: { results: unknown[] };
      };
      if (breaks === 'search' || breaks === 'both' || breaks === 'unlisted') {
        expect(answer.isError, `${name} ${query}`).toBe(true);
        expect(textOf(answer), name).toMatch(
          breaks === 'unlisted' ? /Unknown tool: search/ : /damaged|cannot be read|build and deploy the tree again/,
        );
      } else expect(answer.structuredContent?.results.length, `${name} ${query}`).toBeGreaterThan(0);
    }
    const fetched = await callText(client, 'fetch', { id: 'resources/doc-3_md.json' });
    if (breaks === 'fetch' || breaks === 'both') {
      expect(fetched.isError, name).toBe(true);
      expect(textOf(fetched), name).toMatch(/damaged|cannot be read|build and deploy the tree again/);
    } else if (breaks === 'unlisted') expect(textOf(fetched), name).toMatch(/Unknown tool: fetch/);
    else expect(textOf(fetched), name).toMatch(/Note 3/);
    // The server itself is untouched: its other tool answers.
    expect(textOf(await callText(client, 'hello', {})), name).toMatch(/ok/);
  }

  it('the worker in workerd answers every search and fetch alone, naming the damage', async () => {
    const names = Object.keys(SEARCH_DAMAGES);
    const connected = await Promise.all(names.map((name) => workerOf(path.join(root, name))));
    await Promise.all(names.map((name, position) => expectCleanSearch(connected[position]!.client, name)));
  }, 90_000);

  it('serve <URL> answers every search and fetch alone, naming the damage, in bounded memory', async () => {
    const base = await hostFolder(root);
    const names = Object.keys(SEARCH_DAMAGES);
    const connected = await Promise.all(names.map((name) => serveUrl(`${base}${name}/`)));
    await Promise.all(names.map((name, position) => expectCleanSearch(connected[position]!.client, name)));
    for (const { pid } of connected) expect(peakBytesOf(pid!)).toBeLessThan(MAX_SERVE_PEAK_BYTES);
  }, 90_000);
});
