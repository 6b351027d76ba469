// The Dockerfile `init` writes for the live origin (issue 27). There is no container engine on
// these machines, so its instructions are checked as text, then its CMD and HEALTHCHECK run here
// as the image would run them (the installed `staticmcp` is this CLI): it listens on $PORT,
// reports healthy, and on SIGTERM lets a run in flight finish before exiting 0.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { signOriginRequest } from '../../src/core/origin/origin-signature.js';
import { packageInfo } from '../../src/shared/version.js';
import { runCli } from '../helpers/cli.js';
import { CLI } from '../helpers/paths.js';
import { waitUntil } from '../helpers/processes.js';
import { removeTemporaryFolders, temporaryFolder } from '../helpers/temp-folders.js';

const KEY = 'dockerfile-test-key-0123456789abcdef';

afterAll(removeTemporaryFolders);

/** The Dockerfile's instructions, continuation lines joined and comments left out. */
function instructionsOf(text: string): { name: string; rest: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [name = '', ...rest] = line.split(/\s+/);
      return { name: name.toUpperCase(), rest: rest.join(' ') };
    });
}

it('writes a Dockerfile whose command runs the live origin, healthy, and finishing calls in flight on SIGTERM', async () => {
  const project = path.join(await temporaryFolder(), 'project');
  const init = await runCli(['init', project]);
  expect(init.code, init.stderr).toBe(0);
  const dockerfile = await fs.readFile(path.join(project, 'Dockerfile'), 'utf8');
  const instructions = instructionsOf(dockerfile);
  const { version } = packageInfo();
  expect(instructions[0]).toEqual({ name: 'FROM', rest: expect.stringMatching(/^node:(2\d)(-slim)?$/) });
  // Before publication the image installs the tarball init packed, which is in the project.
  const copy = instructions.find((item) => item.name === 'COPY' && item.rest.includes('.tgz'));
  expect(copy?.rest).toBe(`deploy/staticmcp-${version}.tgz /tmp/staticmcp.tgz`);
  await fs.access(path.join(project, 'deploy', `staticmcp-${version}.tgz`));
  expect(
    instructions.some((item) => item.name === 'RUN' && item.rest.startsWith('npm install --global /tmp/staticmcp.tgz')),
  ).toBe(true);
  expect(instructions.some((item) => item.name === 'USER' && item.rest === 'node')).toBe(true);
  const healthcheck = instructions.find((item) => item.name === 'HEALTHCHECK');
  const cmd = instructions.filter((item) => item.name === 'CMD').at(-1);
  expect(JSON.parse(cmd!.rest)).toEqual(['staticmcp', 'serve', '.', '--origin']);
  const healthWords = JSON.parse(healthcheck!.rest.replace(/^.*?CMD\s+/, '')) as string[];
  expect(healthWords.join(' ')).toContain('/healthz');
  // `COPY . /app` would otherwise bake a local secrets file (deploy/.dev.vars) into the image.
  const dockerignore = (await fs.readFile(path.join(project, '.dockerignore'), 'utf8')).split('\n');
  expect(dockerignore).toEqual(expect.arrayContaining(['**/.dev.vars*', '**/.env*']));
  expect(dockerignore.filter((line) => line.includes('.tgz') || line.startsWith('deploy'))).toEqual([]);

  // A live tool that takes a moment, to be in flight when SIGTERM comes.
  await fs.writeFile(
    path.join(project, 'tools', 'slow'),
    `#!/bin/sh\nif [ "$1" = "--help" ]; then echo "{}"; echo '{"text": {"description": "any", "required": true, "value_type": "string"}}' >&2; exit 0; fi\nsleep 1\necho finished\n`,
    { mode: 0o755 },
  );
  // The image builds the tree its origin checks run requests against, as the RUN line does here.
  const build = instructions.find((item) => item.name === 'RUN' && item.rest.includes('"build"'));
  expect(JSON.parse(build!.rest)).toEqual(['staticmcp', 'build', '.']);
  const built = await runCli(['build', project]);
  expect(built.code, built.stderr).toBe(0);
  const [, ...args] = JSON.parse(cmd!.rest) as string[];
  const origin = spawn(process.execPath, [CLI, ...args], {
    cwd: project,
    env: { ...process.env, PORT: '0', STATICMCP_ORIGIN_KEY: KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  origin.stderr!.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => origin.on('close', (code) => resolve(code)));
  try {
    const port = await waitUntil(() => /Live origin: http:\/\/0\.0\.0\.0:(\d+)\//.exec(log)?.[1], 15_000, 'the origin');
    const [command = '', ...healthArgs] = healthWords;
    expect(command).toBe('node');
    const health = await new Promise<number | null>((resolve) => {
      const check = spawn(process.execPath, healthArgs, { env: { ...process.env, PORT: port }, stdio: 'ignore' });
      check.on('close', resolve);
    });
    expect(health).toBe(0);

    const body = new TextEncoder().encode(
      JSON.stringify({ scriptPath: 'tools/slow', phase: 'live', toolName: 'slow' }),
    );
    const response = await fetch(`http://127.0.0.1:${port}/live-run`, {
      method: 'POST',
      headers: await signOriginRequest(KEY, { method: 'POST', path: '/live-run', body, client: 'test' }),
      body,
    });
    expect(response.status).toBe(200);
    origin.kill('SIGTERM');
    const answer = await response.text();
    expect(answer).toContain('"outcome"');
    expect(answer).toContain(Buffer.from('finished\n').toString('base64'));
    expect(await exited).toBe(0);
    expect(log).toMatch(/stopping: 1 run\(s\) in flight finish first/);
  } finally {
    origin.kill('SIGKILL');
  }
}, 60_000);
