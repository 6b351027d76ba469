// What the build cache keeps across builds (earlier builds' results up to limits.maxCacheBytes),
// how it survives a build killed mid-write, the determinism probe that serves a tool live when two
// runs of one call print different output, and reports that stay bounded at any number of calls.
// Builds run in-process through the build command's decision (test/helpers/in-process-build.ts);
// the bounded report a human reads is the summary body the command prints from that report
// (describeReportBody).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BuildEvent } from '../../src/builder/build-report.js';
import { CALLS_PER_TURN_VARIABLE } from '../../src/builder/run-calls.js';
import { countFailedRuns, describeReportBody } from '../../src/cli/describe-report.js';
import { problemsOf, toolReport } from '../helpers/cli.js';
import { buildInProcess } from '../helpers/in-process-build.js';
import { exists, readJson } from '../helpers/files.js';
import { FIXTURE_SCRIPTS } from '../helpers/paths.js';
import { makeProject, writeFiles, writeProject } from '../helpers/projects.js';

async function runsLogged(project: string): Promise<string[]> {
  try {
    return (await fs.readFile(path.join(project, 'runs.log'), 'utf8')).split('\n').filter(Boolean).sort();
  } catch {
    return [];
  }
}

async function buildAndCountRuns(project: string, config?: unknown): Promise<string[]> {
  if (config !== undefined) await fs.writeFile(path.join(project, 'staticmcp.json'), JSON.stringify(config));
  await fs.rm(path.join(project, 'runs.log'), { force: true });
  const { code, report } = await buildInProcess(project);
  expect(code, problemsOf(report)).toBe(0);
  return runsLogged(project);
}

/** A project whose one tool's three calls were built once: its cache bucket file and the records in it. */
async function buildCountedProject(): Promise<{ project: string; bucketFile: string; lines: string[] }> {
  const project = await makeProject({ tools: { counted: 'count-runs' } });
  expect(await buildAndCountRuns(project)).toHaveLength(4);
  const runsFolder = path.join(project, '.staticmcp', 'cache', 'runs');
  const [bucket] = await fs.readdir(runsFolder);
  if (bucket === undefined) throw new Error(`the build cached nothing in ${runsFolder}`);
  const bucketFile = path.join(runsFolder, bucket);
  const lines = (await fs.readFile(bucketFile, 'utf8')).split('\n').filter(Boolean);
  return { project, bucketFile, lines };
}

