// `serve <folder>` of a packed tree (issue #24): a tree built by `staticmcp build`, one tool's call
// files then packed with the writer's packToolRecords (the plain files deleted, the table added to
// mcp.json), answers the official SDK client exactly as the unpacked tree does, over stdio and
// --http; the unpacked tool beside it reads as before; a missing pack answers "not precomputed" for
// its calls, a damaged one says the answer cannot be read and why, never a crash, and the server
// keeps answering the rest. `check`
// passes the packed tree (the build's content hash and counts hold over the packs' calls) and
// reports damaged packs, stray files under packs/ and plain files of a packed tool with what to do.
// The unpacked tree's answers, the reference, come from serve's session in-process, opened once for
// every test (it only reads); so do the damaged and malformed trees' and the whole-pack host's
// (connectInProcess: the sources serve opens), while the packed tree is served by real processes
// over stdio, --http and serve <URL> by byte range. check runs as a process for the packed tree it
// passes, and in-process (the command's checkSource) for the damage it reports.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { checkSource } from '../../src/cli/commands/check.js';
import { runCli } from '../helpers/cli.js';
import { HttpServe } from '../helpers/http-serve.js';
import { connectInProcess } from '../helpers/in-process-bridge.js';
import { callFilesOf, packTool } from '../helpers/packed-trees.js';
import { CLI } from '../helpers/paths.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolderSync } from '../helpers/temp-folders.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';

const WORDS = Array.from({ length: 40 }, (_, position) => `word-${position}`);
const clients: Client[] = [];
const servers: HttpServe[] = [];
let plainTree: string;
let packedTree: string;

async function stdioClient(tree: string): Promise<Client> {
  const client = new Client({ name: 'packed-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
  );
  clients.push(client);
  return client;
}

async function httpClient(tree: string): Promise<Client> {
  const server = await HttpServe.start([tree]);
  servers.push(server);
  const client = new Client({ name: 'packed-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(server.endpoint));
  clients.push(client);
  return client;
}

/** The answers a client gets for every word of both tools and one word that was never built. */
async function answersOf(client: Client): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const tool of ['echo', 'other'])
    for (const value of [...WORDS.slice(0, tool === 'echo' ? WORDS.length : 2), 'never-built'])
      answers.push(await client.callTool({ name: tool, arguments: { value } }));
  return answers;
}

/** A client of serve's session over `source` (a tree folder or URL), in-process. */
async function inProcessClient(source: string): Promise<Client> {
  const client = await connectInProcess(source);
  clients.push(client);
  return client;
}

let plainClient: Promise<Client> | undefined;

/** The unpacked tree's client (serve's session in-process), shared by the tests (they only read through it). */
function plainClientOnce(): Promise<Client> {
  plainClient ??= inProcessClient(plainTree);
  return plainClient;
}

function copyTree(from: string): string {
  const to = path.join(temporaryFolderSync('staticmcp-packed-'), 'tree');
  cpSync(from, to, { recursive: true });
  return to;
}

beforeAll(async () => {
  const project = await makeProject({
    tools: { echo: 'echo-value', other: 'echo-value' },
    config: { tools: { echo: { values: { value: WORDS } }, other: { values: { value: WORDS.slice(0, 2) } } } },
  });
  await buildTreeInProcess(project);
  plainTree = copyTree(path.join(project, 'dist'));
  packedTree = copyTree(plainTree);
  packTool(packedTree, 'echo');
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const server of servers) await server.stop();
  for (const site of sites) await new Promise((resolve) => site.close(resolve));
});

const sites: http.Server[] = [];

