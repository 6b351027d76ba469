// `staticmcp serve <project> --origin`: the live origin an edge worker forwards to (issue 27). It
// runs the project's scripts for signed requests only (origin-signature.ts: HMAC, replay window,
// nonce cache), streams each run's log and progress lines and its outcome back as NDJSON, answers
// a platform's health checks at /healthz, and serves nothing else: every other request gets 401
// with a JSON body saying why. Per-client limits key on the client the signed request names (the
// edge's own address is every client's). A full origin answers 503 with Retry-After; SIGTERM stops
// new requests and lets the runs in flight finish before the process exits 0.
//
// A stranger costs next to nothing: a connection over the per-peer or total bound of connections
// not yet proven signed is closed as it opens (peer-gate.ts); a request whose signature headers
// are missing, malformed, stale or replayed is answered and closed before its body is read; a body
// must arrive within its own deadline and a shared byte budget (read-request-body.ts); refusals are
// logged as counts per interval (refusal-tally.ts); and a signed request runs only what the
// project's built tree declares (declared-runs.ts). Limits: origin-limits.ts.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ClientLiveGates, DEFAULT_MAX_LIVE_RUNS_PER_CLIENT } from '../../../core/mcp/http/client-live-gates.js';
import {
  checkOriginHeaders,
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
import { readConfigOrDefaults, resolveOutputFolder } from '../../../project/config.js';
import { StaticMcpError } from '../../../core/staticmcp-error.js';
import { escapeTerminalText } from '../../../shared/terminal-text.js';
import { LiveProject } from '../live/live-project.js';
import { guardServerProcess } from '../process-guard.js';
import { bracketIpv6 } from '../http/host-rules.js';
import { DeclaredRuns } from './declared-runs.js';
import { ORIGIN_LIMIT_VARIABLES, readOriginLimits } from './origin-limits.js';
import { PeerGate } from './peer-gate.js';
import { answerAndClose, PendingBytes, readRequestBody } from './read-request-body.js';
import { RefusalTally } from './refusal-tally.js';

/** How often Node sweeps connections for the headers and request timeouts (its default is 30 s). */
const TIMEOUT_SWEEP_MS = 1_000;
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

/** Listens, prints where, and resolves with the exit code once a signal stopped it and the runs in flight ended. */
export async function startOriginServer(options: OriginServeOptions): Promise<number> {
  const key = readOriginKey();
  const limits = readOriginLimits();
  const logLine = (text: string): void => {
    process.stderr.write(`staticmcp serve --origin: ${escapeTerminalText(text)}\n`);
  };
  const project = new LiveProject(options.projectRoot, options.liveConcurrency, logLine);
  const { config } = await readConfigOrDefaults(options.projectRoot);
  const slots = options.liveConcurrency ?? config.limits.liveConcurrency;
  // As many runs may wait as run: beyond that, a run would mostly wait out its timeout, so the
  // edge hears "busy" at once (another replica of the origin may have room).
  const maxInFlight = 2 * slots;
  const clientGates = new ClientLiveGates(options.maxLiveRunsPerClient ?? DEFAULT_MAX_LIVE_RUNS_PER_CLIENT);
  const nonces = new NonceCache();
  const declared = new DeclaredRuns(resolveOutputFolder(options.projectRoot, config));
  const refusals = new RefusalTally(limits.refusedLogIntervalMs, logLine);
  // A connection not proven signed within the headers and body timeouts (and a second's sweep) is closed.
  const peers = new PeerGate(
    limits.connectionsPerPeer,
    limits.connections,
    limits.headersTimeoutMs + limits.bodyTimeoutMs + TIMEOUT_SWEEP_MS,
    () => refusals.count('not signed in time'),
  );
  const pending = new PendingBytes(limits.pendingBodyBytes, limits.peerPendingBodyBytes);
  let inFlight = 0;
  let stopping = false;
  let drained: () => void = () => {};

  // The request (headers, then body) must arrive in time, swept every second rather than Node's
  // 30 s; the body also has a deadline of its own (readRequestBody). The streamed answer has no
  // such limit (a run takes as long as its own timeout).
  const server = http.createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs,
    connectionsCheckingInterval: Math.min(TIMEOUT_SWEEP_MS, limits.headersTimeoutMs),
  });
  server.on('connection', (socket: Socket) => {
    const refused = peers.admit(socket);
    if (refused === undefined) return;
    refusals.count(refused);
    socket.destroy();
  });
  server.on('request', (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
    void answer(incoming, outgoing).catch((error: unknown) => {
      logLine(`a request failed: ${(error as Error)?.stack ?? String(error)}`);
      if (!outgoing.headersSent) answerJson(outgoing, 500, { error: 'the origin failed to answer; see its log' });
      else outgoing.destroy();
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A connection closed before a request is not a refusal.
    if (error.code !== 'ECONNRESET')
      refusals.count(error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'headers too slow' : 'malformed HTTP');
    socket.destroy();
  });

  /** Answers a refused request and closes its connection; the refusal is counted, not logged on its own. */
  const refuse = (
    outgoing: http.ServerResponse,
    reason: string,
    status: number,
    error: string,
    headers: Record<string, string> = {},
  ): void => {
    refusals.count(reason);
    answerAndClose(outgoing, status, { error }, headers);
  };

  async function answer(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
    const requestPath = incoming.url ?? '/';
    if (requestPath === ORIGIN_HEALTH_PATH && (incoming.method === 'GET' || incoming.method === 'HEAD')) {
      // Draining: the platform stops sending traffic here while the runs in flight finish.
      answerJson(outgoing, stopping ? 503 : 200, { status: stopping ? 'stopping' : 'ok', runsInFlight: inFlight });
      return;
    }
    if (requestPath !== ORIGIN_RUN_PATH || incoming.method !== 'POST')
      return refuse(
        outgoing,
        'not a run request',
        401,
        `this is a staticmcp live origin: it serves nothing but signed POST ${ORIGIN_RUN_PATH} requests from its edge worker (and GET ${ORIGIN_HEALTH_PATH})`,
      );
    const headers = {
      get: (name: string) =>
        typeof incoming.headers[name] === 'string' ? (incoming.headers[name] as string) : undefined,
    };
    const early = checkOriginHeaders(headers, nonces);
    if (early) return refuse(outgoing, early.refusal, 401, early.problem);
    const declaredLength = Number(incoming.headers['content-length'] ?? 0);
    if (declaredLength > MAX_ORIGIN_REQUEST_BYTES)
      return refuse(outgoing, 'too large', 413, `the request is larger than ${MAX_ORIGIN_REQUEST_BYTES} bytes`);
    const read = await readRequestBody(incoming, MAX_ORIGIN_REQUEST_BYTES, limits.bodyTimeoutMs, pending);
    if ('refused' in read) {
      const { refused } = read;
      if (refused === 'aborted') {
        refusals.count('closed before its body was in');
        outgoing.destroy();
        return;
      }
      if (refused === 'too large')
        return refuse(outgoing, refused, 413, `the request is larger than ${MAX_ORIGIN_REQUEST_BYTES} bytes`);
      if (refused === 'body too slow')
        return refuse(
          outgoing,
          refused,
          408,
          `the request's body did not arrive within ${limits.bodyTimeoutMs} ms (${ORIGIN_LIMIT_VARIABLES.bodyTimeoutMs})`,
        );
      return refuse(
        outgoing,
        'origin full',
        503,
        `the origin holds as many bytes of unchecked requests as it takes, from this address (${ORIGIN_LIMIT_VARIABLES.peerPendingBodyBytes}) or in all (${ORIGIN_LIMIT_VARIABLES.pendingBodyBytes}); try again`,
        { 'retry-after': String(RETRY_AFTER_SECONDS) },
      );
    }
    const { body } = read;
    const verdict = await verifyOriginRequest(key, headers, { method: 'POST', path: requestPath, body }, nonces);
    if ('problem' in verdict) {
      const reason =
        verdict.status === 503
          ? 'nonce cache full'
          : /replayed/.test(verdict.problem)
            ? 'replayed nonce'
            : 'bad signature';
      refusals.count(reason);
      answerJson(
        outgoing,
        verdict.status,
        { error: verdict.problem },
        verdict.status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {},
      );
      return;
    }
    // Signed by the edge: its connection is no stranger's any more.
    if (incoming.socket) peers.release(incoming.socket);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      refusals.count('bad run request');
      answerJson(outgoing, 400, { error: 'the body is not JSON' });
      return;
    }
    const asked = readOriginRunRequest(parsed);
    if ('problem' in asked) {
      refusals.count('bad run request');
      answerJson(outgoing, 400, { error: asked.problem });
      return;
    }
    const allowed = await declared.check(
      asked,
      (await readConfigOrDefaults(options.projectRoot)).config.limits.timeoutMs,
    );
    if ('problem' in allowed) {
      refusals.count('undeclared run');
      answerJson(outgoing, 400, { error: allowed.problem });
      return;
    }
    const { run } = allowed;
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
    `staticmcp serve --origin: Live origin: http://${bracketIpv6(options.host)}:${port}${ORIGIN_RUN_PATH} (signed requests only; health: ${ORIGIN_HEALTH_PATH}) for ${options.projectRoot}\n`,
  );
  const treeProblem = await declared.describeProblem();
  if (treeProblem) logLine(`${treeProblem}; until then every run request is refused`);

  return new Promise<number>((resolve) => {
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      logLine(`stopping: ${inFlight} run(s) in flight finish first`);
      server.close();
      server.closeIdleConnections();
      const finish = (): void => {
        server.closeAllConnections();
        refusals.stop();
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