describe('the build cache across builds', () => {
  it('keeps the results of earlier builds: switching a value list back and forth reruns nothing', async () => {
    const project = await makeProject({ tools: { counted: 'count-runs' } });
    const only = (values: number[]) => ({ tools: { counted: { values: { n: values } } } });
    expect(await buildAndCountRuns(project, only([1]))).toEqual(['counted 1', 'counted 1']);
    expect(await buildAndCountRuns(project, only([2]))).toEqual(['counted 2', 'counted 2']);
    expect(await buildAndCountRuns(project, only([1]))).toEqual([]);
    expect(await buildAndCountRuns(project, only([2]))).toEqual([]);
    expect(await readJson(path.join(project, 'dist/tools/counted/2.json'))).toMatchObject({
      content: [{ text: 'n=2\n' }],
    });
  });

  it('evicts the results no recent build used once the cache passes limits.maxCacheBytes', async () => {
    const project = await makeProject({ tools: { counted: 'count-runs' } });
    const script = path.join(project, 'tools', 'counted');
    const original = await fs.readFile(script, 'utf8');
    const everything = ['counted 1', 'counted 1', 'counted 2', 'counted 3'];
    // The default cap keeps both versions of the script.
    expect(await buildAndCountRuns(project)).toEqual(everything);
    await fs.writeFile(script, `${original}# edited\n`);
    expect(await buildAndCountRuns(project)).toEqual(everything);
    await fs.writeFile(script, original);
    expect(await buildAndCountRuns(project)).toEqual([]);
    // A cap of 0 keeps only what the last build used: going back runs everything again.
    await fs.writeFile(script, `${original}# edited\n`);
    expect(await buildAndCountRuns(project, { limits: { maxCacheBytes: 0 } })).toEqual([]);
    await fs.writeFile(script, original);
    expect(await buildAndCountRuns(project)).toEqual(everything);
  });

  it('reruns only the call whose cached result a killed build left half-written', async () => {
    const { project, bucketFile, lines } = await buildCountedProject();
    expect(lines).toHaveLength(3);
    // Cut the last record in half, as a build killed in the middle of its append leaves it.
    const torn = `${lines.slice(0, 2).join('\n')}\n${lines[2]?.slice(0, 20)}`;
    await fs.writeFile(bucketFile, torn);
    await fs.rm(path.join(project, 'dist'), { recursive: true });
    const runs = await buildAndCountRuns(project);
    expect(runs).toHaveLength(2);
    expect(new Set(runs).size).toBe(1);
    for (const n of [1, 2, 3])
      expect(await readJson(path.join(project, `dist/tools/counted/${n}.json`))).toMatchObject({
        content: [{ text: `n=${n}\n` }],
      });
    // The torn line was cut off, not kept: the bucket holds three whole records again.
    const repaired = (await fs.readFile(bucketFile, 'utf8')).split('\n').filter(Boolean);
    expect(repaired.map((line) => JSON.parse(line.slice(33)).result.content[0].text).sort()).toEqual([
      'n=1\n',
      'n=2\n',
      'n=3\n',
    ]);
  });

  it('reruns the calls whose cached records are damaged in place, even when the tally found nothing to run', async () => {
    const { project, bucketFile, lines } = await buildCountedProject();
    // Keys and lengths intact, so every call still counts as cached; no record reads back as JSON.
    const damaged = lines.map((line) => `${line.slice(0, 33)}{${'x'.repeat(line.length - 34)}`);
    await fs.writeFile(bucketFile, `${damaged.join('\n')}\n`);
    await fs.rm(path.join(project, 'dist'), { recursive: true });
    await fs.rm(path.join(project, 'runs.log'), { force: true });
    const events: BuildEvent[] = [];
    const { code, report } = await buildInProcess(project, { onEvent: (event) => events.push(event) });
    expect(code, problemsOf(report)).toBe(0);
    expect(await runsLogged(project)).toEqual(['counted 1', 'counted 2', 'counted 3']);
    // The plan said nothing runs; the progress then counts each rerun, ending at 3 of 3.
    expect(events[0]).toEqual({ type: 'plan', totalRuns: 0, cachedRuns: 3 });
    expect(events.filter((event) => event.type === 'rerun')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'run', done: 3, totalRuns: 3 });
    for (const n of [1, 2, 3])
      expect(await readJson(path.join(project, `dist/tools/counted/${n}.json`))).toMatchObject({
        content: [{ text: `n=${n}\n` }],
      });
  });

  it('ignores a cache file that is not JSON, and drops the single-file cache of earlier versions', async () => {
    const project = await makeProject({
      tools: { counted: 'count-runs' },
      files: { '.staticmcp/build-cache.json': '{"version":1,"help":{},"runs":{}}', '.staticmcp/cache/meta.json': '{' },
    });
    expect(await buildAndCountRuns(project)).toHaveLength(4);
    expect(await exists(path.join(project, '.staticmcp', 'build-cache.json'))).toBe(false);
    expect(await buildAndCountRuns(project)).toEqual([]);
  });
});

describe('a rebuild answered from the cache', () => {
  it('handles an interruption while it answers calls from the cache, starting no script after it', async () => {
    // 20 cached calls of one tool, past the 8 a turn of the event loop this test sets (run-calls.ts'
    // CALLS_PER_TURN, 256 otherwise: a test hook), answered into the spool (past a budget of 1
    // call file), which never waits on I/O; a second tool still has a call to run once they are
    // all answered.
    const countRuns = await fs.readFile(path.join(FIXTURE_SCRIPTS, 'count-runs'), 'utf8');
    const project = await writeProject({
      'tools/a-cached': { script: countRuns.replace('"max": 3', '"max": 20') },
      'staticmcp.json': JSON.stringify({ limits: { maxCallFiles: 1 } }),
    });
    const previous = process.env[CALLS_PER_TURN_VARIABLE];
    process.env[CALLS_PER_TURN_VARIABLE] = '8';
    try {
      expect(await buildAndCountRuns(project)).toHaveLength(21);
      await writeFiles(project, { 'tools/b-runs': { script: countRuns.replace('"max": 3', '"max": 2') } });
      await fs.rm(path.join(project, 'runs.log'), { force: true });
      const interruption = new AbortController();
      const { error } = await buildInProcess(project, {
        signal: interruption.signal,
        // The plan line comes once the probe ran b-runs 1 (twice), just before the cache answers.
        onEvent: (event) => {
          if (event.type === 'plan') setImmediate(() => interruption.abort());
        },
      });
      expect(error?.code).toBe('INTERRUPTED');
      expect(await runsLogged(project)).toEqual(['b-runs 1', 'b-runs 1']);
    } finally {
      if (previous === undefined) delete process.env[CALLS_PER_TURN_VARIABLE];
      else process.env[CALLS_PER_TURN_VARIABLE] = previous;
    }
  });
});

