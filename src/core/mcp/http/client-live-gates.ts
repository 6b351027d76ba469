// A cap on the live script runs one client may have at once, in both protocol eras (issue 21,
// item 7). 2026-07-28 requests have no session, so the per-session cap never applied to them and
// one client could take every global live slot; this gate is keyed by the client (client-quotas.ts)
// and sits on top of the per-session cap and of the host's global slots. Portable.
import { ConcurrencyGate } from '../concurrency-gate.js';
import { gateLiveRuns } from '../gated-live-runner.js';
import type { LiveRunner } from '../live-port.js';

/**
 * Live runs one client may have at once. The host's global default is at least 8 slots (4 per core),
 * so one client can take at most half of them and another client's call still starts; a single
 * session has the same allowance (4), so a well-behaved client with one session never waits on it.
 */
export const DEFAULT_MAX_LIVE_RUNS_PER_CLIENT = 4;

/** One gate per client that has a run going or waiting; a client's entry goes when it has none. */
export class ClientLiveGates {
  private readonly gates = new Map<string, { gate: ConcurrencyGate; users: number }>();

  constructor(private readonly maxRunsPerClient: number) {}

  /** `live`, with every run counted against `clientKey`'s gate. */
  limitRuns(live: LiveRunner, clientKey: string): LiveRunner {
    return {
      run: async (request) => {
        const entry = this.enter(clientKey);
        try {
          return await gateLiveRuns(live, entry.gate).run(request);
        } finally {
          this.leave(clientKey, entry);
        }
      },
    };
  }

  private enter(clientKey: string): { gate: ConcurrencyGate; users: number } {
    let entry = this.gates.get(clientKey);
    if (!entry) {
      entry = { gate: new ConcurrencyGate(this.maxRunsPerClient), users: 0 };
      this.gates.set(clientKey, entry);
    }
    entry.users += 1;
    return entry;
  }

  private leave(clientKey: string, entry: { gate: ConcurrencyGate; users: number }): void {
    entry.users -= 1;
    if (entry.users === 0 && this.gates.get(clientKey) === entry) this.gates.delete(clientKey);
  }
}
