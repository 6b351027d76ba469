// `server.d/register.json` read in-process (src/project/register-json.ts): every way the file can
// be invalid is refused with REGISTER_INVALID and a message naming what is wrong. One such build
// through the CLI (test/build/mcp-surface.test.ts) shows what a user sees: exit 1, nothing written.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { readRegistration, REGISTER_FILE } from '../../src/project/register-json.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

/** A project holding `tools/a/first`, `tools/second` and the given register.json. */
async function projectWith(content: string | Buffer): Promise<string> {
  const project = await temporaryFolder('staticmcp-register-');
  await fs.mkdir(path.join(project, 'tools/a'), { recursive: true });
  await fs.writeFile(path.join(project, 'tools/a/first'), '#!/bin/sh\necho ok\n', { mode: 0o755 });
  await fs.writeFile(path.join(project, 'tools/second'), '#!/bin/sh\necho ok\n', { mode: 0o755 });
  await fs.mkdir(path.join(project, path.dirname(REGISTER_FILE)), { recursive: true });
  await fs.writeFile(path.join(project, REGISTER_FILE), content);
  return project;
}

describe('register.json', () => {
  it('lists the kinds it names, [] disabling one, and leaves the others to discovery', async () => {
    const project = await projectWith(
      JSON.stringify({ version: 1, tools: [{ name: 'only-first', path: 'a/first' }], resources: [] }),
    );
    const registration = await readRegistration(project);
    expect(registration?.tools).toEqual([{ name: 'only-first', path: 'a/first' }]);
    expect(registration?.resources).toEqual([]);
    expect(registration?.prompts).toBeUndefined();
    expect(await readRegistration(await temporaryFolder('staticmcp-register-'))).toBeNull();
  });

  it.each([
    [
      'a byte-order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"version": 1}')]),
      /byte-order mark/,
    ],
    ['a comment', '{ "version": 1, // tools come later\n }', /not standard JSON/],
    ['an unknown key', '{ "version": 1, "tool": [] }', /unknown top-level key "tool"/],
    ['version 2', '{ "version": 2 }', /"version" must be 1, found 2/],
    ['a kind that is not an array', '{ "version": 1, "tools": {} }', /"tools" must be an array or null/],
    [
      'a duplicate name',
      '{ "version": 1, "tools": [{"name": "x", "path": "second"}, {"name": "x", "path": "a/first"}] }',
      /tools\[1\]: duplicate name "x"/,
    ],
    [
      'a path escaping the project',
      '{ "version": 1, "tools": [{"name": "x", "path": "../../etc/passwd"}] }',
      /tools\[0\]\.path "\.\.\/\.\.\/etc\/passwd" leaves tools/,
    ],
    [
      'an invalid tool name',
      '{ "version": 1, "tools": [{"name": "a.b", "path": "second"}] }',
      /tools\[0\]: entry\.name must match pattern/,
    ],
  ])('is refused with %s', async (_case, content, reason) => {
    const refusal = await readRegistration(await projectWith(content)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StaticMcpError);
    expect(refusal).toMatchObject({ code: 'REGISTER_INVALID', message: expect.stringMatching(reason) });
    expect((refusal as StaticMcpError).hint).toEqual(expect.any(String));
  });
});
