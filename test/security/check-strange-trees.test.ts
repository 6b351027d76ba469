// `staticmcp check` on trees no generator would write: a file name that is not UTF-8 and a
// 3000-deep folder nest are each reported as a finding with what to do, never a crash, and the
// rest of the tree is still checked.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { buildFixtureProject } from '../helpers/projects.js';

let tree: string;

beforeAll(() => {
  tree = path.join(buildFixtureProject('fixtures/example'), 'dist');
  writeFileSync(
    Buffer.concat([Buffer.from(`${tree}/tools/`), Buffer.from([0x66, 0xff, 0xfe, 0x2e, 0x6a, 0x73, 0x6f, 0x6e])]),
    '{}',
  );
  // Made one level at a time: the full path is far longer than the system's path limit.
  execFileSync(
    process.execPath,
    ['-e', "const fs = require('fs'); for (let i = 0; i < 3000; i++) { fs.mkdirSync('n'); process.chdir('n'); }"],
    { cwd: tree },
  );
});

afterAll(() => {
  // rm walks deep nests relative to each folder; Node's fs.rm would hit the path limit.
  execFileSync('rm', ['-rf', path.dirname(tree)]);
});

describe('check on strange trees', () => {
  it('reports a name that is not UTF-8 and a 3000-deep nest as findings, and checks the rest', async () => {
    const { code, stdout, stderr } = await runCli(['check', tree, '--json']);
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/\n\s+at .*\.js:\d+/);
    const report = JSON.parse(stdout) as {
      problems: { path: string; message: string; hint: string }[];
      checked: { tools: number; callFiles: number };
    };
    const byPath = new Map(report.problems.map((problem) => [problem.path, problem]));
    expect(byPath.get('tools/f\\xff\\xfe.json')?.message).toMatch(/not UTF-8/);
    expect(byPath.get('tools/f\\xff\\xfe.json')?.hint).toMatch(/rename it/);
    expect(report.problems.find((problem) => /nested deeper than 64 folders/.test(problem.message))?.path).toMatch(
      /^n(\/n){63}$/,
    );
    expect(report.checked.tools).toBe(6);
    expect(report.checked.callFiles).toBeGreaterThan(100);
  });
});
