// A live origin for the edge → origin tests (issue #27): the scripts both the miniflare and the
// wrangler tests give their project, and `staticmcp serve <project> --origin` started on a free
// loopback port with its stderr kept, so a test can prove what reached the origin.
import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from './paths.js';
import { waitUntil } from './processes.js';

/** Free text: nothing of it is precomputed, so every call is a miss. */
export const ECHO_SCRIPT = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Echo a text"}'
  echo '{"text": {"description": "What to echo", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "INFO echoing" >&2
printf 'echo: %s\\n' "$text"
`;

/** A live tool that reports progress 1, 2, 3 of 3. */
export const STEPS_SCRIPT = `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Three steps with progress"}'
  echo '{"label": {"description": "A label", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
echo "PROGRESS 1 3 first" >&2
sleep 0.2
echo "PROGRESS 2 3 second" >&2
sleep 0.2
echo "PROGRESS 3 3 third" >&2
printf 'done %s\\n' "$label"
`;

/**
 * A completion provider matching anywhere in the word: the tree's own answer is a prefix match,
 * so "an" → banana and mango shows the origin ran it.
 */
export const FRUIT_PROVIDER = `#!/bin/sh
query=$(printf '%s' "$MCP_COMPLETION_ARGS_JSON" | sed -n 's/.*"query":"\\([^"]*\\)".*/\\1/p')
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

export interface OriginProcess {
  child: ChildProcess;
  url: string;
  /** Everything the origin wrote on stderr so far (its log). */
  log: () => string;
}

/** Starts `serve <project> --origin` on 127.0.0.1 with `env` (the key) added to ours. */
export async function startOrigin(
  project: string,
  env: Record<string, string>,
  extra: string[] = [],
): Promise<OriginProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', project, '--origin', '--host', '127.0.0.1', '--port', '0', ...extra],
    { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let text = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const port = await waitUntil(
    () => /Live origin: http:\/\/127\.0\.0\.1:(\d+)\//.exec(text)?.[1],
    15_000,
    `the origin to listen (${text})`,
  );
  return { child, url: `http://127.0.0.1:${port}`, log: () => text };
}

/** POSTs `run` (a run request object) to the origin's /live-run, signed with `key` as the edge signs. */
export async function postSignedRun(originUrl: string, key: string, run: object, client = 'test'): Promise<Response> {
  const body = new TextEncoder().encode(JSON.stringify(run));
  const { signOriginRequest } = await import('../../src/core/origin/origin-signature.js');
  const headers = await signOriginRequest(key, { method: 'POST', path: '/live-run', body, client });
  return fetch(`${originUrl}/live-run`, { method: 'POST', headers, body });
}

/** The process's resident memory in bytes (Linux), or 0 when it cannot be read. */
export async function residentBytesOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
