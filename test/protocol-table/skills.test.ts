// Skills (io.modelcontextprotocol/skills) through the protocol table's drivers that run the
// session: the tree of test/fixtures/skills-project through the in-process core, serve over stdio
// and serve --http, in both protocol eras; then as the official SDK client reaches them
// (`client.request`: SDK 1.32 has no skills methods) over stdio and HTTP. Each host declares the
// extension, lists and gets the skills with their cache hints, and serves every listed file with
// the bytes its digest and size describe. The driver and the SDK client share one `serve --http`
// (each opens its own session on it). The hosts that read the tree from elsewhere run the same
// session (`serve <URL>`) or the tree's worker (the edge runtimes): test/hosts/real-hosts.test.ts
// lists, gets and reads the same skills on each of them, over the packed example that carries
// this fixture's skills, and test/inspector/skills-inspector.test.ts verifies them in workerd.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { buildFixtureProject, writeTree } from '../helpers/projects.js';
import type { ProtocolResponse } from './cases.js';
import { type Driver, inProcessDriver, sharedNodeHttpDriver, stdioDriver, TABLE_PROTOCOL_VERSION } from './drivers.js';
import { MODERN_META } from './modern-cases.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/skills-project');
const SKILLS_ID = 'io.modelcontextprotocol/skills';
const REFUNDS = 'skill://acme/billing/refunds/SKILL.md';
const SKILL_URIS = [
  REFUNDS,
  'skill://acme/billing/refunds/chargebacks/SKILL.md',
  'skill://greeting-etiquette/SKILL.md',
];
/** Every file of the refunds skill, its nested skill's SKILL.md included, and where the project holds it. */
const REFUNDS_FILES: [uri: string, projectFile: string][] = [
  [REFUNDS, 'skills/acme/billing/refunds/SKILL.md'],
  ['skill://acme/billing/refunds/assets/stamp.png', 'skills/acme/billing/refunds/assets/stamp.png'],
  ['skill://acme/billing/refunds/chargebacks/SKILL.md', 'skills/acme/billing/refunds/chargebacks/SKILL.md'],
  ['skill://acme/billing/refunds/examples/email.md', 'skills/acme/billing/refunds/examples/email.md'],
];

interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

let tree: string;
let httpServe: Promise<HttpServe> | undefined;

beforeAll(() => {
  tree = path.join(buildFixtureProject('skills-project'), 'dist');
});

afterAll(async () => {
  await (await httpServe)?.stop();
});

/** The file's one `serve --http` of the tree. */
const sharedHttpServe = (): Promise<HttpServe> => {
  httpServe ??= HttpServe.start([tree]);
  return httpServe;
};

