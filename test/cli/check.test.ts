// `staticmcp check`: a freshly built tree passes; each kind of damage is reported with its path
// and exit 1; a tree from another generator is held only to the standard; no tree at all is exit 2.
// A deployed packed tree has its packs verified over http, each fetched once; a missing one is named.
// Damage that only the report shows is checked in-process (the command's checkSource); what the
// command prints (the ✓ line on stdout or stderr, the ✗ lines and their count, the notes of what was
// not checked, exit 2) runs the CLI, once each.
import { beforeAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { checkSource } from '../../src/cli/commands/check.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { runCli } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { readJson } from '../helpers/files.js';
import { builtExample } from '../helpers/example.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { writeDocusaurusTree } from '../bridge/docusaurus-tree.js';

interface CheckJson {
  ok: boolean;
  staticmcpProfile: boolean;
  problems: { path: string; message: string; hint: string }[];
  checked: { tools: number; resources: number; callFiles: number; hashedFiles: number };
  skipped: string[];
}

let tree: string;

beforeAll(() => {
  // The run's one build of fixtures/example: read here, copied before a test damages it.
  tree = path.join(builtExample(), 'dist');
});

async function check(...args: string[]): Promise<{ code: number | null; stderr: string; report: CheckJson }> {
  const result = await runCli(['check', ...args, '--json']);
  let report: CheckJson;
  try {
    report = JSON.parse(result.stdout) as CheckJson;
  } catch {
    throw new Error(`check printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { code: result.code, stderr: result.stderr, report };
}

/**
 * What `check <source> --json` decides, in-process (the command's checkSource): its exit code and
 * report. The tests that read what the command prints run it as a process.
 */
async function checkInProcess(source: string): Promise<{ code: number; stderr: string; report: CheckJson }> {
  const { name, report } = await checkSource(source);
  return { code: report.ok ? 0 : 1, stderr: '', report: { tree: name, ...report } as unknown as CheckJson };
}

/** A copy of the built tree to damage. */
async function copyOfTree(): Promise<string> {
  const copy = path.join(await temporaryFolder(), 'tree');
  await fs.cp(tree, copy, { recursive: true });
  return copy;
}

describe('staticmcp check on our own trees', () => {
  it('passes a freshly built tree, with a ✓ summary and counts', async () => {
    const { code, stderr, report } = await check(tree);
    expect(code, stderr).toBe(0);
    expect(report).toMatchObject({ ok: true, staticmcpProfile: true, problems: [], skipped: [] });
    expect(report.checked).toMatchObject({ tools: 6, resources: 5 });
    expect(report.checked.callFiles).toBeGreaterThan(100);
    expect(stderr).toMatch(/✓ .*no problems.*content hash matches/);
  });

  it("finds the tree in a built project's dist/, from the current folder by default", async () => {
    const project = await temporaryFolder();
    await fs.cp(tree, path.join(project, 'dist'), { recursive: true });
    const result = await runCli(['check'], { cwd: project });
    expect(result.code, result.stderr).toBe(0);
    // A clean result is the command's output (stdout); problems go to stderr.
    expect(result.stdout).toContain('✓ dist: no problems');
    expect(result.stderr).not.toContain('✓');
  });

  it('reports a missing resource file', async () => {
    const copy = await copyOfTree();
    await fs.rm(path.join(copy, 'resources/guide_md.json'));
    const { code, report, stderr } = await check(copy);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        path: 'resources/guide_md.json',
        message: expect.stringMatching(/missing.*resource:\/\/guide\.md/),
      }),
    );
    expect(stderr).toMatch(/✗ resources\/guide_md\.json: is missing[^\n]*\n\s+what to do: rebuild/);
  });

  it('reports a call file that is not JSON', async () => {
    const copy = await copyOfTree();
    await fs.writeFile(path.join(copy, 'tools/greet/en/true.json'), '{"content": [');
    const { code, report } = await checkInProcess(copy);
    expect(code).toBe(1);
    expect(report.problems).toContainEqual(
      expect.objectContaining({ path: 'tools/greet/en/true.json', message: expect.stringContaining('not valid JSON') }),
    );
  });

  it('reports call files moved to another key (their recorded arguments say where they belong)', async () => {
    const copy = await copyOfTree();
    const france = path.join(copy, 'tools/capital/france.json');
    const japan = path.join(copy, 'tools/capital/japan.json');
    await fs.rename(france, `${france}.swap`);
    await fs.rename(japan, france);
    await fs.rename(`${france}.swap`, japan);
    const { code, report } = await checkInProcess(copy);
    expect(code).toBe(1);
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        path: 'tools/capital/france.json',
        message: expect.stringContaining('belong at tools/capital/japan.json'),
      }),
    );
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        path: 'tools/capital/japan.json',
        message: expect.stringContaining('belong at tools/capital/france.json'),
      }),
    );
  });

  it('reports an edit after the build as a content hash mismatch, and nothing else', async () => {
    const copy = await copyOfTree();
    await fs.appendFile(path.join(copy, 'index.html'), '<!-- edited by hand -->\n');
    const { code, report } = await checkInProcess(copy);
    expect(code).toBe(1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        path: 'mcp.json#/staticmcp/contentHash',
        message: expect.stringContaining('edited after the build'),
      }),
    ]);
  });

  it('accepts the files static hosts want added after the build (CNAME, robots.txt)', async () => {
    const copy = await copyOfTree();
    await fs.writeFile(path.join(copy, 'CNAME'), 'mcp.example.com\n');
    await fs.writeFile(path.join(copy, 'robots.txt'), 'User-agent: *\n');
    const { code, report } = await checkInProcess(copy);
    expect(report.problems).toEqual([]);
    expect(code).toBe(0);
  });

  it('reports a tool name that MCP clients would reject', async () => {
    const copy = await copyOfTree();
    const manifestFile = path.join(copy, 'mcp.json');
    const manifest = await readJson<{
      capabilities: { tools: { name: string }[] };
      staticmcp: { tools: Record<string, unknown> };
    }>(manifestFile);
    const index = manifest.capabilities.tools.findIndex((tool) => tool.name === 'counter');
    const counter = manifest.capabilities.tools[index];
    if (!counter) throw new Error('the example tree has no counter tool');
    counter.name = 'bad.name';
    manifest.staticmcp.tools['bad.name'] = manifest.staticmcp.tools.counter;
    delete manifest.staticmcp.tools.counter;
    await fs.writeFile(manifestFile, JSON.stringify(manifest, null, 2));
    const { code, report } = await checkInProcess(copy);
    expect(code).toBe(1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        path: `mcp.json#/capabilities/tools/${index}/name`,
        message: expect.stringContaining('"bad.name" does not match'),
      }),
    ]);
  });
});

