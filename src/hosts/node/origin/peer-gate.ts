// The connections the origin holds for peers that have not yet sent a validly signed request,
// bounded per remote address and in total: a connection over either bound is closed as it opens,
// before anything of it is read. A connection leaves the count when it closes or when one of its
// requests proves signed (the edge's keep-alive connections then cost no place). A connection
// still unproven when its deadline passes (the headers and body timeouts together) is closed,
// whatever state its request is in: no stranger's connection outlives it.
import type { Socket } from 'node:net';

export class PeerGate {
  private readonly perPeer = new Map<string, number>();
  private total = 0;
  private readonly counted = new WeakMap<Socket, { peer: string; timer: NodeJS.Timeout }>();

  constructor(
    private readonly maxPerPeer: number,
    private readonly maxTotal: number,
    private readonly deadlineMs: number,
    private readonly onExpired: () => void = () => {},
  ) {}

  /** Counts a new connection, or says why it is refused (the caller closes it). */
  admit(socket: Socket): 'too many connections from one address' | 'too many connections' | undefined {
    const peer = socket.remoteAddress ?? 'unknown';
    const held = this.perPeer.get(peer) ?? 0;
    if (held >= this.maxPerPeer) return 'too many connections from one address';
    if (this.total >= this.maxTotal) return 'too many connections';
    this.perPeer.set(peer, held + 1);
    this.total += 1;
    const timer = setTimeout(() => {
      this.onExpired();
      socket.destroy();
    }, this.deadlineMs);
    timer.unref();
    this.counted.set(socket, { peer, timer });
    socket.once('close', () => this.release(socket));
    return undefined;
  }

  /** The connection carried a signed request: it no longer counts as a stranger's. */
  release(socket: Socket): void {
    const entry = this.counted.get(socket);
    if (entry === undefined) return;
    const { peer, timer } = entry;
    clearTimeout(timer);
    this.counted.delete(socket);
    this.total -= 1;
    const held = (this.perPeer.get(peer) ?? 1) - 1;
    if (held <= 0) this.perPeer.delete(peer);
    else this.perPeer.set(peer, held);
  }
}
