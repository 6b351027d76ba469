// `staticmcp build` past its call-file budget (issue #24): the call files of each tool go into
// packs under packs/<tool>/ with the pack table in mcp.json, every call (left-out-default copies
// included) answered from the packs with the bytes the unpacked tree has at that path; the same
// project builds the same bytes twice; within the budget (or with 0) the tree is today's layout.
// Builds and checks run in-process (the build command's buildOrReplay, the check command's
// checkSource): packing is the build's decision, and --max-call-files reaches it as maxCallFiles.
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildInProcess } from '../helpers/in-process-build.js';
import { checkSource } from '../../src/cli/commands/check.js';
import { readTree } from '../helpers/files.js';
import { makeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { KEY_KIND, callKeyOf } from '../../src/core/packs/pack-format.js';
import { PackReader } from '../../src/core/packs/pack-reader.js';
import { parsePackTable } from '../../src/core/packs/pack-table.js';
import { verifyPackedTool } from '../../src/core/packs/verify-packs.js';
import { EXTENSION_KEY } from '../../src/core/tree/manifest.js';
import { FolderPackFiles } from '../../src/hosts/node/folder-pack-files.js';

/** A script with optional defaulted options (their left-out-default copies land in the tree). */
const GREET = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "test"}'
  echo '{"language": {"description": "language", "required": false, "value_type": {"enum": ["en", "fr", "de"]}, "default_value": "en"}, "shout": {"description": "shout", "required": false, "value_type": "boolean", "default_value": false}}' >&2
  exit 0
