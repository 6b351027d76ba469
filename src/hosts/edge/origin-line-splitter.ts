// Splits a live origin's NDJSON answer into its lines in time linear in the bytes received: each
// chunk is scanned once for newlines, a line still open is kept as the list of its pieces and
// joined only once it is complete, and a line longer than its cap, or more lines than a call may
// send, stops the reading as soon as it shows. Portable (the edge worker runs it in workerd).

/** Which bound an origin's answer went past. */
export type LineLimitKind = 'line-bytes' | 'lines';

export class LineLimitExceeded extends Error {
  constructor(readonly kind: LineLimitKind) {
    super(kind);
  }
}

const NEWLINE = 0x0a;

export class OriginLineSplitter {
  private pieces: Uint8Array[] = [];
  private pieceBytes = 0;
  private lineCount = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly maxLines: number,
  ) {}

  /** The lines `chunk` completes (without their newline); throws LineLimitExceeded past a bound. */
  push(chunk: Uint8Array): Uint8Array[] {
    const lines: Uint8Array[] = [];
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline >= 0) {
      lines.push(this.takeLine(chunk.subarray(start, newline)));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.byteLength) {
      this.pieceBytes += chunk.byteLength - start;
      // A line without its newline yet is refused as soon as it is too long, not when it ends.
      if (this.pieceBytes > this.maxLineBytes) throw new LineLimitExceeded('line-bytes');
      this.pieces.push(chunk.subarray(start));
    }
    return lines;
  }

  /** What is left after the last newline when the answer ends (a last line without one), if anything. */
  finish(): Uint8Array | undefined {
    if (this.pieceBytes === 0) return undefined;
    return this.join(new Uint8Array(0));
  }

  private takeLine(tail: Uint8Array): Uint8Array {
    this.lineCount += 1;
    if (this.lineCount > this.maxLines) throw new LineLimitExceeded('lines');
    if (this.pieceBytes + tail.byteLength > this.maxLineBytes) throw new LineLimitExceeded('line-bytes');
    return this.join(tail);
  }

  private join(tail: Uint8Array): Uint8Array {
    if (this.pieces.length === 0) return tail;
    const line = new Uint8Array(this.pieceBytes + tail.byteLength);
    let offset = 0;
    for (const piece of this.pieces) {
      line.set(piece, offset);
      offset += piece.byteLength;
    }
    line.set(tail, offset);
    this.pieces = [];
    this.pieceBytes = 0;
    return line;
  }
}
