// The no-op fast path: an identical rerun replays the last clean build's report without running
// anything, and any change it cannot see through file metadata (a value-list command, a damaged
// tree, a failed build) sends the build down the full path.
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildJson } from '../helpers/cli.js';
import { exists, readJson } from '../helpers/files.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

describe('rebuilding an unchanged project', () => {
  it('replays the report, and rebuilds as soon as a resource changes or a tree file goes missing', async () => {
    const project = await makeProject({ tools: { ok: 'ok' }, files: { 'resources/a.txt': 'first' } });
    expect((await buildJson(project)).code).toBe(0);
    const again = await buildJson(project);
    expect(again.report).toMatchObject({ ok: true, unchanged: true, resources: 1 });
    expect(again.report.tools).toEqual([expect.objectContaining({ name: 'ok', precomputed: 1, cached: 1 })]);

    await fs.writeFile(path.join(project, 'resources/a.txt'), 'second, longer');
    const edited = await buildJson(project);
    expect(edited.report.unchanged).toBe(false);
    expect(await readJson(path.join(project, 'dist/resources/a_txt.json'))).toMatchObject({ text: 'second, longer' });

    await fs.rm(path.join(project, 'dist/tools/ok.json'));
    const repaired = await buildJson(project);
    expect(repaired.report.unchanged).toBe(false);
    expect(await exists(path.join(project, 'dist/tools/ok.json'))).toBe(true);
  });

  it('always reruns value-list commands, whose output no file metadata shows', async () => {
    const outside = await temporaryFolder();
    const list = path.join(outside, 'values.txt');
    await fs.writeFile(list, 'a\n');
    const project = await makeProject({
      tools: { echo: 'echo-value' },
      config: { tools: { echo: { values: { value: { command: `cat '${list}'` } } } } },
    });
    expect((await buildJson(project)).report.tools[0]).toMatchObject({ precomputed: 1 });
    await fs.writeFile(list, 'a\nb\n');
    const { report } = await buildJson(project);
    expect(report.tools[0]).toMatchObject({ precomputed: 2 });
    expect(await readJson(path.join(project, 'dist/tools/echo/b.json'))).toMatchObject({ content: [{ text: 'b\n' }] });
  });

  it('never replays a build that failed: the failure is reported again', async () => {
    const project = await makeProject({ tools: { ok: 'ok', broken: 'help-exit-1' } });
    expect((await buildJson(project)).code).toBe(1);
    const again = await buildJson(project);
    expect(again.code).toBe(1);
    expect(again.report.failures).toEqual([expect.objectContaining({ path: 'tools/broken' })]);
  });
});
