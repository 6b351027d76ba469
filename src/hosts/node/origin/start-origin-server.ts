// `staticmcp serve <project> --origin`: the live origin an edge worker forwards to (issue 27). It
// runs the project's scripts for signed requests only (origin-signature.ts: HMAC, replay window,
// nonce cache), streams each run's log and progress lines and its outcome back as NDJSON, answers
// a platform's health checks at /healthz, and serves nothing else: every other request gets 401
// with a JSON body saying why. Per-client limits key on the client the signed request names (the
// edge's own address is every client's). A full origin answers 503 with Retry-After; SIGTERM stops
// new requests and lets the runs in flight finish before the process exits 0.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientLiveGates, DEFAULT_MAX_LIVE_RUNS_PER_CLIENT } from '../../../core/mcp/http/client-live-gates.js';
import {
  NonceCache,
  ORIGIN_KEY_NAME,
  problemWithOriginKey,
  verifyOriginRequest,
} from '../../../core/origin/origin-signature.js';
import {
  MAX_ORIGIN_REQUEST_BYTES,
  ORIGIN_HEALTH_PATH,
  ORIGIN_RUN_PATH,
  ORIGIN_STREAM_TYPE,
  type OriginEvent,
  outcomeEvent,
  readOriginRunRequest,
} from '../../../core/origin/origin-wire.js';
import { readConfigOrDefaults } from '../../../project/config.js';
import { StaticMcpError } from '../../../core/staticmcp-error.js';
import { escapeTerminalText } from '../../../shared/terminal-text.js';
import { LiveProject } from '../live/live-project.js';
import { guardServerProcess } from '../process-guard.js';
import { bracketIpv6 } from '../http/host-rules.js';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** What Retry-After tells the edge when every slot and queue place is taken. */
const RETRY_AFTER_SECONDS = 2;

export interface OriginServeOptions {
  projectRoot: string;
  host: string;
  port: number;
  liveConcurrency?: number;
  maxLiveRunsPerClient?: number;
}

/**
 * The key from STATICMCP_ORIGIN_KEY or the file STATICMCP_ORIGIN_KEY_FILE names (a mounted
 * secret), never from a flag (a command line is visible to every user of the machine).
 */
