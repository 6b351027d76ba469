// A real `staticmcp serve … --http --port 0` process (the port read from its stderr line), raw
// HTTP exchanges with full control of every header (node:http, so Host can be anything), and an
// MCP session opened by hand.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import http from 'node:http';
import { CLI, REPO_ROOT } from './paths.js';

export const LATEST = '2025-11-25';

/** One `staticmcp serve … --http` process on 127.0.0.1 and a free port. */
export class HttpServe {
  stderr = '';
  port = 0;
  readonly exited: Promise<number | null>;
  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      this.stderr += text;
    });
    child.stdout.resume();
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /**
   * Starts `serve <args> --http --port 0` (with `env` added to ours) and waits for the endpoint
   * line; `cli` is the entry file node runs (this run's build, or an installed package's bin).
   */
  static async start(
    args: string[],
    timeoutMs = 45_000,
    env: Record<string, string> = {},
    cli = CLI,
  ): Promise<HttpServe> {
    const child = spawn(process.execPath, [cli, 'serve', ...args, '--http', '--port', '0'], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const serve = new HttpServe(child);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = /MCP endpoint: http:\/\/127\.0\.0\.1:(\d+)\/mcp\n/.exec(serve.stderr);
      if (match) {
        serve.port = Number(match[1]);
        return serve;
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        // A server that starts after the deadline would outlive the test run.
        child.kill('SIGKILL');
        throw new Error(`serve --http did not start within ${timeoutMs} ms: ${serve.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get endpoint(): URL {
    return new URL(`${this.base}/mcp`);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill(signal);
    return this.exited;
  }
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): {
    jsonrpc?: string;
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string | undefined>;
  body?: string | Buffer;
  /** Stop reading after this long (an open SSE stream): the answer then holds what came so far. */
  readMs?: number;
  agent?: http.Agent;
  /** The address to connect from (127.0.0.2 … are loopback too on Linux: another client's peer address). */
  localAddress?: string;
}

/** One HTTP exchange with exactly the headers given (undefined removes a default). */
export function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (value === undefined) delete headers[name.toLowerCase()];
      else headers[name.toLowerCase()] = value;
    }
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port,
        method: request.method ?? 'GET',
        path: request.path ?? '/mcp',
        headers,
        setHost: false,
        agent: request.agent ?? false,
        ...(request.localAddress ? { localAddress: request.localAddress } : {}),
      },
      (incoming) => {
        responded = true;
        let text = '';
        incoming.setEncoding('utf8');
        const finish = (): void =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text,
            json: () => JSON.parse(text),
          });
        let timer: NodeJS.Timeout | undefined;
        if (request.readMs !== undefined) {
          timer = setTimeout(() => {
            incoming.destroy();
            finish();
          }, request.readMs);
        }
        incoming.on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () => {
          clearTimeout(timer);
          finish();
        });
        incoming.on('error', () => {
          clearTimeout(timer);
          finish();
        });
      },
    );
    // A server may answer (413, say) and close before the whole body is written: the EPIPE that
    // follows is not the exchange failing, the answer is what the test reads.
    outgoing.on('error', (error) => {
      if (!responded) reject(error);
    });
    outgoing.end(request.body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POSTs one JSON-RPC body (a value, or raw text) to /mcp with the usual headers plus `headers`. */
export function post(
  port: number,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  readMs?: number,
): Promise<RawAnswer> {
  return rawRequest(port, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    readMs,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Opens a session by hand: initialize + initialized; returns its id. */
export async function openSession(port: number, protocolVersion = LATEST): Promise<string> {
  const init = await post(port, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string') throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const initialized = await post(
    port,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion },
  );
  if (initialized.status !== 202) throw new Error(`initialized: ${initialized.status}`);
  return id;
}

/** The JSON-RPC messages of an SSE body, in order. */
export function sseMessages(text: string): Record<string, unknown>[] {
  return text.split('\n\n').flatMap((event) => {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .join('\n');
    return data ? [JSON.parse(data) as Record<string, unknown>] : [];
  });
}
