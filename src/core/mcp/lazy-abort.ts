// A request's cancellation, with the AbortController made only when something asks for its signal:
// an AbortSignal is an EventTarget, costly to make for every request, and most requests (a
// precomputed answer, a list) never look at it; a live run or a question to the client does.
export class LazyAbort {
  private controller: AbortController | undefined;
  private abortedEarly = false;

  /** The signal, made now if need be (already aborted when abort() came first). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedEarly) this.controller.abort();
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller === undefined ? this.abortedEarly : this.controller.signal.aborted;
  }

  abort(): void {
    if (this.controller === undefined) this.abortedEarly = true;
    else this.controller.abort();
  }
}
