// `staticmcp init`: a starter project that builds as it is, and never a file overwritten.
import { afterAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildJson, readJson, removeTemporaryFolders, runCli, temporaryFolder } from '../build/helpers.js';

afterAll(removeTemporaryFolders);

describe('staticmcp init', () => {
  it('creates a project that builds at once, with an executable tool and a .gitignore', async () => {
    const project = path.join(await temporaryFolder(), 'my-server');
    const init = await runCli(['init', project]);
    expect(init.code).toBe(0);
    expect(init.stderr).toContain('next: staticmcp build');
    expect((await fs.stat(path.join(project, 'tools/hello'))).mode & 0o111).not.toBe(0);
    expect(await fs.readFile(path.join(project, '.gitignore'), 'utf8')).toContain('.staticmcp/');
    const { code, report } = await buildJson(project);
    expect(code).toBe(0);
    expect(report.tools).toEqual([expect.objectContaining({ name: 'hello', precomputed: 4 })]);
    expect(await readJson(path.join(project, 'dist/tools/hello/mcp/true.json'))).toMatchObject({ content: [{ text: 'Hello, MCP!\n' }] });
  });

  it('refuses a folder that is not empty, with exit 2, and leaves it as it was', async () => {
    const folder = await temporaryFolder();
    await fs.writeFile(path.join(folder, 'notes.txt'), 'mine');
    const init = await runCli(['init', folder]);
    expect(init.code).toBe(2);
    expect(init.stderr).toMatch(/INIT_NOT_EMPTY.*never overwrites/);
    expect(await fs.readdir(folder)).toEqual(['notes.txt']);
  });
});
