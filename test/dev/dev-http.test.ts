// `staticmcp dev --http` as a user runs it: the edit loop over Streamable HTTP. An HTTP client
// (the official SDK's, with its GET stream) is told the resource list changed after an edit and
// reads the new list; the tree's site (the playground) is served at / as `serve --http` does.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, it } from 'vitest';
import { CLI, REPO_ROOT } from '../helpers/paths.js';
import { writeProject } from '../helpers/projects.js';

async function waitUntil(what: string, holds: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('staticmcp dev --http', () => {
  it('tells an HTTP client the resource list changed after an edit, and serves the site at /', async ({
    expect,
    onTestFinished,
  }) => {
    const project = await writeProject({ 'resources/notes.md': '# Notes\n\nFirst version.\n' });
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [CLI, 'dev', project, '--http', '--port', '0'],
      { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    onTestFinished(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    await waitUntil(`dev to listen and watch: ${stderr}`, () => /watching for changes/.test(stderr));
    const port = Number(/MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)?.[1]);
    expect(port).toBeGreaterThan(0);

    const site = await fetch(`http://127.0.0.1:${port}/`);
    expect(site.status).toBe(200);
    expect(site.headers.get('content-type')).toMatch(/text\/html/);

    const client = new Client({ name: 'dev-http-test', version: '1.0.0' });
    const changes: string[] = [];
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changes.push('resources'));
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    onTestFinished(async () => {
      await client.close();
    });
    expect(client.getServerCapabilities()).toMatchObject({ resources: { listChanged: true } });
    expect((await client.listResources()).resources).toHaveLength(1);

    await fs.writeFile(path.join(project, 'resources/more.md'), '# More\n\nA second page.\n');
    await waitUntil(`resources/list_changed: ${stderr}`, () => changes.length > 0);
    expect(changes).toEqual(['resources']);
    expect((await client.listResources()).resources.map((resource) => resource.name).sort()).toHaveLength(2);
    // stdout carries nothing in HTTP mode: the protocol goes over HTTP.
    expect(stdout).toBe('');
  });
});
