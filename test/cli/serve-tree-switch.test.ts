// A running `staticmcp serve <tree>` under a rebuild, as a user meets it: the project is built
// again while the bridge runs, and the next requests are answered from the new tree as a whole
// (its search index with its files, never the old index over new files), the client is told the
// resource list changed, and nothing says the index is damaged. The builds run in-process (the
// build command's decision, writing the tree as the CLI does): the serve process is under test.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { buildInProcess } from '../helpers/in-process-build.js';
import { makeProject } from '../helpers/projects.js';
import { type JsonRpcMessage, RawBridge } from '../helpers/raw-bridge.js';

const searchText = (response: JsonRpcMessage): string =>
  ((response.result?.content as { text?: string }[] | undefined) ?? []).map((item) => item.text ?? '').join('');

describe('serve <tree> while the project is rebuilt', () => {
  it('switches to the rebuilt tree: search answers the new text, and resources/list_changed is sent', async ({
    expect,
    onTestFinished,
  }) => {
    const project = await makeProject({
      config: { search: true },
      files: { 'resources/guide.md': '# Guide\n\nThe harbour opens at dawn.\n' },
    });
    expect((await buildInProcess(project)).code).toBe(0);
    const tree = path.join(project, 'dist');
    const serve = new RawBridge([tree]);
    onTestFinished(async () => {
      await serve.close();
    });
    const init = await serve.initialize();
    expect(init.result?.capabilities).toMatchObject({ resources: { listChanged: true } });
    expect(searchText(await serve.request('tools/call', { name: 'search', arguments: { query: 'harbour' } }))).toMatch(
      /guide/,
    );

    await fs.writeFile(path.join(project, 'resources/guide.md'), '# Guide\n\nThe lighthouse is painted blue.\n');
    await fs.writeFile(path.join(project, 'resources/extra.md'), '# Extra\n\nAnother lighthouse, further north.\n');
    const rebuild = await buildInProcess(project);
    expect(rebuild.code, rebuild.error?.message).toBe(0);
    // A rebuild is looked for at most once a second, as a request arrives.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const found = await serve.request('tools/call', { name: 'search', arguments: { query: 'lighthouse' } });
    expect(found.result?.isError, searchText(found)).toBeUndefined();
    expect(searchText(found)).toMatch(/guide/);
    expect(searchText(found)).toMatch(/extra/);
    const gone = await serve.request('tools/call', { name: 'search', arguments: { query: 'harbour' } });
    expect(searchText(gone)).not.toMatch(/guide|damaged/);
    await serve.waitFor((frames) =>
      frames.find((frame) => (frame as JsonRpcMessage).method === 'notifications/resources/list_changed'),
    );
    const listed = (await serve.request('resources/list')).result?.resources as { uri: string }[];
    expect(listed).toHaveLength(2);
    const guide = listed.find((resource) => resource.uri.endsWith('guide.md'));
    const read = await serve.request('resources/read', { uri: guide?.uri ?? '' });
    expect(JSON.stringify(read.result)).toMatch(/painted blue/);
    expect(serve.stderr).not.toMatch(/damaged/);
  });
});
