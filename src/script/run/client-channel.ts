// The client channel of a live run (file descriptor 3, see client-requests.ts): what the script
// writes there is split into lines and answered in order, each answer written back as a line.
import type { Duplex } from 'node:stream';
import { formatClientAnswer, MAX_CLIENT_REQUEST_BYTES, refusedAnswer } from '../../core/mcp/client-requests.js';

/**
 * Serves the client channel: splits what the script writes into lines, answers them in order
 * (a script asks, then reads its answer), and refuses a line longer than the cap without reading
 * it into memory. Writes stop once the run is over.
 */
export function readClientChannel(
  channel: Duplex,
  answer: (line: string) => Promise<string>,
  isOver: () => boolean,
): void {
  const decoder = new TextDecoder();
  let pending = '';
  let skippingLongLine = false;
  let queue: Promise<void> = Promise.resolve();
  const reply = (line: string | undefined): void => {
    // Every line is handed over as soon as it is read (a host may gather several questions before
    // answering any: MCP 2026-07-28 asks them together); the answers go back in the order asked.
    const text =
      line === undefined
        ? Promise.resolve(
            formatClientAnswer(
              refusedAnswer(`a request on the client channel is longer than ${MAX_CLIENT_REQUEST_BYTES} bytes`),
            ),
          )
        : answer(line);
    text.catch(() => {});
    queue = queue
      .then(async () => {
        const written = await text;
        if (!isOver() && channel.writable) channel.write(`${written}\n`);
      })
      .catch(() => {});
  };
  // The script may close its end at any time (or never read): neither is an error here.
  channel.on('error', () => {});
  channel.on('data', (chunk: Buffer) => {
    pending += decoder.decode(chunk, { stream: true });
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline).replace(/\r$/, '');
      pending = pending.slice(newline + 1);
      if (skippingLongLine) skippingLongLine = false;
      else if (line.trim() !== '') reply(line);
    }
    if (pending.length > MAX_CLIENT_REQUEST_BYTES) {
      pending = '';
      if (!skippingLongLine) reply(undefined);
      skippingLongLine = true;
    }
  });
}
