// Newline-delimited JSON-RPC over a readable and a writable stream (stdin/stdout by default).
// The output carries protocol frames and nothing else; a line longer than the frame cap is skipped
// (and reported) without buffering it; an empty line is ignored; `\r\n` is accepted. Back-pressure:
// while the client does not read what we wrote, we stop reading its requests, so a client that
// sends without reading cannot make the answers pile up in memory.
import { stringifyJsonRpc } from '../../core/mcp/exact-ids.js';

export interface StdioTransportOptions {
  input?: NodeJS.ReadableStream & { pause(): unknown; resume(): unknown; destroy(): unknown };
  output?: NodeJS.WritableStream & { destroyed: boolean; once(event: 'drain', listener: () => void): unknown };
  maxFrameBytes: number;
  onFrame(text: string): void;
  onOversizedFrame(): void;
  onClose(): void;
}

export interface StdioTransport {
  send(message: unknown): void;
  /** No more frames: the input is let go, so a server told to stop by a signal exits with its client still attached. */
  stopReading(): void;
}

const NEWLINE = 0x0a;

export function startStdioTransport(options: StdioTransportOptions): StdioTransport {
  const stdin = options.input ?? process.stdin;
  const stdout = options.output ?? process.stdout;
  let waitingForDrain = false;
  let chunks: Buffer[] = [];
  let bufferedBytes = 0;
  let discarding = false;
  let closed = false;

  const emit = (line: Buffer): void => {
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    options.onFrame(text);
  };

  stdin.on('data', (chunk: Buffer) => {
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
  });
  const close = (): void => {
    if (closed) return;
    closed = true;
    // A last line without a newline is still a message.
    if (!discarding && bufferedBytes > 0) emit(Buffer.concat(chunks));
    options.onClose();
  };
  stdin.on('end', close);
  stdin.on('close', close);
  stdin.on('error', close);
  // The client went away: nothing more can be answered.
  stdout.on('error', close);

  return {
    stopReading(): void {
      closed = true;
      stdin.destroy();
    },
    send(message: unknown): void {
      if (closed && stdout.destroyed) return;
      if (stdout.write(`${stringifyJsonRpc(message)}\n`) || waitingForDrain) return;
      waitingForDrain = true;
      stdin.pause();
      stdout.once('drain', () => {
        waitingForDrain = false;
        if (!closed) stdin.resume();
      });
    },
  };
}
