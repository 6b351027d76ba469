// Content at any size (issue #39), in-process: a project of 80 text resources built with small
// list parts and a small file budget (and a resource-file margin of 40, its test hook, not 500): mcp.json keeps the first entries, part files hold the rest,
// the resources past the inline ones are packed (each once: its raw name is one more name of its record); resources/list walks the parts a part per page,
// resources/read finds packed and part-listed resources, search indexes every document, check
// passes the tree, reports a damaged part and holds an app page listed in a part to the apps' rules.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/builder/build-project.js';
import { checkTree } from '../../src/check/check-tree.js';
import { listTreeFiles } from '../../src/check/list-tree-files.js';
import { McpSession } from '../../src/core/mcp/mcp-session.js';
import { ManifestPackedSource } from '../../src/core/packs/manifest-packed-source.js';
import { parsePack } from '../../src/core/packs/pack-format.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';
import { FolderSource } from '../../src/hosts/node/folder-source.js';
import { createNodeServerContext } from '../../src/hosts/node/node-server-context.js';
import type { TreeSource } from '../../src/core/tree/tree-source.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { RESOURCE_FILES_IN_MARGIN_VARIABLE } from '../../src/builder/host-limits.js';

const DOCUMENTS = 80;
/** The documents and one MCP App page. */
const LISTED = DOCUMENTS + 1;
const INLINE = 10;
/** Below resources/list's page of 100: a page is a whole part, never more. */
const PER_PART = 25;
/** The resource files a tree keeps plain whatever its budget (500 without the test hook). */
const RESOURCE_FILES_IN_MARGIN = '40';

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

/** The text of a resources/read answer's first item. */
function firstText(answer: Answer): string {
  const contents = answer.result?.contents as { text?: string }[] | undefined;
  return contents?.[0]?.text ?? '';
}

const name = (index: number) => `doc-${String(index).padStart(4, '0')}`;

async function openSession(tree: string, logged: string[] = [], read: string[] = []) {
  const folder = new FolderSource(tree, 'tree');
  // Every text file the server reads, as a cold worker would fetch it from its assets.
  const counting: TreeSource = {
    displayName: folder.displayName,
    revalidateAfterMs: folder.revalidateAfterMs,
    read: (relativePath) => {
      read.push(relativePath);
      return folder.read(relativePath);
    },
    sizeOf: (relativePath) => folder.sizeOf(relativePath),
    close: () => folder.close(),
  };
  const server = await createNodeServerContext({
    source: new ManifestPackedSource(counting, new FolderPackFiles(tree)),
    packFiles: new FolderPackFiles(tree),
    logProblem: (text) => logged.push(text),
  });
  const session = new McpSession(server, () => {});
  let id = 0;
  const ask = async (method: string, params?: Record<string, unknown>): Promise<Answer> =>
    (await session.handleParsed(
      { jsonrpc: '2.0', id: ++id, method, ...(params ? { params } : {}) },
      () => {},
    )) as unknown as Answer;
  await ask('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'content-parts', version: '1' },
  });
  return { ask, close: () => session.close(0, 1_000) };
}

let tree: string;
let warnings: string[];
/** The hook's value before this file set it, put back after it. */
let marginBefore: string | undefined;

beforeAll(async () => {
  marginBefore = process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE];
  process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE] = RESOURCE_FILES_IN_MARGIN;
  const project = await temporaryFolder('content-parts-');
  await fs.mkdir(path.join(project, 'resources'));
  for (let index = 0; index < DOCUMENTS; index++)
    await fs.writeFile(
      path.join(project, 'resources', `${name(index)}.txt`),
      `Document ${index} of the corpus. Its marker word is zq${index}x.\n`,
    );
  // An MCP App page: listed last, so in a part, where check must still hold it to the apps' rules.
  await fs.mkdir(path.join(project, 'ui', 'chart'), { recursive: true });
  await fs.writeFile(
    path.join(project, 'ui', 'chart', 'index.html'),
    '<!doctype html><title>Chart</title><p>chart</p>',
  );
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({ limits: { resourcesInManifest: INLINE, resourcesPerListPart: PER_PART, maxCallFiles: 10 } }),
  );
  tree = path.join(project, 'dist');
  const report = await buildProject({ projectRoot: project, outDir: tree });
  expect(report.failures).toEqual([]);
  expect(report.resources).toBe(LISTED);
  warnings = report.warnings.map((warning) => warning.message);
}, 60_000);

afterAll(() => {
  if (marginBefore === undefined) delete process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE];
  else process.env[RESOURCE_FILES_IN_MARGIN_VARIABLE] = marginBefore;
});

