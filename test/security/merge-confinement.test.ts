// A tampered shard part (in CI: an artifact someone could edit between the shard job and the merge
// job, which holds the deploy permissions) can neither write outside --out, nor publish a file of
// the merge machine through a symlink, nor take the merge's memory with sparse giant files. Each
// attack is refused with exit 2 and a message naming the part and the file, before the merged tree
// replaces anything: the previous tree is left byte for byte, and nothing beside it appears or
// changes. The tamperer recomputes the part's unkeyed count and hash, as a real one would.
// The record and symlink attacks are decided in-process (merge's own mergeParts, with the exit code
// the command gives its error); the oversized files run the merge command, as a CI job does.
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../helpers/cli.js';
import { fingerprint } from '../helpers/files.js';
import { CLI } from '../helpers/paths.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';
import { writeProject } from '../helpers/projects.js';
import { temporaryFolder } from '../helpers/temp-folders.js';
import { mergeParts } from '../../src/merge/merge-parts.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { StaticMcpError } from '../../src/core/staticmcp-error.js';
import { readParts } from '../../src/merge/read-parts.js';
import { createTreeHash, sortTreePaths } from '../../src/tree-writer/content-hash.js';

const SECRET = 'ssh-ed25519 PRIVATE-KEY-MATERIAL-THAT-MUST-NOT-BE-PUBLISHED';
const VICTIM = '# the merge user\'s shell start-up file\nalias ls="ls -F"\n';

/** One tool of 6 calls, so a part has call files to name as owners of copies. */
const PROJECT = {
  'tools/greet': {
    script: `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Greet someone", "values": {"name": ["ada", "grace", "linus", "alan", "barbara", "edsger"]}}'
  echo '{"name": {"description": "who", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "Hello $name"
`,
  },
};

interface Work {
  /** The folder holding everything below; a file written outside --out would land here. */
  root: string;
  part: string;
  out: string;
  victim: string;
}

/** Lists every file under `folder` (recursively, links as links): what exists, and what it holds. */
async function listEverything(folder: string): Promise<Record<string, string>> {
  return fingerprint(folder);
}

/** A fresh part built from the project, merged once into `out` (the previous tree the attacks must leave). */
async function prepare(template: string): Promise<Work> {
  const root = await temporaryFolder('staticmcp-merge-attack-');
  const part = path.join(root, 'part');
  await fs.cp(template, part, { recursive: true });
  const out = path.join(root, 'site', 'dist');
  await fs.mkdir(path.dirname(out));
  const victim = path.join(root, 'site', '.bashrc');
  await fs.writeFile(victim, VICTIM, { mode: 0o600 });
  // In-process (merge's own mergeParts): this tree is only what the attacks must leave as it was.
  const merged = await mergeParts({ parts: [part], outDir: out });
  if (!merged.ok) throw new Error(`the untampered part did not merge: ${JSON.stringify(merged)}`);
  return { root, part, out, victim };
}

async function readRecord(part: string): Promise<Record<string, unknown> & { copies: [string, string | null][] }> {
  return JSON.parse(await fs.readFile(path.join(part, 'staticmcp-shard.json'), 'utf8'));
}

/** Rewrites the part's record with `change` applied, its file count and hash recomputed over what the part holds now. */
async function tamper(
  part: string,
  change: (record: Awaited<ReturnType<typeof readRecord>>) => void = () => {},
  contentOf: (file: string) => Promise<Buffer> = (file) => fs.readFile(path.join(part, file)),
): Promise<void> {
  const record = await readRecord(part);
  change(record);
  const files = (await fs.readdir(part, { recursive: true, withFileTypes: true }))
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(part, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => file !== 'staticmcp-shard.json');
  const hash = createTreeHash();
  for (const file of sortTreePaths(files)) hash.add(file, await contentOf(file));
  record.files = files.length;
  record.filesHash = hash.digest();
  await fs.writeFile(path.join(part, 'staticmcp-shard.json'), JSON.stringify(record, null, 2));
}

