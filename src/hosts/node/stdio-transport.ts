// Newline-delimited JSON-RPC over a readable and a writable stream (stdin/stdout by default).
// The output carries protocol frames and nothing else; a line longer than the frame cap is skipped
// (and reported) without buffering it; an empty line is ignored; `\r\n` is accepted. Back-pressure:
// while the client does not read what we wrote, we stop reading its requests, so a client that
// sends without reading cannot make the answers pile up in memory. With `answerWaitingFirst`,
// what the client sent before the server started is read and answered before the streams are
// made (waiting-input.ts). Once stdout's stream exists on a pipe or socket (which Node makes
// non-blocking), an answer is written to it with one write(2) while the stream holds nothing
// unsent: the stream's own write makes the same call after a dozen functions and a request object
// of its own. What that write cannot take (a full pipe) goes through the stream, in order.
import { fstatSync } from 'node:fs';
import { stringifyJsonRpc } from '../../core/mcp/exact-ids.js';
import { readWaitingInput, writeTextSync } from './waiting-input.js';

type Input = NodeJS.ReadableStream & { pause(): unknown; resume(): unknown; destroy(): unknown };
type Output = NodeJS.WritableStream & {
  destroyed: boolean;
  writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
};

export interface StdioTransportOptions {
  input?: Input;
  output?: Output;
  maxFrameBytes: number;
  onFrame(text: string): void;
  onOversizedFrame(): void;
  onClose(): void;
  /**
   * Read what stdin already holds with one blocking read, and answer it with plain writes, before
   * process.stdin and process.stdout exist (only for process stdio; `serve` asks for it, dev does
   * not: its watcher must not wait for a client). Until that read returns, a signal ends the
   * process as it would any program (nothing has started that needs stopping).
   */
  answerWaitingFirst?: boolean;
}

export interface StdioTransport {
  send(message: unknown): void;
  /** No more frames: the input is let go, so a server told to stop by a signal exits with its client still attached. */
  stopReading(): void;
}

const NEWLINE = 0x0a;
/**
 * How much the plain writes may send, in all: less than any pipe or socket holds (a page), so that
 * a client that does not read yet cannot block the server in write(2), where no signal handler runs.
 */
const PLAIN_WRITE_BYTES = 4096;

export function startStdioTransport(options: StdioTransportOptions): StdioTransport {
  let stdin: Input | undefined;
  let stdout: Output | undefined;
  let waitingForDrain = false;
  let chunks: Buffer[] = [];
  let bufferedBytes = 0;
  let discarding = false;
  let closed = false;
  let plainWriteBytesLeft = PLAIN_WRITE_BYTES;
  /** Whether process.stdout is a non-blocking pipe or socket, which write(2) may be given directly. */
  let writesDirectly = false;

  const emit = (line: Buffer): void => {
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    options.onFrame(text);
  };

  const receive = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        const rest = chunk.subarray(start);
        if (!discarding) {
          chunks.push(rest);
          bufferedBytes += rest.length;
          if (bufferedBytes > options.maxFrameBytes) {
            discarding = true;
            chunks = [];
            bufferedBytes = 0;
          }
        }
        break;
      }
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (discarding) {
        discarding = false;
        options.onOversizedFrame();
        continue;
      }
      if (bufferedBytes + piece.length > options.maxFrameBytes) {
        chunks = [];
        bufferedBytes = 0;
        options.onOversizedFrame();
        continue;
      }
      const line = chunks.length === 0 ? piece : Buffer.concat([...chunks, piece]);
      chunks = [];
      bufferedBytes = 0;
      emit(line);
    }
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    // A last line without a newline is still a message.
    if (!discarding && bufferedBytes > 0) emit(Buffer.concat(chunks));
    options.onClose();
  };
  const openOutput = (): Output => {
    if (stdout !== undefined) return stdout;
    const output = options.output ?? process.stdout;
    stdout = output;
    writesDirectly = options.output === undefined && isPipeOrSocket(1);
    // The client went away: nothing more can be answered.
    output.on('error', close);
    return output;
  };
  const openInput = (): void => {
    if (closed || stdin !== undefined) return;
    const input = options.input ?? process.stdin;
    stdin = input;
    input.on('data', receive);
    input.on('end', close);
    input.on('close', close);
    input.on('error', close);
    if (waitingForDrain) input.pause();
  };
  const writeStream = (text: string | Buffer): void => {
    const output = openOutput();
    if (output.write(text) || waitingForDrain) return;
    waitingForDrain = true;
    stdin?.pause();
    output.once('drain', () => {
      waitingForDrain = false;
      if (!closed) stdin?.resume();
    });
  };

  const waiting =
    options.answerWaitingFirst === true && options.input === undefined && options.output === undefined
      ? readWaitingInput()
      : undefined;
  if (waiting === undefined) {
    openOutput();
    openInput();
  } else {
    // After the caller has wired its handlers: frames are delivered as a stream's would be.
    process.nextTick(() => {
      if (waiting.length === 0) {
        close();
        return;
      }
      receive(waiting);
      // The answers that need no I/O are out by then; the streams load while the client reads them.
      setImmediate(() => {
        if (closed) return;
        // An empty write sends nothing; it compiles the stream's write path now, while the client
        // reads its answers, instead of in the first call's answer.
        openOutput().write('');
        openInput();
      });
    });
  }

  /** One write(2) of `line`; what it cannot take goes through the stream, after it. */
  const writeDirectly = (line: string): void => {
    let rest: string | Buffer;
    try {
      rest = writeTextSync(line);
    } catch {
      // What an 'error' on the stream means: the client went away.
      close();
      return;
    }
    if (rest.length > 0) writeStream(rest);
  };

  return {
    stopReading(): void {
      closed = true;
      stdin?.destroy();
    },
    send(message: unknown): void {
      if (closed && stdout?.destroyed === true) return;
      const line = `${stringifyJsonRpc(message)}\n`;
      if (stdout !== undefined) {
        // Only past everything the stream still holds: answers go out in the order they were sent.
        if (!writesDirectly || waitingForDrain || stdout.writableLength > 0) writeStream(line);
        else writeDirectly(line);
        return;
      }
      const length = Buffer.byteLength(line);
      if (length > plainWriteBytesLeft) {
        writeStream(line);
        return;
      }
      plainWriteBytesLeft -= length;
      writeDirectly(line);
    },
  };
}

/** Whether the descriptor is a pipe or a socket (what Node's stdio streams make non-blocking); false on Windows. */
function isPipeOrSocket(descriptor: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    const stats = fstatSync(descriptor);
    return stats.isFIFO() || stats.isSocket();
  } catch {
    return false;
  }
}
