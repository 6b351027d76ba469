// Answers bounded before they are built (issue 37, row 4 and the arguments item), on a real
// `serve --http` whose peak memory is read from /proc/<pid>/status: a batch of 100 reads of a
// resource of 3/16 of the answer cap reads only what fits the cap (the rest refused from their
// size, unread) and costs the server a small multiple of the cap while a ping is answered; a
// resource larger than the cap is refused from its size alone; a 2,000,000-element argument is
// refused before anything walks it. The cap is lowered from its 32 MiB default to 8 MiB through
// STATICMCP_HTTP_MAX_ANSWER_BYTES, and the resource and the memory bound with it (the ratios of
// the 6 MB resource and 300 MB bound to the default cap), so the batch moves a quarter of
// the bytes.
// (On 96d143f the batch peaked near 1.3 GB with the ping waiting out the whole batch, the large
// resource was sent whole, and the argument held the server for seconds.) The resources are written
// at test time into a temporary tree, never committed.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, openSession, post, type RawAnswer } from '../helpers/http-serve.js';
import { waitUntilWithinCpu } from '../helpers/wait-within-cpu.js';
import { temporaryFolder } from '../helpers/temp-folders.js';

const CAP_BYTES = 8 * 1024 * 1024;
/** The bound for the batch, 300 MB over a 32 MiB cap, scaled to this cap: what the server may hold above its rest. */
const PEAK_ABOVE_REST_MB = (300 * CAP_BYTES) / (32 * 1024 * 1024);
/** The 6 MB resource, scaled to this cap: 5 of them fit one answer, the sixth does not. */
const RESOURCE_BYTES = (6 * CAP_BYTES) / 32;
/** Larger than the cap by 1 MiB, and more than the memory bound of the test that asks for it. */
const HUGE_BYTES = 33 * 1024 * 1024;
/**
 * "Answered, not blocked" for a ping sent meanwhile: the 2 s, as the CPU the server may
 * use between the ping and its answer. Its wall time grows with the machine's load (a suite beside
 * another on two cores waits seconds for a core); a server blocked in the attack's work spends
 * that work's CPU before it answers (the unchanged code walked the 2,000,000 values, seconds of CPU).
 */
const PROBE_CPU_BOUND_MS = 2000;
const BATCH_VERSION = '2025-03-26';

let serve: HttpServe;
let headers: Record<string, string>;
let nextId = 1;

beforeAll(async () => {
  const tree = await temporaryFolder('staticmcp-answer-bounds-');
  await mkdir(path.join(tree, 'resources'));
  // The file `JSON.stringify({ uri, text: 'r'.repeat(bytes) })` writes, streamed from one chunk:
  // a string and a buffer of the whole 33 MiB cost this worker more than the tests.
  const chunk = Buffer.alloc(1024 * 1024, 'r');
  const resource = async (name: string, bytes: number) => {
    const file = await open(path.join(tree, 'resources', `${name}.json`), 'w');
    try {
      await file.write(`{"uri":"big://${name}","text":"`);
      for (let left = bytes; left > 0; left -= chunk.length) await file.write(chunk, 0, Math.min(left, chunk.length));
      await file.write('"}');
    } finally {
      await file.close();
    }
    return { uri: `big://${name}`, name, mimeType: 'text/plain' };
  };
  const manifest = {
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'answer-bounds', version: '1.0.0' },
    capabilities: {
      tools: [
        {
          name: 'sum',
          description: 'Sum numbers',
          inputSchema: { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' } } } },
        },
      ],
      resources: [await resource('slice', RESOURCE_BYTES), await resource('huge', HUGE_BYTES)],
      resourceTemplates: [],
      prompts: [],
    },
  };
  writeFileSync(path.join(tree, 'mcp.json'), JSON.stringify(manifest));
  serve = await HttpServe.start([tree], undefined, { STATICMCP_HTTP_MAX_ANSWER_BYTES: String(CAP_BYTES) });
  const session = await openSession(serve.port, BATCH_VERSION);
  headers = { 'mcp-session-id': session, 'mcp-protocol-version': BATCH_VERSION };
  // Warm: the handlers and one whole read are loaded before the rest is measured.
  const warm = await post(serve.port, request('resources/read', { uri: 'big://slice' }), headers);
  expect(warm.status).toBe(200);
});

afterAll(async () => {
  await serve?.stop();
});

function request(method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) };
}