fi
echo "$language $shout"
`;

async function packableProject(): Promise<string> {
  const project = await makeProject({
    tools: { echo: 'echo-value', ok: 'ok' },
    config: { tools: { echo: { values: { value: ['a', 'b', 'c', 'd', 'e'] } } } },
    files: { 'tools/greet': GREET },
  });
  await fs.chmod(path.join(project, 'tools', 'greet'), 0o755);
  return project;
}

async function build(project: string, out: string, budget: string) {
  const result = await buildInProcess(project, { outDir: out, maxCallFiles: Number(budget) });
  expect(result.code, result.error?.message).toBe(0);
  return result.report;
}

/** Each packed tool's pack and index files → their inodes. */
async function packFilesOf(out: string): Promise<Map<string, Map<string, number>>> {
  const tools = new Map<string, Map<string, number>>();
  for (const tool of await fs.readdir(path.join(out, 'packs'))) {
    const files = new Map<string, number>();
    for (const name of await fs.readdir(path.join(out, 'packs', tool)))
      files.set(name, (await fs.stat(path.join(out, 'packs', tool, name))).ino);
    tools.set(tool, files);
  }
  return tools;
}

const callFilesOf = (tree: Map<string, Buffer>, tool: string) =>
  [...tree.keys()].filter((file) => file.startsWith(`tools/${tool}/`));

describe('a build past its call-file budget', () => {
  it('writes packs instead of call files, answering every call with the unpacked bytes, byte-identical on a rebuild', async () => {
    const project = await packableProject();
    const parent = await temporaryFolder();
    const plainOut = path.join(parent, 'plain');
    const packedOut = path.join(parent, 'packed');
    const plainReport = await build(project, plainOut, '0');
    const plain = await readTree(plainOut);
    expect(callFilesOf(plain, 'echo')).toHaveLength(5);
    // greet: 6 calls plus their left-out-default copies below tools/greet/.
    expect(callFilesOf(plain, 'greet').length).toBeGreaterThan(6);

    const packedReport = await build(project, packedOut, '2');
    const packed = await readTree(packedOut);
    expect(packedReport.warnings.map((warning) => warning.message)).toContainEqual(
      expect.stringMatching(
        /^this tree was packed: \d+ call files over a budget of 2 \(limits\.maxCallFiles in staticmcp\.json, or --max-call-files\); the calls of tools echo, greet went into 4 pack and index files under packs\/ \(256 KiB packs\).*; the tree still holds 6 call and pack files, over the budget/,
      ),
    );
    expect(packedReport.warnings.map((warning) => warning.message).join('\n')).not.toContain('does not write packs');
    // No plain call file of a packed tool is left; the one-file tool without parameters and the
    // all-defaults copy (`tools/greet.json`, which readers look up as a plain file) stay as they are.
    expect(callFilesOf(packed, 'echo')).toEqual([]);
    expect(callFilesOf(packed, 'greet')).toEqual([]);
    expect([...packed.keys()].filter((file) => file.startsWith('tools/')).sort()).toEqual([
      'tools/greet.json',
      'tools/ok.json',
    ]);
    expect(packed.get('tools/greet.json')).toEqual(plain.get('tools/greet.json'));
    expect([...packed.keys()].some((file) => /^packs\/echo\/[0-9a-f]{16}\.pack$/.test(file))).toBe(true);
    expect([...packed.keys()].some((file) => /^packs\/greet\/[0-9a-f]{16}\.idx$/.test(file))).toBe(true);
    // _headers is the unpacked tree's plus one rule making the content-named packs immutable in caches.
    expect(packed.get('_headers')?.toString('utf8')).toBe(
      `${plain.get('_headers')?.toString('utf8')}\n/packs/*\n  Cache-Control: public, max-age=31536000, immutable\n`,
    );
    // The content hash is over the logical files (the packs' calls, not the packs), so it differs
    // from the unpacked tree's by that rule alone, and check recomputes it from the packs.
    expect(packedReport.contentHash).not.toBe(plainReport.contentHash);
    const checked = (await checkSource(packedOut)).report;
    expect(checked.problems).toEqual([]);
    expect(checked.checked.hashedFiles).toBeGreaterThan(0);

    const manifest = JSON.parse(packed.get('mcp.json')!.toString('utf8'));
    const parsed = parsePackTable(manifest[EXTENSION_KEY].packs);
    if (!('table' in parsed)) throw new Error(parsed.problem);
    expect([...parsed.table.keys()].sort()).toEqual(['echo', 'greet']);
    const files = new FolderPackFiles(packedOut);
    const reader = new PackReader(files);
    for (const tool of ['echo', 'greet']) {
      const rows = parsed.table.get(tool)!;
      expect(await verifyPackedTool(tool, rows, files)).toEqual([]);
      for (const file of callFilesOf(plain, tool)) {
        const found = await reader.lookup(rows, KEY_KIND.call, callKeyOf(file), file);
        expect(found.status, file).toBe('ok');
        if (found.status === 'ok') expect(Buffer.from(found.body).equals(plain.get(file)!), file).toBe(true);
      }
    }

    // Deterministic: into a fresh folder, and again over the packed tree itself (--force runs every script).
    const againOut = path.join(parent, 'again');
    await build(project, againOut, '2');
    expect(await readTree(againOut)).toEqual(packed);
    const forced = await buildInProcess(project, { outDir: packedOut, maxCallFiles: 2, force: true });
    expect(forced.code, forced.error?.message).toBe(0);
    expect(await readTree(packedOut)).toEqual(packed);

    // Unpacked again over the packed tree: no pack is kept as if it were the user's.
    await build(project, packedOut, '0');
    expect(await readTree(packedOut)).toEqual(plain);
  });

  it("after a one-tool edit rewrites only that tool's packs: the other tools keep their pack files (same inodes)", async () => {
    const project = await packableProject();
    const out = path.join(await temporaryFolder(), 'tree');
    await build(project, out, '2');
    const before = await packFilesOf(out);
    expect([...before.keys()].sort()).toEqual(['echo', 'greet']);

    // One more value for echo: only echo's records change.
    const config = path.join(project, 'staticmcp.json');
    await fs.writeFile(
      config,
      JSON.stringify({ tools: { echo: { values: { value: ['a', 'b', 'c', 'd', 'e', 'f'] } } } }),
    );
    await build(project, out, '2');
    const after = await packFilesOf(out);
    expect(after.get('greet')).toEqual(before.get('greet'));
    const echoBefore = [...before.get('echo')!.keys()].sort();
    const echoAfter = [...after.get('echo')!.keys()].sort();
    expect(echoAfter).not.toEqual(echoBefore);
    // The edited tree is the one a fresh build writes.
    const fresh = path.join(await temporaryFolder(), 'fresh');
    await build(project, fresh, '2');
    expect(await readTree(out)).toEqual(await readTree(fresh));

    // A pack edited by hand in the tree is never reused: the next build packs that tool again.
    const greetPack = [...after.get('greet')!.keys()].find((name) => name.endsWith('.pack'))!;
    await fs.appendFile(path.join(out, 'packs/greet', greetPack), 'stray bytes');
    await fs.writeFile(config, JSON.stringify({ tools: { echo: { values: { value: ['a', 'b'] } } } }));
    await build(project, out, '2');
    await build(project, fresh, '2');
    expect(await readTree(out)).toEqual(await readTree(fresh));
  });

  it('packs again a tool one of whose answers changed to as many other bytes, and only that tool', async () => {
    // The records digest a rebuild finds its previous packs by is taken in the content hash's walk
    // (records-from-hash-walk.ts): the changed answer's bytes must change it.
    const project = await packableProject();
    const out = path.join(await temporaryFolder(), 'tree');
    await build(project, out, '2');
    const before = await packFilesOf(out);
    await build(project, out, '2');
    expect(await packFilesOf(out)).toEqual(before);

    const script = path.join(project, 'tools', 'greet');
    const changed = 'if [ "$language" = fr ]; then echo "FR $shout"; else echo "$language $shout"; fi';
    await fs.writeFile(script, GREET.replace('echo "$language $shout"', changed));
    await build(project, out, '2');
    const after = await packFilesOf(out);
    expect(after.get('echo')).toEqual(before.get('echo'));
    expect(after.get('greet')).not.toEqual(before.get('greet'));
    const fresh = path.join(await temporaryFolder(), 'fresh');
    await build(project, fresh, '2');
    expect(await readTree(out)).toEqual(await readTree(fresh));
  });

  it('within the budget, or with 0, writes exactly the unpacked tree', async () => {
    const project = await packableProject();
    const parent = await temporaryFolder();
    await build(project, path.join(parent, 'never'), '0');
    await build(project, path.join(parent, 'within'), '1000');
    const never = await readTree(path.join(parent, 'never'));
    const within = await readTree(path.join(parent, 'within'));
    expect(within).toEqual(never);
    expect([...never.keys()].some((file) => file.startsWith('packs/'))).toBe(false);
    expect(never.get('mcp.json')!.toString('utf8')).not.toContain('"packs"');
  });

  it('planned past the budget but ending within it (calls that fail), writes exactly the unpacked tree', async () => {
    // Seven calls planned over a budget of five: every call file waits in the spool from the
    // first; three calls die, so the four files left are within the budget and written out plainly.
    const project = await makeProject({
      tools: { ok: 'ok' },
      config: { tools: { half: { values: { value: ['a', 'b', 'c', 'd', 'e', 'f'] } } } },
      files: {
        'tools/half': `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Dies past c"}'
  echo '{"value": {"description": "a letter", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
case "$value" in d|e|f) kill -KILL $$ ;; esac
echo "$value"
`,
      },
    });
    await fs.chmod(path.join(project, 'tools', 'half'), 0o755);
    const parent = await temporaryFolder();
    // Failed calls make the build's exit code 1; the tree is written all the same.
    for (const [folder, budget] of [
      ['never', 0],
      ['spooled', 5],
    ] as const) {
      const result = await buildInProcess(project, { outDir: path.join(parent, folder), maxCallFiles: budget });
      expect(result.report.tools.find((tool) => tool.name === 'half')!.failures).toHaveLength(3);
    }
    const never = await readTree(path.join(parent, 'never'));
    expect(await readTree(path.join(parent, 'spooled'))).toEqual(never);
    expect([...never.keys()].filter((file) => file.startsWith('tools/half/')).sort()).toEqual(
      ['a', 'b', 'c'].map((value) => `tools/half/${value}.json`),
    );
  });
});