/** A static host of `tree`: Range requests answered with 206 when `ranges`, else the whole file (200). */
async function hostTree(tree: string, ranges: boolean, seen: string[]): Promise<string> {
  const site = http.createServer((request, response) => {
    const file = path.join(tree, ...decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).split('/'));
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      response.writeHead(404).end('not found');
      return;
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    if (ranges && range) {
      const [start, end] = [Number(range[1]), Math.min(Number(range[2]), bytes.length - 1)];
      seen.push(`206 ${request.url}`);
      response
        .writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}` })
        .end(bytes.subarray(start, end + 1));
      return;
    }
    seen.push(`200 ${request.url}`);
    response.writeHead(200).end(bytes);
  });
  sites.push(site);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
}

describe('serve of a packed tree folder', () => {
  it('holds packs and no plain call files for the packed tool', () => {
    expect(callFilesOf(packedTree, 'echo').length).toBe(0);
    expect(
      readdirSync(path.join(packedTree, 'packs', 'echo')).filter((name) => name.endsWith('.pack')).length,
    ).toBeGreaterThan(1);
    expect(callFilesOf(packedTree, 'other').length).toBe(2);
  });

  it('answers every call over stdio exactly as the unpacked tree does', async () => {
    const [plain, packed] = await Promise.all([plainClientOnce(), stdioClient(packedTree)]);
    const expected = await answersOf(plain);
    expect((expected[3] as { content: { text: string }[] }).content[0]?.text).toBe('word-3\n');
    expect(await answersOf(packed)).toEqual(expected);
    expect(await packed.listTools()).toEqual(await plain.listTools());
  });

  it('answers every call over --http exactly as the unpacked tree does', async () => {
    const [plain, packed] = await Promise.all([plainClientOnce(), httpClient(packedTree)]);
    expect(await answersOf(packed)).toEqual(await answersOf(plain));
  });

  it('answers the calls of a damaged pack as unreadable, of a missing one as not precomputed, and the rest as before', async () => {
    const damaged = copyTree(packedTree);
    const packs = readdirSync(path.join(damaged, 'packs', 'echo'))
      .filter((name) => name.endsWith('.pack'))
      .sort();
    // One pack truncated, one replaced by a host's HTML fallback page, one gone.
    const [truncated, html, gone] = packs.map((name) => path.join(damaged, 'packs', 'echo', name));
    writeFileSync(truncated!, readFileSync(truncated!).subarray(0, 40));
    writeFileSync(html!, '<!doctype html><title>Not found</title>');
    rmSync(gone!);
    // An index whose bytes were flipped: its calls are refused, not misread.
    const index = readdirSync(path.join(damaged, 'packs', 'echo')).find((name) => name.endsWith('.idx'))!;
    const indexBytes = readFileSync(path.join(damaged, 'packs', 'echo', index));
    indexBytes[indexBytes.length - 3] = indexBytes[indexBytes.length - 3]! ^ 0xff;
    writeFileSync(path.join(damaged, 'packs', 'echo', index), indexBytes);

    const [plain, hurt] = await Promise.all([plainClientOnce(), inProcessClient(damaged)]);
    const notPrecomputed = await plain.callTool({ name: 'echo', arguments: { value: 'never-built' } });
    let answered = 0;
    let refused = 0;
    let named = 0;
    for (const value of WORDS) {
      const expected = await plain.callTool({ name: 'echo', arguments: { value } });
      const got = await hurt.callTool({ name: 'echo', arguments: { value } });
      if (JSON.stringify(got) === JSON.stringify(expected)) answered += 1;
      else {
        // Never a wrong answer: a call of a lost pack reads as a call that was never built, one of
        // a damaged pack or index says its answer cannot be read, and why.
        const text = (got as { content: { text: string }[] }).content[0]?.text ?? '';
        if (/its precomputed answer cannot be read \(packs\/echo\/.*(truncated|damaged)/.test(text)) named += 1;
        else expect(JSON.stringify(got)).toBe(JSON.stringify(notPrecomputed).replaceAll('never-built', value));
        expect(got).toMatchObject({ isError: true });
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(named).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(0);
    // The unpacked tool and the server itself are untouched.
    expect(await hurt.callTool({ name: 'other', arguments: { value: 'word-1' } })).toEqual(
      await plain.callTool({ name: 'other', arguments: { value: 'word-1' } }),
    );
  });

  it('reads a manifest whose pack table is malformed as a tree without those calls, not a crash', async () => {
    const broken = copyTree(packedTree);
    const manifest = JSON.parse(readFileSync(path.join(broken, 'mcp.json'), 'utf8'));
    manifest.staticmcp.packs.echo = [{ first: '00', index: '../../etc/passwd' }];
    writeFileSync(path.join(broken, 'mcp.json'), JSON.stringify(manifest));
    const [plain, client] = await Promise.all([plainClientOnce(), inProcessClient(broken)]);
    const notPrecomputed = JSON.stringify(await plain.callTool({ name: 'echo', arguments: { value: 'never-built' } }));
    expect(JSON.stringify(await client.callTool({ name: 'echo', arguments: { value: 'word-1' } }))).toBe(
      notPrecomputed.replaceAll('never-built', 'word-1'),
    );
    expect(await client.callTool({ name: 'other', arguments: { value: 'word-0' } })).toEqual(
      await plain.callTool({ name: 'other', arguments: { value: 'word-0' } }),
    );
  });
});

describe('serve <URL> of a packed tree', () => {
  it('answers as the unpacked tree does, reading records by byte range where the host serves ranges', async () => {
    const seen: string[] = [];
    const [plain, packed] = await Promise.all([plainClientOnce(), stdioClient(await hostTree(packedTree, true, seen))]);
    expect(await answersOf(packed)).toEqual(await answersOf(plain));
    expect(seen.filter((line) => line.startsWith('206 /packs/echo/') && line.endsWith('.pack')).length).toBeGreaterThan(
      0,
    );
    // No whole pack was fetched: only indexes (and the plain files) came whole.
    expect(seen.filter((line) => line.startsWith('200') && line.endsWith('.pack'))).toEqual([]);
  });

  it('answers as the unpacked tree does from a host that ignores ranges (whole packs)', async () => {
    const seen: string[] = [];
    const [plain, packed] = await Promise.all([
      plainClientOnce(),
      inProcessClient(await hostTree(packedTree, false, seen)),
    ]);
    expect(await answersOf(packed)).toEqual(await answersOf(plain));
    expect(seen.filter((line) => line.startsWith('200 /packs/echo/') && line.endsWith('.pack')).length).toBeGreaterThan(
      0,
    );
  });
});

interface CheckJson {
  ok: boolean;
  problems: { path: string; message: string; hint: string }[];
  checked: { callFiles: number; hashedFiles: number };
}

/** `check <tree> --json` as a process: its exit code, report and stderr. */
async function check(tree: string): Promise<{ code: number | null; report: CheckJson; stderr: string }> {
  const result = await runCli(['check', tree, '--json']);
  return { code: result.code, report: JSON.parse(result.stdout) as CheckJson, stderr: result.stderr };
}

/** What `check <tree> --json` decides, in-process: the exit code and report the command gives. */
async function checkInProcess(tree: string): Promise<{ code: number; report: CheckJson }> {
  const { report } = await checkSource(tree);
  return { code: report.ok ? 0 : 1, report: report as unknown as CheckJson };
}

describe('check of a packed tree folder', () => {
  it('passes it, reading the packed calls as the call files they replace (counts and content hash)', async () => {
    const [plain, packed] = await Promise.all([checkInProcess(plainTree), check(packedTree)]);
    expect(plain.report.ok, JSON.stringify(plain.report.problems)).toBe(true);
    expect(packed.code, JSON.stringify(packed.report.problems, null, 2)).toBe(0);
    expect(packed.report.checked.callFiles).toBe(plain.report.checked.callFiles);
    expect(packed.report.checked.hashedFiles).toBe(plain.report.checked.hashedFiles);
  });

  it('reports a damaged pack, a stray file under packs/ and a plain file of a packed tool, each with what to do', async () => {
    const damaged = copyTree(packedTree);
    const folder = path.join(damaged, 'packs', 'echo');
    const pack = readdirSync(folder).find((name) => name.endsWith('.pack'))!;
    writeFileSync(path.join(folder, pack), readFileSync(path.join(folder, pack)).subarray(0, 40));
    writeFileSync(path.join(folder, 'leftover.pack'), 'old');
    writeFileSync(
      path.join(damaged, 'tools', 'echo', 'word-0.json'),
      readFileSync(path.join(plainTree, 'tools', 'echo', 'word-0.json')),
    );
    const { code, report } = await checkInProcess(damaged);
    expect(code).toBe(1);
    const problems = report.problems;
    expect(problems.find((problem) => problem.path === 'packs/echo/' && problem.message.includes(pack))).toMatchObject({
      hint: expect.stringContaining('staticmcp build'),
    });
    expect(problems.find((problem) => problem.path === 'packs/echo/leftover.pack')?.hint).toMatch(/delete it/);
    expect(problems.find((problem) => problem.path === 'tools/echo/word-0.json')?.message).toMatch(/never read/);
    for (const problem of problems) expect(problem.hint.length).toBeGreaterThan(0);
  });

  it('reports a malformed pack table at its place in mcp.json', async () => {
    const broken = copyTree(packedTree);
    const manifest = JSON.parse(readFileSync(path.join(broken, 'mcp.json'), 'utf8'));
    manifest.staticmcp.packs.echo = [{ first: '00', index: '../../etc/passwd' }];
    writeFileSync(path.join(broken, 'mcp.json'), JSON.stringify(manifest));
    const { code, report } = await checkInProcess(broken);
    expect(code).toBe(1);
    expect(report.problems.find((problem) => problem.path === 'mcp.json#/staticmcp/packs')?.message).toMatch(
      /packs\.echo names the index/,
    );
  });
});