describe('a content tree past the inline list and the file budget', () => {
  it('keeps mcp.json to the inline entries and names the parts', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
    expect(manifest.capabilities.resources).toHaveLength(INLINE);
    const { resourceList } = manifest.staticmcp;
    expect(resourceList.total).toBe(LISTED);
    expect(resourceList.parts.map((part: { count: number }) => part.count)).toEqual([25, 25, 21]);
    for (const part of resourceList.parts) expect(part.path).toMatch(/^lists\/resources\/[0-9a-f]{16}\.json$/);
  });

  it('packs the resources past the inline ones, keeping the inline ones plain at both names', async () => {
    const { files } = await listTreeFiles(tree);
    // Inline: the encoded file and the raw name other bridges read.
    expect(files).toContain('resources/doc-0000_txt.json');
    expect(files).toContain('resources/doc-0000.txt.json');
    expect(files).not.toContain(`resources/${name(50)}_txt.json`);
    expect(files.filter((file) => file.startsWith('resources/'))).toHaveLength(INLINE * 2);
    expect(files.some((file) => /^packs\/resources\.files\/[0-9a-f]{16}\.pack$/.test(file))).toBe(true);
    expect(warnings.join('\n')).toMatch(/resource files, more than the file budget leaves them/);
    const headers = await fs.readFile(path.join(tree, '_headers'), 'utf8');
    expect(headers).toContain('/packs/*');
  });

  it('packs each packed document once, under its encoded and its raw name', async () => {
    const folder = path.join(tree, 'packs', 'resources.files');
    const namesByRecord: string[][] = [];
    for (const file of (await fs.readdir(folder)).filter((entry) => entry.endsWith('.pack'))) {
      const parsed = parsePack(await fs.readFile(path.join(folder, file)), file);
      if ('status' in parsed) throw new Error(parsed.reason);
      namesByRecord.push(...parsed.records.map(({ record }) => record.names));
    }
    // A raw name is one more name of its encoded twin's record, whether its twin was held past the
    // margin (the copy held too) or written as a file before it (the copy written anew).
    const packed = Array.from({ length: DOCUMENTS - INLINE }, (_, offset) => name(INLINE + offset));
    expect(namesByRecord.filter((names) => names.some((one) => one.startsWith('resources/doc-')))).toEqual(
      expect.arrayContaining(packed.map((one) => [`resources/${one}_txt.json`, `resources/${one}.txt.json`])),
    );
    expect(namesByRecord.flat().filter((one) => one.startsWith('resources/doc-'))).toHaveLength(packed.length * 2);
  });

  it('lists every resource once, a page never crossing a part, with the total', async () => {
    const read: string[] = [];
    const { ask, close } = await openSession(tree, [], read);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const answer = await ask('resources/list', cursor ? { cursor } : undefined);
      const result = answer.result!;
      expect((result._meta as Record<string, unknown>)['staticmcp/total']).toBe(LISTED);
      const resources = result.resources as { uri: string }[];
      expect(resources.length).toBeLessThanOrEqual(100);
      seen.push(...resources.map((resource) => resource.uri));
      cursor = result.nextCursor as string | undefined;
      pages += 1;
      // A cold server's initialize and first page read mcp.json alone; each later page one part.
      if (pages === 1) expect(read).toEqual(['mcp.json']);
      else expect(read.filter((file) => file.startsWith('lists/'))).toHaveLength(pages - 1);
    } while (cursor !== undefined && pages < 50);
    expect(seen).toHaveLength(LISTED);
    expect(new Set(seen).size).toBe(LISTED);
    // The inline 10, then one page per part: a page never crosses a part.
    expect(pages).toBe(1 + 3);
    const forged = await ask('resources/list', { cursor: 'eyJsIjoicmVzb3VyY2VzIn0' });
    expect(forged.error?.code).toBe(-32602);
    await close();
  });

  it('reads a packed resource listed in a part, and refuses a URI no file records', async () => {
    const { ask, close } = await openSession(tree);
    const packed = await ask('resources/read', { uri: `resource://${name(79)}.txt` });
    expect(firstText(packed)).toContain('zq79x');
    const inline = await ask('resources/read', { uri: `resource://${name(3)}.txt` });
    expect(firstText(inline)).toContain('zq3x');
    // Encodes to doc-0079_txt.json too, but that file records another URI.
    const lookalike = await ask('resources/read', { uri: `resource://${name(79)}_txt` });
    expect(lookalike.error?.code).toBe(-32002);
    await close();
  });

  it('indexes the documents of every part for search', async () => {
    const { ask, close } = await openSession(tree);
    const answer = await ask('tools/call', { name: 'search', arguments: { query: 'zq70x' } });
    expect(JSON.stringify(answer.result)).toContain(`${name(70)}`);
    await close();
  });

  it('passes check, and check names a missing part', async () => {
    const check = async () => {
      const { files } = await listTreeFiles(tree);
      const packFiles = new FolderPackFiles(tree);
      return checkTree({
        source: new ManifestPackedSource(new FolderSource(tree, 'tree'), packFiles),
        files,
        packFiles,
      });
    };
    const clean = await check();
    expect(clean.problems).toEqual([]);
    expect(clean.checked.resources).toBe(LISTED);
    const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
    const part = manifest.staticmcp.resourceList.parts[1].path as string;
    const saved = await fs.readFile(path.join(tree, part));
    await fs.rm(path.join(tree, part));
    try {
      const damaged = await check();
      expect(damaged.problems.map((problem) => `${problem.path} ${problem.message}`).join('\n')).toContain(part);
    } finally {
      await fs.writeFile(path.join(tree, part), saved);
    }
  });

  it("holds an app page listed in a part to MCP Apps' MIME type", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
    const part = manifest.staticmcp.resourceList.parts.at(-1).path as string;
    const saved = await fs.readFile(path.join(tree, part), 'utf8');
    expect(saved).toContain('ui://chart');
    await fs.writeFile(path.join(tree, part), saved.replace('"text/html;profile=mcp-app"', '"text/html"'));
    try {
      const { files } = await listTreeFiles(tree);
      const packFiles = new FolderPackFiles(tree);
      const checked = await checkTree({
        source: new ManifestPackedSource(new FolderSource(tree, 'tree'), packFiles),
        files,
        packFiles,
      });
      expect(checked.problems.map((problem) => `${problem.path} ${problem.message}`).join('\n')).toMatch(
        new RegExp(`${part}#/resources/\\d+/mimeType the ui:// resource "ui://chart`),
      );
    } finally {
      await fs.writeFile(path.join(tree, part), saved);
    }
  });
});
