// A live runner whose runs pass a concurrency gate first: the per-session and per-client caps on
// live script runs are both this, with their own gates. A run cancelled while it waits never starts.
import type { ConcurrencyGate } from './concurrency-gate.js';
import type { LiveRunner } from './live-port.js';

export function gateLiveRuns(live: LiveRunner, gate: ConcurrencyGate): LiveRunner {
  return {
    async run(request) {
      let release: () => void;
      try {
        release = await gate.acquire(request.signal);
      } catch {
        return { problem: 'cancelled before it started' };
      }
      try {
        return await live.run(request);
      } finally {
        release();
      }
    },
  };
}
