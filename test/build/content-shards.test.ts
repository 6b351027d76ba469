// `build --shard` on a content project, through the real CLI (issue #39): Markdown resources, a
// built website and the MCP Apps fixture's app, search on, the resource list past mcp.json's inline
// entries, built whole and as 2 shards; each part holds a share of the documents, `merge` writes
// the one-machine tree byte for byte (the landing page framing the app listed in a part). The
// split, `check` on the merged tree and the merge's refusals run in-process:
// test/unit/content-shards.test.ts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { exists, fingerprint } from '../helpers/files.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const SITE = path.join(import.meta.dirname, '..', 'fixtures', 'site-project', 'public');
const DOCUMENTS = 16;

it('splits a content project over 2 shards and merges the one-machine tree', async () => {
  const root = await temporaryFolder('content-shards-cli-');
  const project = path.join(root, 'project');
  await fs.cp(path.join(REPO_ROOT, 'fixtures', 'apps'), project, { recursive: true });
  await fs.mkdir(path.join(project, 'resources'), { recursive: true });
  for (let index = 0; index < DOCUMENTS; index++)
    await fs.writeFile(
      path.join(project, 'resources', `note-${index}.md`),
      `# Note ${index}\n\nWhat note ${index} says, with the word zq${index}x.\n`,
    );
  await fs.cp(SITE, path.join(project, 'public'), { recursive: true });
  await fs.writeFile(
    path.join(project, 'staticmcp.json'),
    JSON.stringify({
      site: 'public',
      search: true,
      publicUrl: 'https://docs.example.org',
      limits: { resourcesInManifest: 2, resourcesPerListPart: 8 },
    }),
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

  // The app's page is framed by the landing page although mcp.json lists the app past its 2 entries.
  expect(await exists(path.join(root, 'whole', 'app-host.js'))).toBe(true);
  const merged = await runCli(['merge', ...parts, '--out', path.join(root, 'merged')]);
  expect(merged.code, merged.stderr).toBe(0);
  expect(await fingerprint(path.join(root, 'merged'))).toEqual(await fingerprint(path.join(root, 'whole')));
}, 60_000);
