// MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in tools/runtimes), run as a user runs
// it (`inspector --cli … --format json`), against a built copy of fixtures/example: over stdio
// (`serve <project>` as the command it spawns) and over `serve --http` (the /mcp URL), in each of
// its three protocol eras. Each era and transport lists tools, calls a precomputed tool and a live
// one, reads a resource and gets a prompt, and we check what the user sees in its JSON output. The
// 30 runs are independent (the stdio ones each start their own server); they run in one Inspector
// process, three at a time (test/helpers/inspector-cli.ts: the CLI entry the launcher calls, its
// start paid once instead of thirty times).
// test/inspector/skills-inspector.test.ts and the README walkthrough run the launcher itself.
import { afterAll, describe, type ExpectStatic, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { type InspectorInvocation, type InspectorRun, runInspectorBatch } from '../helpers/inspector-cli.js';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';

const project = buildFixtureProject('fixtures/example');
const server = await HttpServe.start([project]);

afterAll(async () => {
  await server.stop();
});

const ERAS = ['legacy', 'auto', 'modern'] as const;
type Era = (typeof ERAS)[number];

const TRANSPORTS = {
  stdio: (): string[] => [process.execPath, CLI, 'serve', project],
  http: (): string[] => [server.endpoint.href, '--transport', 'http'],
};
type Transport = keyof typeof TRANSPORTS;

/** What each era and transport asks, in the order of its tests below. */
const METHODS: Record<string, string[]> = {
  list: ['--method', 'tools/list'],
  precomputed: ['--method', 'tools/call', '--tool-name', 'math_multiply', '--tool-arg', 'a=6', 'b=7'],
  live: ['--method', 'tools/call', '--tool-name', 'divide', '--tool-arg', 'a=1', 'b=4'],
  resource: ['--method', 'resources/read', '--uri', 'resource://guide.md'],
  prompt: [
    '--method',
    'prompts/get',
    '--prompt-name',
    'explain-product',
    '--prompt-args',
    'a=6',
    'b=7',
    'audience=child',
  ],
};

function invocationsOf(era: Era): (InspectorInvocation & { key: string })[] {
  return Object.entries(TRANSPORTS).flatMap(([transport, target]) =>
    Object.entries(METHODS).map(([method, options]) => ({
      key: `${transport} ${method}`,
      target: target(),
      options: ['--protocol-era', era, ...options],
    })),
  );
}

// Started now, all of them, in one Inspector process, three at a time (as the three eras' processes
// ran side by side before, on one Inspector start instead of three), so no test waits for a run a
// slot of vitest's concurrency has not started.
const INVOCATIONS = ERAS.flatMap((era) => invocationsOf(era).map((invocation) => ({ ...invocation, era })));
const RUNS = runInspectorBatch(INVOCATIONS, ERAS.length).then(
  (results) => new Map(INVOCATIONS.map((invocation, index) => [`${invocation.era} ${invocation.key}`, results[index]])),
);
RUNS.catch(() => {});

interface InspectorJsonRun extends InspectorRun {
  /** `--format json` prints one object: `{result}` on stdout, or `{error}` on stderr. */
  json(): { result?: Record<string, unknown>; error?: { message: string } };
}

/** The run of `method` over `transport` in `era`'s batch. */
async function inspector(era: Era, transport: Transport, method: keyof typeof METHODS): Promise<InspectorJsonRun> {
  const run = (await RUNS).get(`${era} ${transport} ${method}`);
  if (!run) throw new Error(`no Inspector run of ${method} over ${transport} in the ${era} era`);
  return {
    ...run,
    json: () => {
      try {
        return JSON.parse(run.stdout.trim() === '' ? run.stderr : run.stdout) as ReturnType<InspectorJsonRun['json']>;
      } catch {
        throw new Error(`inspector printed no JSON (exit ${run.code}): ${run.stdout}${run.stderr}`);
      }
    },
  };
}

/**
 * A successful run's `result`; a failed one fails the test with what the Inspector said (through
 * the test's own `expect`, as concurrent tests must).
 */
async function resultOf(
  expect: ExpectStatic,
  era: Era,
  transport: Transport,
  method: keyof typeof METHODS,
): Promise<Record<string, unknown>> {
  const run = await inspector(era, transport, method);
  const output = run.json();
  expect(output.error, `${era} ${transport} ${METHODS[method]?.join(' ')}: ${run.stdout}${run.stderr}`).toBeUndefined();
  expect(run.code).toBe(0);
  return output.result!;
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('');
}

// A test waits for the whole batch (thirty runs, three at a time, each bounded by
// runInspectorBatch), not for one run: room for a loaded machine.
const BATCH_WAIT_MS = 240_000;

describe.concurrent('the Inspector CLI', { timeout: BATCH_WAIT_MS }, () => {
  for (const era of ERAS) {
    for (const transport of Object.keys(TRANSPORTS) as Transport[]) {
      describe(`Inspector --protocol-era ${era} over ${transport}`, () => {
        it('lists the example tools', async ({ expect }) => {
          const result = await resultOf(expect, era, transport, 'list');
          expect((result.tools as { name: string }[]).map((tool) => tool.name).sort()).toEqual([
            'capital',
            'counter',
            'divide',
            'fetch',
            'greet',
            'math_multiply',
            'search',
            'word-count',
          ]);
        });

        it('calls a precomputed tool (math_multiply 6 × 7, answered from the tree)', async ({ expect }) => {
          const result = await resultOf(expect, era, transport, 'precomputed');
          expect(textOf(result)).toBe('42\n');
          expect(result.isError).toBeFalsy();
        });

        it('calls a live tool (divide 1 / 4, never precomputed: the script runs)', async ({ expect }) => {
          const result = await resultOf(expect, era, transport, 'live');
          expect(textOf(result)).toBe('0.25\n');
          expect(result.isError).toBeFalsy();
        });

        it('reads a resource', async ({ expect }) => {
          const result = await resultOf(expect, era, transport, 'resource');
          const [content] = result.contents as { uri: string; mimeType: string; text: string }[];
          expect(content).toMatchObject({ uri: 'resource://guide.md', mimeType: 'text/markdown' });
          expect(content?.text).toMatch(/^# Example guide\n/);
        });

        it('gets a prompt with its arguments filled in', async ({ expect }) => {
          const result = await resultOf(expect, era, transport, 'prompt');
          const [message] = result.messages as { role: string; content: { type: string; text: string } }[];
          expect(message?.role).toBe('user');
          expect(message?.content.text).toContain('Explain to a child how to compute 6 times 7 by hand');
        });
      });
    }
  }
});
