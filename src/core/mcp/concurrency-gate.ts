// Bounded concurrency for live runs: at most `limit` at once, the rest wait in order; a waiter
// whose request is cancelled leaves the queue without ever running.

export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: { start: () => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new Error('cancelled'));
    return new Promise((resolve, reject) => {
      const release = (): void => {
        this.running -= 1;
        this.startNext();
      };
      if (this.running < this.limit) {
        this.running += 1;
        resolve(release);
        return;
      }
      const waiter = {
        signal,
        start: () => {
          signal?.removeEventListener('abort', waiter.onAbort);
          this.running += 1;
          resolve(release);
        },
        onAbort: () => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(new Error('cancelled'));
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private startNext(): void {
    const next = this.waiting.shift();
    next?.start();
  }
}
