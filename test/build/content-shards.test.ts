// `build --shard` on a content project, through the real CLI (issue #39): Markdown resources and a
// built website with search on, built whole and as 2 shards; each part holds a share of the
// documents, `merge` writes the one-machine tree byte for byte and `check` passes it. The split and
// the merge's checks on bigger trees run in-process: test/unit/content-shards.test.ts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fingerprint } from '../helpers/files.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const SITE = path.join(import.meta.dirname, '..', 'fixtures', 'site-project', 'public');
const DOCUMENTS = 16;

it('splits a content project over 2 shards and merges the one-machine tree, which check passes', async () => {
  const root = await temporaryFolder('content-shards-cli-');
  const project = path.join(root, 'project');
  await fs.mkdir(path.join(project, 'resources'), { recursive: true });
  for (let index = 0; index < DOCUMENTS; index++)
    await fs.writeFile(
      path.join(project, 'resources', `note-${index}.md`),
      `# Note ${index}\n\nWhat note ${index} says, with the word zq${index}x.\n`,
    );
  await fs.cp(SITE, path.join(project, 'public'), { recursive: true });
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({ site: 'public', search: true, publicUrl: 'https://docs.example.org' }),
  );
  const built = await runCli(['build', project, '--out', path.join(root, 'whole')]);
  expect(built.code, built.stderr).toBe(0);
  const parts = [path.join(root, 'part-1'), path.join(root, 'part-2')];
  for (const [index, part] of parts.entries()) {
    const shard = await runCli(['build', project, '--shard', `${index + 1}/2`, '--out', part]);
    expect(shard.code, shard.stderr).toBe(0);
  }
  const documentsIn = async (part: string) =>
    Object.keys(await fingerprint(part)).filter((file) => file.startsWith('resources/')).length;
  const [first, second] = [await documentsIn(parts[0]!), await documentsIn(parts[1]!)];
  expect(first).toBeGreaterThan(0);
  expect(second).toBeGreaterThan(0);

  const merged = await runCli(['merge', ...parts, '--out', path.join(root, 'merged')]);
  expect(merged.code, merged.stderr).toBe(0);
  expect(await fingerprint(path.join(root, 'merged'))).toEqual(await fingerprint(path.join(root, 'whole')));
  const checked = await runCli(['check', path.join(root, 'merged')]);
  expect(checked.code, checked.stdout + checked.stderr).toBe(0);
}, 60_000);
