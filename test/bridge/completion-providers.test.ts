// Script-backed completion providers in mcp-bash's register.json shape (`{name, path, timeoutSecs}`),
// through the official SDK client over real stdio: run live when the bridge has the project (the
// script's own matching, with the client's context), answered from the precomputed empty-value
// answer when it has only the tree, and reported at build time when the script is broken.
// Builds run in-process (the build command's decision), as does serve's session where the bridge
// only reads the tree (connectInProcess: the sources serve opens); the live run is a serve process.
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectInProcess } from '../helpers/in-process-bridge.js';
import { buildInProcess, buildTreeInProcess } from '../helpers/in-process-build.js';
import { CLI } from '../helpers/paths.js';
import { writeProject } from '../helpers/projects.js';

// Matches anywhere in the word (not only at the start), so an answer shows whether the script or
// the tree's prefix match produced it; records each run's query and context.
const FRUIT_PROVIDER = `#!/bin/sh
field() { printf '%s' "$MCP_COMPLETION_ARGS_JSON" | sed -n "s/.*\\"$1\\":\\"\\([^\\"]*\\)\\".*/\\1/p"; }
query=$(field query)
printf '%s|%s|%s\\n' "$MCP_COMPLETION_NAME" "$query" "$(field basket)" >> "$STATICMCP_PROJECT_ROOT/../provider-runs.log"
first=1
printf '['
for fruit in apple banana blueberry mango; do
  case "$fruit" in *"$query"*)
    [ $first = 1 ] || printf ','
    printf '"%s"' "$fruit"; first=0 ;;
  esac
done
printf ']\\n'
`;

const clients: Client[] = [];
const folders: string[] = [];
let project: string;

/** The SDK client on `staticmcp serve <folder>`: a real process, or serve's session in-process. */
async function connect(folder: string, asProcess = false): Promise<Client> {
  let client: Client;
  if (asProcess) {
    client = new Client({ name: 'completion-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', folder], stderr: 'pipe' }),
    );
  } else client = await connectInProcess(folder);
  clients.push(client);
  return client;
}

const runsLog = () => {
  try {
    return readFileSync(path.join(project, '..', 'provider-runs.log'), 'utf8');
  } catch {
    return '';
  }
};

const complete = (client: Client, value: string, context?: Record<string, string>) =>
  client.complete({
    ref: { type: 'ref/prompt', name: 'pick.fruit' },
    argument: { name: 'fruit', value },
    ...(context ? { context: { arguments: context } } : {}),
  });

beforeAll(async () => {
  project = await writeProject({
    'prompts/pick.fruit.md': 'Pick {{fruit}}.',
    'prompts/pick.fruit.meta.json': JSON.stringify({
      arguments: { type: 'object', properties: { fruit: { type: 'string' }, basket: { type: 'string' } } },
    }),
    'completions/fruit.sh': { script: FRUIT_PROVIDER },
    'server.d/register.json': JSON.stringify({
      version: 1,
      completions: [{ name: 'pick.fruit', path: 'completions/fruit.sh', timeoutSecs: 2 }],
    }),
  });
  folders.push(path.dirname(project));
  await buildTreeInProcess(project);
});

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const folder of folders) await fs.rm(folder, { recursive: true, force: true });
});

describe('a script completion provider', () => {
  it('is precomputed at build for each argument of its prompt, and recorded for live runs', async () => {
    const tree = path.join(project, 'dist');
    expect(JSON.parse(await fs.readFile(path.join(tree, 'completions.json'), 'utf8'))).toMatchObject({
      'ref/prompt': {
        'pick.fruit': {
          fruit: ['apple', 'banana', 'blueberry', 'mango'],
          basket: ['apple', 'banana', 'blueberry', 'mango'],
        },
      },
    });
    const manifest = JSON.parse(await fs.readFile(path.join(tree, 'mcp.json'), 'utf8'));
    expect(manifest.staticmcp.completionProviders).toEqual({
      'ref/prompt': { 'pick.fruit': { name: 'pick.fruit', script: 'completions/fruit.sh', timeoutMs: 2000 } },
    });
  });

  it('runs live with the value typed and the context, when the bridge has the project', async () => {
    const client = await connect(project, true);
    const before = runsLog().split('\n').length;
    const answer = await complete(client, 'an', { basket: 'wicker' });
    expect(answer.completion).toEqual({ values: ['banana', 'mango'], total: 2, hasMore: false });
    expect(
      runsLog()
        .split('\n')
        .slice(before - 1),
    ).toContain('pick.fruit|an|wicker');
  });

  it('answers from the tree (prefix match on the precomputed answer) when there is no project', async () => {
    const client = await connect(path.join(project, 'dist'));
    const runs = runsLog();
    expect((await complete(client, 'b')).completion.values).toEqual(['banana', 'blueberry']);
    expect((await complete(client, 'an')).completion.values).toEqual([]);
    expect(runsLog()).toBe(runs);
  });
});

describe('a broken completion provider', () => {
  it('fails the build with the script named (exit 1) and the rest is built; live, the bridge falls back to the tree', async () => {
    const broken = await writeProject({
      'prompts/greet.md': 'Hello {{name}}.',
      'prompts/greet.md.meta.json': JSON.stringify({
        arguments: { type: 'object', properties: { name: { type: 'string', enum: ['Ada', 'Alan'] } } },
      }),
      'completions/names.sh': { script: '#!/bin/sh\necho "not json"\n' },
      'server.d/register.json': JSON.stringify({
        version: 1,
        completions: [{ name: 'greet', path: 'completions/names.sh' }],
      }),
    });
    folders.push(path.dirname(broken));
    const build = await buildInProcess(broken);
    expect(build.code).toBe(1);
    expect(build.report.failures).toContainEqual({
      path: 'server.d/register.json',
      message: expect.stringMatching(/completions\/names\.sh .*"name" printed something that is not JSON/),
    });
    const client = await connect(broken);
    const answer = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'A' },
    });
    expect(answer.completion.values).toEqual(['Ada', 'Alan']);
  });
});