export function readOriginKey(environment: NodeJS.ProcessEnv = process.env): string {
  const direct = environment[ORIGIN_KEY_NAME];
  const file = environment[`${ORIGIN_KEY_NAME}_FILE`];
  const what =
    "set STATICMCP_ORIGIN_KEY (or STATICMCP_ORIGIN_KEY_FILE, a file holding it) to the same random secret as the worker's (wrangler secret put STATICMCP_ORIGIN_KEY); make one with: openssl rand -hex 32";
  if (direct && file)
    throw new StaticMcpError(
      'ORIGIN_KEY',
      `both ${ORIGIN_KEY_NAME} and ${ORIGIN_KEY_NAME}_FILE are set`,
      `keep one: ${what}`,
    );
  let key = direct;
  if (file) {
    try {
      key = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new StaticMcpError(
        'ORIGIN_KEY',
        `${ORIGIN_KEY_NAME}_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        what,
      );
    }
  }
  const problem = problemWithOriginKey(key);
  if (problem) throw new StaticMcpError('ORIGIN_KEY', `the live origin cannot check signatures: ${problem}`, what);
  return key!.trim();
}

function answerJson(
  outgoing: http.ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  outgoing.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  outgoing.end(`${JSON.stringify(body)}\n`);
}

/** The body, or undefined when it passed `limit` bytes (the rest is not read). */
async function readBody(incoming: http.IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Listens, prints where, and resolves with the exit code once a signal stopped it and the runs in flight ended. */
export async function startOriginServer(options: OriginServeOptions): Promise<number> {
  const key = readOriginKey();
  const logLine = (text: string): void => {
    process.stderr.write(`staticmcp origin: ${escapeTerminalText(text)}\n`);
  };
  const project = new LiveProject(options.projectRoot, options.liveConcurrency, logLine);
  const slots =
    options.liveConcurrency ?? (await readConfigOrDefaults(options.projectRoot)).config.limits.liveConcurrency;
  // As many runs may wait as run: beyond that, a run would mostly wait out its timeout, so the
  // edge hears "busy" at once (another replica of the origin may have room).
  const maxInFlight = 2 * slots;
  const clientGates = new ClientLiveGates(options.maxLiveRunsPerClient ?? DEFAULT_MAX_LIVE_RUNS_PER_CLIENT);
  const nonces = new NonceCache();
  let inFlight = 0;
  let stopping = false;
  let drained: () => void = () => {};

  // The request (headers and body) must arrive in time; the streamed answer has no such limit
  // (a run takes as long as its own timeout).
  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS });
  server.on('request', (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
    void answer(incoming, outgoing).catch((error: unknown) => {
      logLine(`a request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!outgoing.headersSent) answerJson(outgoing, 500, { error: 'the origin failed to answer; see its log' });
      else outgoing.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  async function answer(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
    const requestPath = incoming.url ?? '/';
    if (requestPath === ORIGIN_HEALTH_PATH && (incoming.method === 'GET' || incoming.method === 'HEAD')) {
      // Draining: the platform stops sending traffic here while the runs in flight finish.
      answerJson(outgoing, stopping ? 503 : 200, { status: stopping ? 'stopping' : 'ok', runsInFlight: inFlight });
      return;
    }
    if (requestPath !== ORIGIN_RUN_PATH || incoming.method !== 'POST') {
      incoming.resume();
      answerJson(outgoing, 401, {
        error: `this is a staticmcp live origin: it serves nothing but signed POST ${ORIGIN_RUN_PATH} requests from its edge worker (and GET ${ORIGIN_HEALTH_PATH})`,
      });
      return;
    }
    const body = await readBody(incoming, MAX_ORIGIN_REQUEST_BYTES);
    if (!body) {
      answerJson(
        outgoing,
        413,
        { error: `the request is larger than ${MAX_ORIGIN_REQUEST_BYTES} bytes` },
        { connection: 'close' },
      );
      incoming.socket?.destroy();
      return;
    }
    const verdict = await verifyOriginRequest(
      key,
      { get: (name) => (typeof incoming.headers[name] === 'string' ? (incoming.headers[name] as string) : undefined) },
      { method: 'POST', path: requestPath, body },
      nonces,
    );
    if ('problem' in verdict) {
      logLine(`refused a request from ${incoming.socket?.remoteAddress ?? 'an unknown address'}: ${verdict.problem}`);
      answerJson(
        outgoing,
        verdict.status,
        { error: verdict.problem },
        verdict.status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {},
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      answerJson(outgoing, 400, { error: 'the body is not JSON' });
      return;
    }
    const run = readOriginRunRequest(parsed);
    if ('problem' in run) {
      answerJson(outgoing, 400, { error: run.problem });
      return;
    }
    if (stopping || inFlight >= maxInFlight) {
      answerJson(
        outgoing,
        503,
        { error: stopping ? 'the origin is shutting down' : `the origin is busy: ${inFlight} runs in flight` },
        { 'retry-after': String(RETRY_AFTER_SECONDS) },
      );
      return;
    }
    inFlight += 1;
    const startedAt = Date.now();
    const cancelled = new AbortController();
    // The edge hung up (its deadline, its client's cancel): the script is stopped.
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) cancelled.abort();
    });
    outgoing.writeHead(200, { 'content-type': ORIGIN_STREAM_TYPE, 'cache-control': 'no-store' });
    // Sent now, not with the first line: the edge knows at once the run was accepted.
    outgoing.flushHeaders();
    const send = (event: OriginEvent): void => {
      if (!outgoing.destroyed) outgoing.write(`${JSON.stringify(event)}\n`);
    };
    try {
      const outcome = await clientGates.limitRuns(project, verdict.client).run({
        ...run,
        signal: cancelled.signal,
        onLogLine: (line) => send({ log: line }),
        onProgressLine: (line) => send({ progress: line }),
      });
      send(outcomeEvent(outcome));
      outgoing.end();
      logLine(
        `${run.phase} run of ${run.toolName ?? run.scriptPath} for client ${verdict.client}: ${'problem' in outcome ? outcome.problem : outcome.run.message} (${Date.now() - startedAt} ms)`,
      );
    } finally {
      inFlight -= 1;
      if (stopping && inFlight === 0) drained();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} on ${options.host} is already in use`
            : `cannot listen on ${options.host}:${options.port} (${error.code ?? error.message})`,
        ),
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  process.stderr.write(
    `Live origin: http://${bracketIpv6(options.host)}:${port}${ORIGIN_RUN_PATH} (signed requests only; health: ${ORIGIN_HEALTH_PATH}) for ${options.projectRoot}\n`,
  );

  return new Promise<number>((resolve) => {
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      logLine(`stopping: ${inFlight} run(s) in flight finish first`);
      server.close();
      server.closeIdleConnections();
      const finish = (): void => {
        server.closeAllConnections();
        resolve(0);
      };
      if (inFlight === 0) finish();
      else drained = finish;
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    guardServerProcess(logLine, stop);
  });
}