/** The standard's example tree (002_* §1, §2): no staticmcp extension, raw resource paths. */
async function writeForeignTree(): Promise<string> {
  const root = await temporaryFolder();
  const files: Record<string, unknown> = {
    'mcp.json': {
      protocolVersion: '2024-11-05',
      serverInfo: { name: 'resume', version: '1.0.0' },
      capabilities: {
        resources: [
          { uri: 'resume://info', name: 'Personal Information', description: 'Who', mimeType: 'application/json' },
        ],
        tools: [
          {
            name: 'get_skill',
            description: 'A skill',
            inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          },
        ],
      },
    },
    'resources/info.json': { uri: 'resume://info', mimeType: 'application/json', text: '{"name":"John Doe"}' },
    'tools/get_skill/rust.json': { content: [{ type: 'text', text: 'Rust' }] },
    // Raw JSON is a valid call file for other generators: the bridge wraps it as text.
    'tools/get_skill/go.json': { id: 'go', years: 3 },
  };
  for (const [file, value] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), JSON.stringify(value));
  }
  return root;
}

describe('staticmcp check on other trees', () => {
  it("passes another generator's tree by the standard alone", async () => {
    const { code, stderr, report } = await checkInProcess(await writeForeignTree());
    expect(code, stderr).toBe(0);
    expect(report).toMatchObject({
      ok: true,
      staticmcpProfile: false,
      checked: { tools: 1, resources: 1, callFiles: 2, hashedFiles: 0 },
    });
  });

  it("reports a docusaurus-smg tree's call files that no call reaches, and passes the ones the bridge serves", async () => {
    const docs = await writeDocusaurusTree({
      // get_resource requires uri: a call without arguments is refused, so this file is never read.
      'tools/get_resource.json': { content: [{ type: 'text', text: 'never' }] },
      // list_resources takes no arguments: only tools/list_resources.json is ever read.
      'tools/list_resources/all.json': { content: [{ type: 'text', text: 'never' }] },
      'tools/not_listed/x.json': { content: [{ type: 'text', text: 'never' }] },
    });
    try {
      const { code, report } = await checkInProcess(docs);
      expect(code).toBe(1);
      expect(report.problems.map((problem) => problem.path).sort()).toEqual([
        'tools/get_resource.json',
        'tools/list_resources/all.json',
        'tools/not_listed/x.json',
      ]);
      expect(report.problems.find((problem) => problem.path === 'tools/get_resource.json')?.message).toMatch(
        /never served.*uri/,
      );
      // The documents' own files (nested raw values) are served, so they are not reported.
      expect(report.checked.callFiles).toBe(7);

      // Without the three strays the tree passes.
      for (const stray of ['tools/get_resource.json', 'tools/list_resources', 'tools/not_listed'])
        await fs.rm(path.join(docs, stray), { recursive: true });
      const clean = await checkInProcess(docs);
      expect(clean.report.problems).toEqual([]);
      expect(clean.code).toBe(0);
    } finally {
      await fs.rm(path.dirname(docs), { recursive: true, force: true });
    }
  });

  it('checks a deployed tree over http: the manifest and resource files, saying call files were not crawled', async () => {
    const copy = await copyOfTree();
    await fs.rm(path.join(copy, 'resources/changelog_md.json'));
    const server = http.createServer((request, response) => {
      const file = path.join(
        copy,
        ...decodeURIComponent(new URL(request.url!, 'http://x').pathname).split('/').filter(Boolean),
      );
      fs.readFile(file).then(
        (body) => response.end(body),
        () => {
          response.statusCode = 404;
          response.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { code, report, stderr } = await check(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(code).toBe(1);
      expect(report.problems).toEqual([expect.objectContaining({ path: 'resources/changelog_md.json' })]);
      expect(report.checked.callFiles).toBe(0);
      expect(stderr).toMatch(/not checked: call files/);
    } finally {
      server.close();
    }
  });

  it('refuses a folder without mcp.json with exit 2, naming the folder', async () => {
    const folder = await temporaryFolder();
    await fs.writeFile(path.join(folder, 'notes.txt'), 'not a tree');
    const result = await runCli(['check', folder]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${folder} holds no mcp.json`);
    expect(result.stdout).toBe('');
  });

  it('refuses a folder that does not exist, and an unreachable URL, with exit 2', async () => {
    // Decided in-process (the command's checkSource and its exit code); the refusal above shows
    // what the command prints for one.
    const refusalOf = (source: string) =>
      checkSource(source).then(
        () => undefined,
        (error: unknown) => error,
      );
    const missing = path.join(await temporaryFolder(), 'nope');
    const noFolder = await refusalOf(missing);
    expect(noFolder).toBeInstanceOf(StaticMcpError);
    expect(exitCodeOf(noFolder as StaticMcpError)).toBe(2);
    expect((noFolder as StaticMcpError).message).toContain(`${missing} is not a folder`);
    const unreachable = await refusalOf('http://127.0.0.1:1/tree/');
    expect(unreachable).toBeInstanceOf(StaticMcpError);
    expect(exitCodeOf(unreachable as StaticMcpError)).toBe(2);
    expect((unreachable as StaticMcpError).message).toContain('http://127.0.0.1:1/tree/ cannot be read');
  });
});

describe('staticmcp check of a deployed packed tree (issue #24)', () => {
  const WORDS = Array.from({ length: 30 }, (_, position) => `word-${position}`);
  let packed: string;

  beforeAll(async () => {
    const project = await makeProject({
      tools: { echo: 'echo-value', other: 'echo-value' },
      config: { tools: { echo: { values: { value: WORDS } }, other: { values: { value: WORDS.slice(0, 10) } } } },
    });
    packed = path.join(project, 'packed');
    const built = await buildInProcess(project, { outDir: packed, maxCallFiles: 5 });
    expect(built.code, built.error?.message).toBe(0);
  });

  /**
   * A static host of `tree` that logs every GET and answers the files in `answers` its own way:
   * `404`, or `page` (a host's HTML page for a missing file, with status 200).
   */
  async function hostPackedTree(
    tree: string,
    answers: Record<string, '404' | 'page'> = {},
  ): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
    const requests: string[] = [];
    const server = http.createServer((request, response) => {
      const relative = decodeURIComponent(new URL(request.url!, 'http://x').pathname).replace(/^\/+/, '');
      requests.push(relative);
      if (answers[relative] === 'page') {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>My site</title>');
        return;
      }
      fs.readFile(path.join(tree, ...relative.split('/'))).then(
        (body) => (answers[relative] === '404' ? response.writeHead(404).end() : response.end(body)),
        () => response.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      requests,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  const packFilesOf = async (tree: string, tool: string): Promise<string[]> =>
    (await fs.readdir(path.join(tree, 'packs', tool))).map((name) => `packs/${tool}/${name}`).sort();

  it('verifies every pack and its calls, fetching each pack and index whole, once', async () => {
    const files = [...(await packFilesOf(packed, 'echo')), ...(await packFilesOf(packed, 'other'))];
    expect(files.filter((file) => file.endsWith('.pack'))).toHaveLength(2);
    const host = await hostPackedTree(packed);
    try {
      const { code, report } = await checkInProcess(host.url);
      expect(report.problems).toEqual([]);
      expect(code).toBe(0);
      // Every packed call was read from the packs and checked (its recorded arguments, its key).
      expect(report.checked.callFiles).toBe(WORDS.length + 10);
      expect(report.skipped).toContainEqual(
        expect.stringMatching(/^plain call files under tools\/: .*the packs were read/),
      );
      for (const file of files)
        expect(
          host.requests.filter((request) => request === file),
          file,
        ).toHaveLength(1);
      expect(host.requests.filter((request) => request.startsWith('packs/'))).toHaveLength(files.length);
    } finally {
      await host.close();
    }
  });

  it('reports a pack the host lacks (404) or answers with its own page (200 HTML), with what to do', async () => {
    const [echoPack] = (await packFilesOf(packed, 'echo')).filter((file) => file.endsWith('.pack'));
    const [otherPack] = (await packFilesOf(packed, 'other')).filter((file) => file.endsWith('.pack'));
    const host = await hostPackedTree(packed, { [echoPack!]: '404', [otherPack!]: 'page' });
    try {
      const { code, report, stderr } = await check(host.url);
      expect(code).toBe(1);
      // The summary counts the problems (in the plural), each line names one with what to do.
      expect(stderr).toMatch(/✗ .*: 2 problems \(/);
      expect(stderr).toContain(`✗ packs/echo/: ${echoPack} is missing`);
      expect(stderr).toContain('what to do: deploy (or copy) the whole tree, packs/ included');
      const deploy = expect.stringMatching(/^deploy \(or copy\) the whole tree, packs\/ included/);
      expect(report.problems).toEqual([
        {
          path: 'packs/echo/',
          message: `${echoPack} is missing: ${WORDS.length} calls cannot be answered`,
          hint: deploy,
        },
        {
          path: 'packs/other/',
          message: `${otherPack} is missing: 10 calls cannot be answered (the host answered something else: its page for a missing file?)`,
          hint: deploy,
        },
      ]);
    } finally {
      await host.close();
    }
  });
});
