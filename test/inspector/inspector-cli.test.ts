// MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in tools/runtimes), run as a user runs
// it (`inspector --cli … --format json`), against a built copy of fixtures/example: over stdio
// (`serve <project>` as the command it spawns) and over `serve --http` (the /mcp URL), in each of
// its three protocol eras. Each run lists tools, calls a precomputed tool and a live one, reads a
// resource and gets a prompt, and we check what the user sees in its JSON output. The 30 runs are
// independent (each its own Inspector process; the stdio ones each their own server), so they run
// concurrently, at most vitest's maxConcurrency (5) at a time.
import { afterAll, describe, type ExpectStatic, it } from 'vitest';
import { HttpServe } from '../helpers/http-serve.js';
import { CLI } from '../helpers/paths.js';
import { buildFixtureProject } from '../helpers/projects.js';
import { type InspectorRun, runInspector } from '../helpers/inspector-cli.js';

const project = buildFixtureProject('fixtures/example');
const server = await HttpServe.start([project]);

afterAll(async () => {
  await server.stop();
});

interface InspectorJsonRun extends InspectorRun {
  /** `--format json` prints one object: `{result}` on stdout, or `{error}` on stderr. */
  json(): { result?: Record<string, unknown>; error?: { message: string } };
}

/** Runs `inspector --cli <target…> <options>` to its end (bounded). */
async function inspector(options: string[], target: string[]): Promise<InspectorJsonRun> {
  const run = await runInspector(target, options);
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
async function resultOf(expect: ExpectStatic, options: string[], target: string[]): Promise<Record<string, unknown>> {
  const run = await inspector(options, target);
  const output = run.json();
  expect(output.error, `${options.join(' ')}: ${run.stdout}${run.stderr}`).toBeUndefined();
  expect(run.code).toBe(0);
  return output.result!;
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('');
}

const TRANSPORTS = {
  stdio: (): string[] => [process.execPath, CLI, 'serve', project],
  http: (): string[] => [server.endpoint.href, '--transport', 'http'],
};

describe.concurrent('the Inspector CLI', () => {
  for (const era of ['legacy', 'auto', 'modern'] as const) {
    for (const [transport, target] of Object.entries(TRANSPORTS)) {
      describe(`Inspector --protocol-era ${era} over ${transport}`, () => {
        const era_ = ['--protocol-era', era];

        it('lists the example tools', async ({ expect }) => {
          const result = await resultOf(expect, [...era_, '--method', 'tools/list'], target());
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
          const result = await resultOf(
            expect,
            [...era_, '--method', 'tools/call', '--tool-name', 'math_multiply', '--tool-arg', 'a=6', 'b=7'],
            target(),
          );
          expect(textOf(result)).toBe('42\n');
          expect(result.isError).toBeFalsy();
        });

        it('calls a live tool (divide 1 / 4, never precomputed: the script runs)', async ({ expect }) => {
          const result = await resultOf(
            expect,
            [...era_, '--method', 'tools/call', '--tool-name', 'divide', '--tool-arg', 'a=1', 'b=4'],
            target(),
          );
          expect(textOf(result)).toBe('0.25\n');
          expect(result.isError).toBeFalsy();
        });

        it('reads a resource', async ({ expect }) => {
          const result = await resultOf(
            expect,
            [...era_, '--method', 'resources/read', '--uri', 'resource://guide.md'],
            target(),
          );
          const [content] = result.contents as { uri: string; mimeType: string; text: string }[];
          expect(content).toMatchObject({ uri: 'resource://guide.md', mimeType: 'text/markdown' });
          expect(content?.text).toMatch(/^# Example guide\n/);
        });

        it('gets a prompt with its arguments filled in', async ({ expect }) => {
          const result = await resultOf(
            expect,
            [
              ...era_,
              '--method',
              'prompts/get',
              '--prompt-name',
              'explain-product',
              '--prompt-args',
              'a=6',
              'b=7',
              'audience=child',
            ],
            target(),
          );
          const [message] = result.messages as { role: string; content: { type: string; text: string } }[];
          expect(message?.role).toBe('user');
          expect(message?.content.text).toContain('Explain to a child how to compute 6 times 7 by hand');
        });
      });
    }
  }
});
