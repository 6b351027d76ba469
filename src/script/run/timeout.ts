// The two reasons a run is ended from outside: its time budget ran out, or the caller cancelled
// it (an AbortSignal). Each calls back once; `dispose` forgets both when the run ends by itself.

export interface RunLimits {
  dispose(): void;
}

export function watchTimeoutAndCancel(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  on: { timeout: () => void; cancel: () => void },
): RunLimits {
  const timer = setTimeout(on.timeout, timeoutMs);
  const onAbort = (): void => on.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