/**
 * Merges the tampered part: refused with exit 2 and `code`, a message matching `message`, and
 * nothing changed anywhere under the work folder but the part itself (the previous tree, the
 * victim file beside it, no new file).
 */
async function refusesAttack(work: Work, code: string, message: RegExp, extra: string[] = []): Promise<CliResult> {
  const outsideBefore = await listEverything(path.dirname(work.out));
  const result = await runCli(['merge', work.part, '--out', work.out, ...extra], { timeoutMs: 60_000 });
  expect(result.stderr, result.stderr).toContain(`error [${code}]`);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toContain('what to do:');
  expect(result.code).toBe(2);
  expect(await listEverything(path.dirname(work.out))).toEqual(outsideBefore);
  expect(await fs.readFile(work.victim, 'utf8')).toBe(VICTIM);
  expect(existsSync(path.join(work.root, 'outside.txt'))).toBe(false);
  return result;
}

/**
 * The same refusal decided in-process by mergeParts, which the merge command calls (the CLI
 * refusal above, of a lowered --max-file-bytes, shows what the command prints of one): the error's
 * code, the exit code 2 the command gives it, its message and what to do, and nothing changed
 * anywhere under the work folder but the part itself.
 */
async function refusesAttackInProcess(work: Work, code: string, message: RegExp): Promise<StaticMcpError> {
  const outsideBefore = await listEverything(path.dirname(work.out));
  const refusal = await mergeParts({ parts: [work.part], outDir: work.out }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(StaticMcpError);
  expect(refusal).toMatchObject({ code, message: expect.stringMatching(message), hint: expect.any(String) });
  expect(exitCodeOf(refusal)).toBe(2);
  expect(await listEverything(path.dirname(work.out))).toEqual(outsideBefore);
  expect(await fs.readFile(work.victim, 'utf8')).toBe(VICTIM);
  expect(existsSync(path.join(work.root, 'outside.txt'))).toBe(false);
  return refusal as StaticMcpError;
}

function someCallFile(tree: Record<string, string>): string {
  const file = Object.keys(tree).find((name) => name.startsWith('tools/greet/'));
  if (!file) throw new Error('the part holds no call file');
  return file;
}

describe('merge of a tampered part', () => {
  let template: string;

  beforeAll(async () => {
    const project = await writeProject(PROJECT);
    template = path.join(path.dirname(project), 'part');
    // `build --shard 1/1 --out <part>`, in-process: the part is what the tests tamper with.
    await buildTreeInProcess(project, { shard: { index: 1, count: 1 }, outDir: template });
  });

  it('refuses a copy named ../ in the record: nothing outside --out is created or overwritten', async () => {
    const work = await prepare(template);
    const owner = someCallFile(await fingerprint(work.part));
    await tamper(work.part, (record) => {
      // From the temporary tree beside --out, ../.bashrc is the victim and ../../outside.txt is beside the site.
      record.copies.push(['../.bashrc', owner], ['../../outside.txt', owner]);
    });
    const refusal = await refusesAttackInProcess(
      work,
      'PART_RECORD_BROKEN',
      /part\/staticmcp-shard\.json .*"\.\." segment/,
    );
    expect(refusal.message).toContain('../.bashrc');
  });

  it('refuses an absolute path in the record', async () => {
    const work = await prepare(template);
    const owner = someCallFile(await fingerprint(work.part));
    await tamper(work.part, (record) => {
      record.copies.push([path.join(work.root, 'outside.txt'), owner]);
    });
    await refusesAttackInProcess(work, 'PART_RECORD_BROKEN', /is absolute/);
  });

  it('refuses a call-file budget in the record that is not a count', async () => {
    const work = await prepare(template);
    await tamper(work.part, (record) => {
      record.maxCallFiles = -1;
    });
    await refusesAttackInProcess(work, 'PART_RECORD_BROKEN', /its call-file budget \(maxCallFiles\) is not a count/);
    // The other non-counts are refused by the same reading of the record (readParts, which merge
    // calls first), decided here in-process.
    for (const budget of [1.5, '20', null]) {
      const part = path.join(await temporaryFolder('staticmcp-merge-attack-'), 'part');
      await fs.cp(template, part, { recursive: true });
      await tamper(part, (record) => {
        record.maxCallFiles = budget;
      });
      await expect(readParts([part]), String(budget)).rejects.toMatchObject({
        code: 'PART_RECORD_BROKEN',
        message: expect.stringMatching(/its call-file budget \(maxCallFiles\) is not a count/),
      });
    }
  });

  it('refuses a symlink in a part to a file outside it, naming the part and the file, and publishes nothing of it', async () => {
    const work = await prepare(template);
    const secret = path.join(work.root, 'id_ed25519');
    await fs.writeFile(secret, SECRET);
    await fs.symlink(secret, path.join(work.part, 'tools', 'greet', 'key.json'));
    // The worst case: a tamperer who knows the file's bytes (a well-known system file) makes the hash match.
    await tamper(work.part, undefined, (file) =>
      file === 'tools/greet/key.json' ? Promise.resolve(Buffer.from(SECRET)) : fs.readFile(path.join(work.part, file)),
    );
    await refusesAttackInProcess(work, 'PART_FILE_REFUSED', /part\/tools\/greet\/key\.json is a symlink/);
    const published = Object.keys(await fingerprint(work.out));
    expect(published).not.toContain('tools/greet/key.json');
  });

  it('refuses sparse giant files from their size without reading them: memory stays small', async () => {
    const work = await prepare(template);
    // Four sparse files of 200 MiB each (over the 100 MiB default cap): nothing on disk, 800 MiB to read.
    for (let index = 0; index < 4; index++) {
      const handle = await fs.open(path.join(work.part, 'tools', 'greet', `big-${index}.json`), 'w');
      await handle.truncate(200 * 1024 * 1024);
      await handle.close();
    }
    await tamper(work.part, undefined, (file) =>
      file.includes('/big-') ? Promise.resolve(Buffer.alloc(0)) : fs.readFile(path.join(work.part, file)),
    );
    const outsideBefore = await listEverything(path.dirname(work.out));
    // Run under GNU time for the peak resident memory (kilobytes, last line of stderr).
    const timed = spawnSync(
      '/usr/bin/time',
      ['-f', '%M', process.execPath, CLI, 'merge', work.part, '--out', work.out],
      {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 60_000,
      },
    );
    expect(timed.stderr).toMatch(
      /error \[PART_FILE_TOO_BIG\]: .*part\/tools\/greet\/big-\d\.json is 209715200 bytes, over the 104857600 bytes/,
    );
    expect(timed.status).toBe(2);
    const peakMb = Number(timed.stderr.trim().split('\n').at(-1)) / 1024;
    // A merge of this small part needs ~60 MB; reading the files would need 200-800 MB.
    expect(peakMb).toBeLessThan(150);
    expect(await listEverything(path.dirname(work.out))).toEqual(outsideBefore);
  });

  it('refuses a file over a lowered --max-file-bytes, and merges the same part under the default', async () => {
    const work = await prepare(template);
    // 2 MB: over a 1 MB cap, while every file the build wrote (its worker is ~150 KB) is under it.
    await fs.writeFile(path.join(work.part, 'tools', 'greet', 'big.json'), Buffer.alloc(2_000_000, 0x20));
    await tamper(work.part);
    await refusesAttack(work, 'PART_FILE_TOO_BIG', /big\.json is 2000000 bytes, over the 1000000 bytes/, [
      '--max-file-bytes',
      '1000000',
    ]);
    const merged = await runCli(['merge', work.part, '--out', work.out]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(Object.keys(await fingerprint(work.out))).toContain('tools/greet/big.json');
  });
});