describe('the determinism probe', () => {
  it('serves a tool live when two runs of the same call print different output, and says how to force it', async () => {
    const project = await makeProject({ tools: { 'current-time': 'current-time', ok: 'ok' } });
    const { code, report } = await buildInProcess(project);
    expect(code, problemsOf(report)).toBe(0);
    const tool = toolReport(report, 'current-time');
    expect(tool).toMatchObject({ precomputed: 0, live: true, liveReason: expect.stringContaining('different output') });
    expect(tool.warnings).toEqual([
      expect.stringMatching(
        /^two runs of \{\} printed different output, so nothing is precomputed and calls are served live; .*"precompute": true/,
      ),
    ]);
    expect(toolReport(report, 'ok')).toMatchObject({ precomputed: 1, warnings: [] });
    expect(await exists(path.join(project, 'dist', 'tools', 'current-time.json'))).toBe(false);
    expect(await exists(path.join(project, 'dist', 'tools', 'ok.json'))).toBe(true);
    const manifest = await readJson<{ staticmcp: { tools: Record<string, { live: boolean; precomputed: number }> } }>(
      path.join(project, 'dist', 'mcp.json'),
    );
    expect(manifest.staticmcp.tools['current-time']).toMatchObject({ live: true, precomputed: 0 });
  });

  it('precomputes such a tool anyway with "precompute": true, and without the second run', async () => {
    const project = await makeProject({
      tools: { 'current-time': 'current-time', counted: 'count-runs' },
      config: { tools: { 'current-time': { precompute: true }, counted: { precompute: true } } },
    });
    const { code, report } = await buildInProcess(project);
    expect(code, problemsOf(report)).toBe(0);
    expect(toolReport(report, 'current-time')).toMatchObject({ precomputed: 1, warnings: [] });
    expect(await runsLogged(project)).toEqual(['counted 1', 'counted 2', 'counted 3']);
    const answer = await readJson<{ content: { text: string }[] }>(path.join(project, 'dist/tools/current-time.json'));
    expect(answer.content[0]?.text).toMatch(/^\d+\n$/);
  });
});

describe('reports at any number of calls', () => {
  it('counts every failed call but lists only the first few', async () => {
    const project = await makeProject({
      files: {
        'tools/always-fails': `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Dies on every call"}'
  echo '{"n": {"required": true, "value_type": "integer", "size": {"min": 1, "max": 24}}}' >&2
  exit 0
fi
echo "dying on $n" >&2
kill -9 $$
`,
      },
    });
    await fs.chmod(path.join(project, 'tools', 'always-fails'), 0o755);
    const { code, report } = await buildInProcess(project);
    expect(code).toBe(1);
    const tool = toolReport(report, 'always-fails');
    expect(tool.failedRuns).toBe(24);
    expect(tool.failures).toHaveLength(20);
    expect(tool.failures[0]).toMatchObject({ message: 'always-fails was killed by SIGKILL' });
    // What the command prints of it, from the same report: the summary's body (describeReportBody)
    // and the failed runs its last line counts (countFailedRuns); test/build/bad-input.test.ts
    // reads that last line from the CLI.
    const human = describeReportBody(report).join('\n');
    expect(human).toContain('24 FAILED');
    expect(human).toContain('… 21 more failure(s) (see --json for the first 20)');
    expect(countFailedRuns(report.tools)).toBe(24);
  });
});