/** What a client gets from one contents item: text as UTF-8, a blob decoded. */
function bytesOf(item: { text?: string; blob?: string }): Buffer {
  return item.text !== undefined ? Buffer.from(item.text, 'utf8') : Buffer.from(item.blob ?? '', 'base64');
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function expectRefundsEntry(entry: SkillEntry | undefined): void {
  expect(entry?.frontmatter).toEqual({
    name: 'refunds',
    description: 'Process customer refund requests per company policy.',
    license: 'Apache-2.0',
    metadata: { owner: 'billing', version: '2.1' },
  });
  expect(entry?.resources.map((resource) => resource.uri)).toEqual(REFUNDS_FILES.map(([uri]) => uri));
  for (const [uri, projectFile] of REFUNDS_FILES) {
    const bytes = readFileSync(path.join(FIXTURE, projectFile));
    expect(entry?.resources.find((resource) => resource.uri === uri)).toEqual({
      uri,
      digest: sha256(bytes),
      size: bytes.length,
    });
  }
}

const DRIVERS: Driver[] = [inProcessDriver, stdioDriver, sharedNodeHttpDriver(sharedHttpServe)];

describe.each(DRIVERS)('the skills tree through $name', (driver) => {
  it('declares the extension, lists and gets the skills, and serves the bytes their digests describe', async () => {
    const connection = await driver.open(tree);
    let requests = 0;
    const send = (method: string, params?: Record<string, unknown>, era?: 'modern'): Promise<ProtocolResponse> => {
      requests += 1;
      return connection.request(`skills-${requests}`, method, params, era);
    };
    const ask = async (method: string, params?: Record<string, unknown>, era?: 'modern') => {
      const response = await send(method, params, era);
      expect(response.error, `${driver.name} ${method}: ${JSON.stringify(response.error)}`).toBeUndefined();
      return response.result!;
    };
    try {
      const discovered = await ask('server/discover', { _meta: MODERN_META }, 'modern');
      const capabilities = discovered.capabilities as { extensions?: Record<string, unknown>; resources?: unknown };
      expect(capabilities.extensions).toEqual({ [SKILLS_ID]: { directoryRead: true } });
      expect(capabilities.resources).toBeDefined();
      for (const era of [undefined, 'modern'] as const) {
        const meta = era ? { _meta: MODERN_META } : {};
        const listed = await ask('skills/list', meta, era);
        expect(listed).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
        const skills = listed.skills as SkillEntry[];
        expect(skills.map((skill) => skill.uri)).toEqual(SKILL_URIS);
        expectRefundsEntry(skills[0]);
        const got = await ask('skills/get', { uri: REFUNDS, ...meta }, era);
        expect(got).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
        expect(got.skill).toEqual(skills[0]);
        // Every listed file, read as a host reads it before using it.
        for (const { uri, digest, size } of skills[0]!.resources) {
          const read = await ask('resources/read', { uri, ...meta }, era);
          const [item] = read.contents as { uri: string; mimeType: string; text?: string; blob?: string }[];
          expect(item?.uri).toBe(uri);
          const bytes = bytesOf(item!);
          expect([sha256(bytes), bytes.length], uri).toEqual([digest, size]);
        }
        const unknown = await send('skills/get', { uri: 'skill://acme/billing/chargebacks/SKILL.md', ...meta }, era);
        expect(unknown.error).toMatchObject({
          code: -32602,
          message: expect.stringContaining('No skill is served at'),
        });
      }
      // The folders of the skill:// namespace, one level at a time.
      const folder = await ask('resources/directory/read', { uri: 'skill://acme/billing/refunds' });
      expect(folder.resources).toEqual([
        expect.objectContaining({ uri: REFUNDS, name: 'refunds', mimeType: 'text/markdown' }),
        { uri: 'skill://acme/billing/refunds/assets', name: 'assets', mimeType: 'inode/directory' },
        { uri: 'skill://acme/billing/refunds/chargebacks', name: 'chargebacks', mimeType: 'inode/directory' },
        { uri: 'skill://acme/billing/refunds/examples', name: 'examples', mimeType: 'inode/directory' },
      ]);
      const top = await ask('resources/directory/read', { uri: 'skill://acme', _meta: MODERN_META }, 'modern');
      expect(top).toMatchObject({
        resultType: 'complete',
        resources: [{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }],
      });
      const notFolder = await send('resources/directory/read', { uri: REFUNDS });
      expect(notFolder.error).toMatchObject({ code: -32602, message: `${REFUNDS} is not a directory resource` });
      const resources = (await ask('resources/list')).resources as { uri: string; name: string; mimeType: string }[];
      expect(resources.find((resource) => resource.uri === REFUNDS)).toMatchObject({
        name: 'refunds',
        description: 'Process customer refund requests per company policy.',
        mimeType: 'text/markdown',
        _meta: { 'io.modelcontextprotocol.skills/license': 'Apache-2.0' },
      });
      expect(resources.find((resource) => resource.uri.endsWith('stamp.png'))?.mimeType).toBe('image/png');
    } finally {
      await connection.close();
    }
  });
});

/** An SDK client's view: the extension declared, skills listed and got by `client.request`, a file read. */
async function expectSkillsThroughSdk(transport: Transport): Promise<void> {
  const client = new Client({ name: 'skills-sdk', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect(client.getServerCapabilities()?.extensions).toEqual({ [SKILLS_ID]: { directoryRead: true } });
    // The SDK's own loose result schema: the fields pass through as the server sent them.
    const listed = await client.request({ method: 'skills/list', params: {} }, ResultSchema);
    expect((listed.skills as SkillEntry[]).map((skill) => skill.uri)).toEqual(SKILL_URIS);
    const got = await client.request({ method: 'skills/get', params: { uri: REFUNDS } }, ResultSchema);
    expectRefundsEntry(got.skill as SkillEntry);
    const { contents } = await client.readResource({ uri: 'skill://acme/billing/refunds/examples/email.md' });
    // CRLF line endings, as the file has them: the digest is of these bytes.
    expect(contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('Dear customer,\r\n'),
    });
  } finally {
    await client.close();
  }
}

describe('the SDK client', () => {
  it('over stdio', async () => {
    await expectSkillsThroughSdk(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', tree], stderr: 'pipe' }),
    );
  });

  it('over HTTP (serve --http)', async () => {
    await expectSkillsThroughSdk(new StreamableHTTPClientTransport((await sharedHttpServe()).endpoint));
  });
});

describe('a hand-written tree through the in-process core', () => {
  const manifest = (skills?: unknown) => ({
    protocolVersion: TABLE_PROTOCOL_VERSION,
    serverInfo: { name: 'hand-written', version: '1.0.0' },
    capabilities: { tools: [], resources: [] },
    staticmcp: { profileVersion: 1, tools: {}, ...(skills ? { skills } : {}) },
  });

  it('pages skills/list 100 entries at a time', async () => {
    const entries = Array.from({ length: 150 }, (_, index) => ({
      uri: `skill://s${index}/SKILL.md`,
      frontmatter: { name: `s${index}`, description: `Skill ${index}` },
      resources: [{ uri: `skill://s${index}/SKILL.md`, digest: `sha256:${'0'.repeat(64)}`, size: 1 }],
    }));
    const root = await writeTree({
      'mcp.json': manifest({ count: 150, list: 'skills/list.json' }),
      'skills/list.json': { skills: entries },
    });
    const connection = await inProcessDriver.open(root);
    try {
      const first = (await connection.request('p1', 'skills/list', {})).result!;
      expect((first.skills as unknown[]).length).toBe(100);
      const second = (await connection.request('p2', 'skills/list', { cursor: first.nextCursor })).result!;
      expect((second.skills as SkillEntry[]).map((skill) => skill.uri)).toEqual(
        entries.slice(100).map((entry) => entry.uri),
      );
      expect(second.nextCursor).toBeUndefined();
    } finally {
      await connection.close();
    }
  });

  it('declares nothing without skills: a 2026-07-28 skills request is an unknown method', async () => {
    const connection = await inProcessDriver.open(await writeTree({ 'mcp.json': manifest() }));
    try {
      const discovered = (await connection.request('d', 'server/discover', { _meta: MODERN_META }, 'modern')).result!;
      expect((discovered.capabilities as { extensions?: unknown }).extensions).toBeUndefined();
      const modern = await connection.request('m', 'skills/list', { _meta: MODERN_META }, 'modern');
      expect(modern.error?.code).toBe(-32601);
      // The handshake era names no capability per method: an empty listing.
      expect((await connection.request('l', 'skills/list', {})).result?.skills).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
