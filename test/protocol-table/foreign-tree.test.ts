// Another generator's tree through each way a tree is read (in-process, serve over stdio, the edge
// worker in workerd): a docusaurus-smg style tree, whose get_resource files sit at the document's
// path, so a raw argument holding `/` is nested folders; the URI is tried as sent and without its
// scheme. Nothing outside the tool's folder is ever read, whatever the value says. serve --http
// answers from the same folder reader and session as stdio (protocol-table.test.ts shows the two
// transports give the core's answers), so it is not started again here.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentAnswer, writeDocusaurusTree } from '../bridge/docusaurus-tree.js';
import { type Driver, inProcessDriver, stdioDriver } from './drivers.js';
import { workerdDriver } from './runtime-drivers.js';
import type { ProtocolResponse } from './cases.js';

const DRIVERS: Driver[] = [inProcessDriver, stdioDriver, workerdDriver];

let tree: string;

beforeAll(async () => {
  tree = await writeDocusaurusTree({
    // Bait beside and above the tool's folder: a value that climbs must never reach them.
    'tools/secret.json': { content: [{ type: 'text', text: 'SECRET' }] },
    'tools/get_resource.json': { content: [{ type: 'text', text: 'SECRET' }] },
  });
  await fs.writeFile(
    path.join(path.dirname(tree), 'outside.json'),
    JSON.stringify({ content: [{ type: 'text', text: 'SECRET' }] }),
  );
});

afterAll(async () => {
  if (tree) await fs.rm(path.dirname(tree), { recursive: true, force: true });
});

const text = (response: ProtocolResponse): string =>
  ((response.result?.content ?? []) as { text?: string }[]).map((item) => item.text ?? '').join('');

describe.each(DRIVERS)('a docusaurus-smg tree through $name', (driver) => {
  it('answers get_resource for URIs with and without their scheme, and reads the resources', async () => {
    const connection = await driver.open(tree);
    try {
      let id = 0;
      const call = (uri: string) =>
        connection.request(`c${++id}`, 'tools/call', { name: 'get_resource', arguments: { uri } });
      for (const [sent, uri] of [
        ['docs://docs/intro', 'docs://docs/intro'],
        ['docs/intro', 'docs://docs/intro'],
        ['docs://docs/guides/setup', 'docs://docs/guides/setup'],
        ['blog/launch', 'docs://blog/launch'],
      ] as const) {
        const response = await call(sent);
        expect(response.result?.isError, `${sent}: ${text(response)}`).toBeUndefined();
        expect(text(response)).toBe(documentAnswer(uri));
      }
      const read = await connection.request(`c${++id}`, 'resources/read', { uri: 'docs://docs/guides/setup' });
      const contents = read.result?.contents as { text: string }[];
      expect(contents[0]?.text).toMatch(/Install it/);
      const list = await connection.request(`c${++id}`, 'tools/call', { name: 'list_resources', arguments: {} });
      expect(JSON.parse(text(list))).toContain('docs/guides/setup');

      for (const uri of [
        'docs/../../secret',
        '../secret',
        'docs://../secret',
        'docs://../../outside',
        '/etc/passwd',
        'docs//intro',
        'docs/./intro',
        'docs/intro/',
        '..',
        '',
      ]) {
        const response = await call(uri);
        expect(text(response), uri).not.toContain('SECRET');
        expect(response.result?.isError, uri).toBe(true);
      }
    } finally {
      await connection.close();
    }
  });
});