const statusKb = (field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${serve.child.pid}/status`, 'utf8'))?.[1]);

/** Posts `body` on the session; the function returned gives its answer once it came (throws what failed). */
function sendWatched(body: string): () => RawAnswer | undefined {
  let outcome: { answer?: RawAnswer; error?: unknown } | undefined;
  post(serve.port, body, headers).then(
    (answer) => {
      outcome = { answer };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  return () => {
    if (outcome?.error !== undefined) throw outcome.error;
    return outcome?.answer;
  };
}

/**
 * Sends `body`, and a ping 20 ms later; resolves with the answer and the server's peak RSS above
 * what it held before (VmHWM reset first where the kernel allows, else VmRSS sampled every 5 ms).
 * Fails once the server has used PROBE_CPU_BOUND_MS of CPU after the ping without answering it,
 * or `answerCpuBoundMs` after the body without answering that.
 */
async function attack(
  body: string,
  answerCpuBoundMs = Number.POSITIVE_INFINITY,
): Promise<{ answer: unknown; aboveRestMb: number }> {
  const restKb = statusKb('VmRSS');
  let peakKb = restKb;
  let resetPeak = true;
  try {
    writeFileSync(`/proc/${serve.child.pid}/clear_refs`, '5');
  } catch {
    resetPeak = false;
  }
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, statusKb('VmRSS'));
  }, 5);
  const pid = serve.child.pid!;
  try {
    const answer = sendWatched(body);
    const answered = waitUntilWithinCpu(answer, pid, answerCpuBoundMs, 'the answer to the request');
    // Awaited below; when the ping's wait fails first, its failure is the one to report.
    answered.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const pong = sendWatched(JSON.stringify(request('ping')));
    const ping = await waitUntilWithinCpu(pong, pid, PROBE_CPU_BOUND_MS, 'the answer to a ping sent meanwhile');
    expect(ping.json().result).toEqual({});
    const response = await answered;
    expect(response.status).toBe(200);
    if (resetPeak) peakKb = Math.max(peakKb, statusKb('VmHWM'));
    return { answer: JSON.parse(response.text), aboveRestMb: (peakKb - restKb) / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

interface Entry {
  id: number;
  result?: { contents: { text: string }[] };
  error?: { code: number; message: string };
}

describe('answers bounded before they are built', () => {
  it('a batch of 100 reads of a resource of 3/16 of the cap reads what fits, refuses the rest unread, and a ping is answered', async () => {
    const batch = Array.from({ length: 100 }, () => request('resources/read', { uri: 'big://slice' }));
    const { answer, aboveRestMb } = await attack(JSON.stringify(batch));
    const entries = answer as Entry[];
    expect(entries).toHaveLength(100);
    const answered = entries.filter((entry) => entry.result);
    expect(answered.length).toBeGreaterThanOrEqual(4);
    expect(answered.length).toBeLessThanOrEqual(5);
    for (const entry of answered) expect(entry.result?.contents[0]?.text.length).toBe(RESOURCE_BYTES);
    const refused = entries.filter((entry) => entry.error);
    expect(refused).toHaveLength(100 - answered.length);
    for (const entry of refused) {
      expect(entry.error?.code).toBe(-32000);
      expect(entry.error?.message).toMatch(
        new RegExp(
          `^Answer too large: the resource big://slice is \\d+ bytes, more than the \\d+ bytes left of the ${CAP_BYTES} this server sends for one batch; it was not read`,
        ),
      );
    }
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(100);
    expect(aboveRestMb).toBeLessThan(PEAK_ABOVE_REST_MB);
  });

  it('a resource larger than the cap is refused from its size, alone or in a batch', async () => {
    const { answer, aboveRestMb } = await attack(JSON.stringify(request('resources/read', { uri: 'big://huge' })));
    expect(answer).toMatchObject({
      error: {
        code: -32000,
        message: expect.stringMatching(
          new RegExp(
            `^Answer too large: the resource big://huge is 34603\\d{3} bytes, more than the ${CAP_BYTES} bytes this server sends in one answer; it was not read\\.`,
          ),
        ),
      },
    });
    // Never read: nothing near its 33 MB was held.
    expect(aboveRestMb).toBeLessThan(30);
    const batch = await post(
      serve.port,
      [request('resources/read', { uri: 'big://huge' }), request('resources/read', { uri: 'big://slice' })],
      headers,
    );
    const [huge, slice] = JSON.parse(batch.text) as Entry[];
    expect(huge?.error?.message).toMatch(
      new RegExp(`big://huge is \\d+ bytes, more than the ${CAP_BYTES} bytes this server sends in one answer`),
    );
    expect(slice?.result?.contents[0]?.text.length).toBe(RESOURCE_BYTES);
  });

  it('a 2,000,000-element array argument is refused at once with -32602, and a ping is answered', async () => {
    const id = nextId++;
    const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"sum","arguments":{"numbers":[${'0,'.repeat(1_999_999)}0]}}}`;
    // The 4 MB body is still arriving when the ping lands: the refusal's own CPU is what shows
    // the walk over 2,000,000 values never ran (it held the server for seconds on 96d143f).
    const { answer } = await attack(body, PROBE_CPU_BOUND_MS * 2);
    expect(answer).toMatchObject({
      id,
      error: { code: -32602, message: expect.stringMatching(/the message holds more than 100000 values/) },
    });
    const fine = await post(
      serve.port,
      request('tools/call', { name: 'sum', arguments: { numbers: [1, 2] } }),
      headers,
    );
    expect(fine.json().result).toMatchObject({ isError: true });
  });
});
